package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// flagSet is a subcommand's flag set; its -help text goes to stdout and
// names the command, its arguments and what it does.
type flagSet struct {
	*flag.FlagSet
	env            *env
	name           string
	args, describe string
}

func newFlagSet(e *env, name, args, description string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), env: e, name: name, args: args, describe: description}
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fs.printUsage(fs.env.stderr) }
	return fs
}

func (fs *flagSet) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: roomspec %s [flags] %s\n\n%s\n", fs.name, fs.args, fs.describe)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		out := fs.Output()
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
}

// parse parses args and reports whether the command should go on; if not,
// code is the exit status: 0 after -help (usage on stdout), 2 after a bad
// flag (the error and usage on stderr).
func (fs *flagSet) parse(args []string) (code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed below, to the right stream
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		fs.printUsage(fs.env.stdout)
		return exitOK, false
	default:
		fs.printUsage(fs.env.stderr)
		return exitBadInput, false
	}
}

// parseInterleaved parses args whose flags may come before or after the
// positional arguments ("show FILE -html"), and returns the positional
// ones.
func (fs *flagSet) parseInterleaved(args []string) (pos []string, code int, ok bool) {
	for {
		if code, ok := fs.parse(args); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, exitOK, true
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), exitOK, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
