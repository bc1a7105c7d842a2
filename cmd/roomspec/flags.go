package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/internal/suggest"
	"github.com/roomspec/roomspec/traces/judge"
)

// flagSet is a subcommand's flag set; its -help text goes to stdout and
// names the command, its arguments and what it does. Flags may come
// before, between or after the positional arguments ("--" ends the
// flags).
type flagSet struct {
	*flag.FlagSet
	env            *env
	name           string
	args, describe string
	positional     []string
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
// flag (on stderr, one line in the style of every roomspec error, and
// where to find the flags).
func (fs *flagSet) parse(args []string) (code int, ok bool) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {} // printed below, to the right stream
	fs.SetOutput(io.Discard)
	err := fs.parseInterleaved(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		fs.printUsage(fs.env.stdout)
		return exitOK, false
	default:
		fmt.Fprintf(fs.env.stderr, "roomspec %s: %s\nrun 'roomspec help %s' for its flags\n", fs.name, fs.flagError(err), fs.name)
		return exitBadInput, false
	}
}

// flagErr matches the flag package's errors: a bad value, an unknown flag.
var (
	badValue    = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for flag (-\S+): (.*)$`)
	unknownFlag = regexp.MustCompile(`^flag provided but not defined: -+(\S+)$`)
)

// flagError says err as every roomspec error says a bad value
// (-FLAG "VALUE": what is wrong), and an unknown flag with the nearest.
func (fs *flagSet) flagError(err error) string {
	msg := err.Error()
	if m := badValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s %s: %s", m[2], m[1], m[3])
	}
	if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		near := ""
		if n := suggest.Nearest(m[1], names); n != "" {
			near = " (did you mean -" + n + "?)"
		}
		return fmt.Sprintf("unknown flag -%s%s", m[1], near)
	}
	return msg
}

// parseInterleaved parses the flags wherever they are among args and
// keeps the rest, in order, as the positional arguments.
func (fs *flagSet) parseInterleaved(args []string) error {
	fs.positional = nil
	for {
		n := len(args)
		if err := fs.FlagSet.Parse(args); err != nil {
			return err
		}
		rest := fs.FlagSet.Args()
		if used := n - len(rest); used > 0 && args[used-1] == "--" {
			fs.positional = append(fs.positional, rest...)
			return nil
		}
		i := 0
		for i < len(rest) && (rest[i] == "-" || !strings.HasPrefix(rest[i], "-")) {
			i++
		}
		fs.positional = append(fs.positional, rest[:i]...)
		if i == len(rest) {
			return nil
		}
		args = rest[i:]
	}
}

// Args returns the positional arguments.
func (fs *flagSet) Args() []string { return fs.positional }

// NArg returns the number of positional arguments.
func (fs *flagSet) NArg() int { return len(fs.positional) }

// Arg returns the i-th positional argument, or "".
func (fs *flagSet) Arg(i int) string {
	if i < 0 || i >= len(fs.positional) {
		return ""
	}
	return fs.positional[i]
}

// errNotPositive is what a count or duration flag says of a value <= 0.
var errNotPositive = errors.New("must be positive")

// positiveInt is an int flag that refuses values <= 0; its default may
// be 0, meaning "not given".
type positiveInt int

func (v *positiveInt) String() string { return strconv.Itoa(int(*v)) }

func (v *positiveInt) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return errors.New("not an integer")
	}
	if n <= 0 {
		return errNotPositive
	}
	*v = positiveInt(n)
	return nil
}

// PositiveInt defines an int flag whose values must be > 0.
func (fs *flagSet) PositiveInt(name string, value int, usage string) *int {
	p := new(int)
	*p = value
	fs.Var((*positiveInt)(p), name, usage)
	return p
}

// positiveDuration is a duration flag that refuses values <= 0.
type positiveDuration time.Duration

func (v *positiveDuration) String() string { return time.Duration(*v).String() }

func (v *positiveDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration (e.g. 2s, 500ms, 5m)")
	}
	if d <= 0 {
		return errNotPositive
	}
	*v = positiveDuration(d)
	return nil
}

// PositiveDuration defines a duration flag whose values must be > 0.
func (fs *flagSet) PositiveDuration(name string, value time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	*p = value
	fs.Var((*positiveDuration)(p), name, usage)
	return p
}

// nonNegativeDuration is a duration flag that refuses values < 0.
type nonNegativeDuration time.Duration

func (v *nonNegativeDuration) String() string { return time.Duration(*v).String() }

func (v *nonNegativeDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration (e.g. 2s, 500ms, 5m)")
	}
	if d < 0 {
		return errors.New("must not be negative")
	}
	*v = nonNegativeDuration(d)
	return nil
}

// judgeFlags are the flags of the commands that judge rooms (replay and
// watch; test -captures shares -skew): one definition, one meaning and
// one default each.
type judgeFlags struct {
	variant, log, logEndpoint *string
	sglang                    *string
	sglangEnv                 envList
	deadline, idle            *time.Duration
	skew                      *time.Duration
	maxHidden, maxStates      *int
	ports                     portList
}

// skewFlag defines -skew: 0 keeps the capture's order across connections
// (and the log), a negative value is an error.
func skewFlag(fs *flagSet) *time.Duration {
	p := new(time.Duration)
	*p = judge.DefaultSkew
	fs.Var((*nonNegativeDuration)(p), "skew", "how far apart observations of different connections (or the log) may be and still have happened in the other order (0: keep the capture's order)")
	return p
}

// skewOption is the -skew flag's value as the judge's Options.Skew,
// whose zero is the default: 0 (keep the capture's order) is negative
// there.
func skewOption(skew time.Duration) time.Duration {
	if skew == 0 {
		return -1
	}
	return skew
}

func addJudgeFlags(fs *flagSet) *judgeFlags {
	f := &judgeFlags{
		variant:     fs.String("variant", "", "bundled spec `variant` rooms are judged against (see roomspec check -list; default: the one -sglang calls for, else "+defaultVariant+", said to be assumed)"),
		sglang:      fs.String("sglang", "", "judge against the configuration the SGLang code at `SOURCE` calls for (as -impl sglang: of roomspec test: a checkout, its python/ folder, a site-packages folder, or GITDIR@COMMIT): its lifecycle PRs (the expectation table), checked by the harness's probe"),
		log:         fs.String("log", "", "prefill event log (JSON lines, see traces/eventlog)"),
		logEndpoint: fs.String("log-endpoint", "", "the prefill `ADDR:PORT` (decode's destination) whose rooms the log belongs to (default: the first one seen)"),
		deadline:    fs.PositiveDuration("deadline", 300*time.Second, "how long after its abort a room must be released"),
		idle:        fs.PositiveDuration("idle", 0, "judge and forget a room unobserved for this long (default twice -deadline)"),
		skew:        skewFlag(fs),
		maxHidden:   fs.PositiveInt("max-unseen", 24, "search bound: unseen spec steps between two observations of a room"),
		maxStates:   fs.PositiveInt("max-states", 50000, "search bound: states one search visits"),
	}
	fs.Var(&f.ports, "port", "treat TCP `port` as ZeroMQ even without a captured greeting (repeatable)")
	fs.Var(&f.sglangEnv, "sglang-env", sglangEnvHelp)
	return f
}

// load returns the configuration rooms are judged against (chooseVariant:
// -sglang, -variant or the default) and the options they are judged
// with, or an error that names the flag at fault. warn is told the
// SGLang source's warnings.
func (f *judgeFlags) load(ctx context.Context, warn func(string)) (*variantChoice, judge.Options, error) {
	if *f.sglang == "" && len(f.sglangEnv) > 0 {
		return nil, judge.Options{}, errors.New("-sglang-env is the environment of the code -sglang names: give -sglang SOURCE")
	}
	ch, err := chooseVariant(ctx, *f.sglang, sglang.Env(f.sglangEnv), *f.variant, *f.variant != "", warn)
	if err != nil {
		return nil, judge.Options{}, err
	}
	opt := judge.Options{Deadline: *f.deadline, Log: *f.log != "", Skew: skewOption(*f.skew), Idle: *f.idle,
		MaxHidden: *f.maxHidden, MaxStates: *f.maxStates}
	if *f.logEndpoint != "" {
		if opt.LogEndpoint, err = netip.ParseAddrPort(*f.logEndpoint); err != nil {
			return nil, opt, fmt.Errorf("-log-endpoint: %v", err)
		}
	}
	return ch, opt, nil
}
