// Command roomspec checks the KV-transfer room lifecycle of prefill/decode
// disaggregated LLM serving against a formal TLA+ spec: it model-checks the
// spec, decodes captured ZeroMQ control traffic, and replays captures to give
// every aborted room a verdict.
//
// Each subcommand lives in its own file and registers itself in init, so
// subcommands stay independent of each other.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// Exit codes shared by every subcommand.
const (
	exitOK        = 0 // ran to completion, nothing wrong found
	exitViolation = 1 // ran to completion and found a violation
	exitBadInput  = 2 // bad usage or unreadable / malformed input
	// exitIncomplete: stopped by a bound (-max-states, ...) or an
	// interrupt before the work was complete; nothing wrong found so far.
	exitIncomplete = 3
)

// command is one roomspec subcommand.
type command struct {
	name    string
	summary string // one line for the top-level help
	// run executes the command with its arguments (without the command
	// name) and returns the process exit code.
	run func(env *env, args []string) int
}

// env is what a command may touch of the outside world; tests swap it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stderrIsTerminal enables progress bars; it is false under tests.
	stderrIsTerminal bool
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("roomspec: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(&env{
		stdin:            os.Stdin,
		stdout:           os.Stdout,
		stderr:           os.Stderr,
		stderrIsTerminal: isTerminal(os.Stderr),
	}, os.Args[1:]))
}

func run(e *env, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitBadInput
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			// roomspec help COMMAND is roomspec COMMAND -help.
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(e.stderr, "roomspec help: %v\n", unknownCommand(args[1]))
				return exitBadInput
			}
			return c.run(e, []string{"-help"})
		}
		usage(e.stdout)
		return exitOK
	case "-version", "--version":
		args[0] = "version"
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "roomspec: %v\n", unknownCommand(args[0]))
		return exitBadInput
	}
	return c.run(e, args[1:])
}

// unknownCommand is the error of a command roomspec does not have, with
// the nearest it has.
func unknownCommand(name string) error {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown command %q%s (commands: %s; roomspec help lists them)", name, didYouMean(name, names), strings.Join(names, ", "))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: roomspec COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'roomspec help COMMAND' (or 'roomspec COMMAND -help') for a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 clean, 1 violations found, 2 bad input or usage, 3 stopped early (bound or interrupt).")
}

// onSignal runs cleanup and exits (130 after SIGINT, 143 after SIGTERM)
// when roomspec is interrupted or terminated, until stop is called: so
// that child processes die with roomspec.
func onSignal(cleanup func()) (stop func()) {
	c := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-c:
			cleanup()
			fmt.Fprintf(os.Stderr, "roomspec: %v: stopped\n", s)
			code := 130
			if s == syscall.SIGTERM {
				code = 143
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0 && !strings.EqualFold(os.Getenv("TERM"), "dumb")
}
