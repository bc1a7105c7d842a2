package main

import (
	"errors"
	"flag"
	"fmt"
)

// flagSet is a subcommand's flag set; its -help text goes to stdout and
// names the command, its arguments and what it does.
type flagSet struct {
	*flag.FlagSet
	env            *env
	args, describe string
}

func newFlagSet(e *env, name, args, description string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), env: e, args: args, describe: description}
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: roomspec %s [flags] %s\n\n%s\n", name, fs.args, fs.describe)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses args and reports whether the command should go on; if not,
// code is the exit status (0 after -help, 2 after a bad flag, whose error
// the flag package has already printed with the usage).
func (fs *flagSet) parse(args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(fs.env.stdout)
		fs.Usage()
		return exitOK, false
	default:
		return exitBadInput, false
	}
}
