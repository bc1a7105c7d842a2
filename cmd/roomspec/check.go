package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/value"
)

func init() {
	register(&command{
		name:    "check",
		summary: "model-check a TLA+ spec against its TLC configuration",
		run:     runCheck,
	})
}

// checkFlags are check's flags, parsed.
type checkFlags struct {
	config, format, variant, htmlDir, itfDir, matchITF string
	workers                                            int
	list, interpret                                    bool
	bounds                                             check.Options // MaxStates, MaxDepth, MaxMemory
}

func runCheck(e *env, args []string) int {
	fl, fs, code, ok := parseCheckFlags(e, args)
	if !ok {
		return code
	}
	if code, ok := fl.validate(e, fs); !ok {
		return code
	}
	// The heap is bounded by -max-memory rather than by the collector's
	// default growth (see check.GCPercent).
	debug.SetGCPercent(check.GCPercent)
	switch {
	case fl.list:
		// One line each: the name, then which SGLang commits or code it
		// models and how (its configuration's header).
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		for _, v := range spec.Variants() {
			d, _ := spec.Describe(v)
			fmt.Fprintf(tw, "%s\t%s\n", v, d)
		}
		tw.Flush()
		return exitOK
	case fs.NArg() == 0:
		return runBundled(e, fl)
	}
	return runModule(e, fl, fs.Arg(0))
}

// parseCheckFlags reads check's flags; ok is false when the command must
// stop (with code).
func parseCheckFlags(e *env, args []string) (_ *checkFlags, _ *flagSet, code int, ok bool) {
	fs := newFlagSet(e, "check", "[MODULE.tla]",
		"Explores every reachable state of MODULE.tla under the configuration MODULE.cfg\n"+
			"(or -config FILE), checking invariants, deadlock and temporal properties as TLC does.\n\n"+
			"Without MODULE.tla it checks the bundled room-lifecycle spec (Room.tla) under every\n"+
			"bundled variant (or -variant NAME) and prints the verdict table, variant x property,\n"+
			"then every counterexample as a step table. Checking goes on after a violation.")
	fl := &checkFlags{}
	fs.StringVar(&fl.config, "config", "", "TLC configuration `file` (default: MODULE.cfg beside the module)")
	fs.StringVar(&fl.format, "format", "text", "output `format`: text or json")
	workers := fs.PositiveInt("workers", 0, "`N` goroutines computing successors (default: one per CPU)")
	fs.StringVar(&fl.variant, "variant", "", "check the bundled spec under this variant only (see -list)")
	fs.BoolVar(&fl.list, "list", false, "list the bundled variants and exit")
	fs.BoolVar(&fl.interpret, "interpret", false, "bundled spec: compute states with the interpreter, not the compiled model")
	fs.StringVar(&fl.htmlDir, "html", "", "bundled spec: write each counterexample as a sequence diagram (HTML) into `DIR`, with an index.html of them all")
	fs.StringVar(&fl.itfDir, "itf", "", "write every counterexample as an ITF trace (with loop for a lasso) into `DIR`")
	fs.StringVar(&fl.matchITF, "match-itf", "", "instead of checking, match the ITF trace in `FILE` (roomspec's, Apalache's or Quint's) against the spec: exit 0 if it is a behaviour of the spec, 1 if a state has no match")
	maxStates := fs.PositiveInt("max-states", 0, "stop after `N` distinct states (exit status 3; default: no bound)")
	maxDepth := fs.PositiveInt("max-depth", 0, "do not expand states at depth `N` or more (exit status 3; default: no bound)")
	maxMemory := fs.PositiveInt("max-memory", int(defaultMaxMemory()), "stop when the heap exceeds `MiB` (exit status 3; default: a quarter of physical memory)")
	if code, ok := fs.parse(args); !ok {
		return nil, nil, code, false
	}
	fl.workers = *workers
	fl.bounds = check.Options{MaxStates: int64(*maxStates), MaxDepth: *maxDepth}
	if *maxMemory > 0 {
		fl.bounds.MaxMemory = uint64(*maxMemory) << 20
		// Collect harder as the heap nears the budget, so that garbage
		// does not count against it.
		debug.SetMemoryLimit(int64(fl.bounds.MaxMemory) / 10 * 9)
	}
	return fl, fs, 0, true
}

// validate rejects flags that do not go together with the arguments.
func (fl *checkFlags) validate(e *env, fs *flagSet) (int, bool) {
	bad := func(msg string) (int, bool) {
		fmt.Fprintf(e.stderr, "roomspec check: %s\n", msg)
		return exitBadInput, false
	}
	switch {
	case fl.format != "text" && fl.format != "json":
		return bad(fmt.Sprintf("-format must be text or json, not %q", fl.format))
	case fl.list:
		return 0, true
	case checkVariant(fl.variant) != nil:
		return bad(checkVariant(fl.variant).Error())
	case fs.NArg() == 0 && fl.matchITF != "":
		return bad("-match-itf needs a module")
	case fs.NArg() == 0:
		return 0, true
	case fl.htmlDir != "":
		return bad("-html draws counterexamples of the bundled spec (Room.tla), whose actions and messages it knows; not of another module")
	case fl.variant != "":
		return bad("-variant applies to the bundled spec; use -config with a module")
	case fs.NArg() != 1:
		fs.Usage()
		return exitBadInput, false
	}
	return 0, true
}

// runModule checks one module and prints the result.
func runModule(e *env, fl *checkFlags, module string) int {
	config := fl.config
	if config == "" {
		config = strings.TrimSuffix(module, ".tla") + ".cfg"
	}
	run := checkRun{module: module, config: config, workers: fl.workers, stderr: e.stderr, bounds: fl.bounds, matchITF: fl.matchITF, stdout: e.stdout}
	// SIGINT or SIGTERM stops the search, even inside one long
	// expression; what was explored is reported. A second signal is not
	// caught: it ends roomspec at once, as it would any program.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	r := run.do(ctx)
	switch {
	case run.matched:
		return exitOK
	case run.matchErr != nil:
		fmt.Fprintf(e.stdout, "Error: %v\n", run.matchErr)
		return exitViolation
	}
	if fl.itfDir != "" && len(r.Trace) > 0 {
		desc := fmt.Sprintf("roomspec check: %s %s", r.Outcome, r.Violated)
		path, err := writeITFTrace(fl.itfDir, itfName(module, r), filepath.Base(module), desc, run.vars, r.Trace, r.LoopStart)
		if err != nil {
			fmt.Fprintf(e.stderr, "roomspec check: -itf: %v\n", err)
			return exitBadInput
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", path)
	}
	if fl.format == "json" {
		writeCheckJSON(e.stdout, &run, r)
		if r.Outcome == check.Failure {
			fmt.Fprintf(e.stderr, "roomspec check: %v\n", r.Err)
		}
	} else {
		writeCheckText(e.stdout, &run, r)
	}
	switch r.Outcome {
	case check.OK:
		return exitOK
	case check.Failure:
		return exitBadInput
	case check.Incomplete:
		return exitIncomplete
	}
	return exitViolation
}

// runBundled checks the embedded Room.tla and prints the verdict table.
func runBundled(e *env, fl *checkFlags) int {
	variants := spec.Variants()
	if fl.variant != "" {
		variants = []string{fl.variant}
	}
	results, err := checkBundled(variants, fl.workers, fl.interpret, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec check: %v\n", err)
		return exitBadInput
	}
	if fl.htmlDir != "" {
		if err := writeCheckHTML(fl.htmlDir, fl.variant, results); err != nil {
			fmt.Fprintf(e.stderr, "roomspec check: %v\n", err)
			return exitBadInput
		}
	}
	if fl.itfDir != "" {
		if err := writeBundledITF(e.stderr, fl.itfDir, results); err != nil {
			fmt.Fprintf(e.stderr, "roomspec check: -itf: %v\n", err)
			return exitBadInput
		}
	}
	if fl.format == "json" {
		writeVerdictJSON(e.stdout, results)
	} else {
		fmt.Fprintf(e.stdout, "Room.tla: %d variants checked exhaustively\n\n", len(results))
		writeVerdictTable(e.stdout, results)
		writeCounterexamples(e.stdout, results)
	}
	for _, r := range results {
		if r.res.Outcome != check.OK {
			return exitViolation
		}
	}
	return exitOK
}

// checkRun is one model to check: a module file and its configuration.
type checkRun struct {
	module, config string
	workers        int
	stderr         io.Writer
	bounds         check.Options // MaxStates, MaxDepth, MaxMemory
	// matchITF, if set, is an ITF trace to match against the model
	// instead of checking it; matched or matchErr says how it went.
	matchITF string
	matched  bool
	matchErr error
	stdout   io.Writer
	vars     []string
	elapsed  time.Duration
}

// defaultMaxMemory is a quarter of physical memory in MiB (as the JVM
// bounds TLC's heap by default), or 0 where it cannot be read.
func defaultMaxMemory() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	var kb int64
	for _, line := range strings.Split(string(data), "\n") {
		if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
			return kb / 1024 / 4
		}
	}
	return 0
}

func (cr *checkRun) do(ctx context.Context) *check.Result {
	loadStart := time.Now()
	m, stopped, err := boundedLoad(ctx, cr.load, cr.bounds.MaxMemory, check.HeapBytes)
	if stopped != "" {
		cr.elapsed = time.Since(loadStart)
		return &check.Result{Outcome: check.Incomplete, Stopped: stopped, LoopStart: -1}
	}
	if err != nil {
		return &check.Result{Outcome: check.Failure, Err: err, LoopStart: -1}
	}
	cr.vars = m.Spec.Vars
	if cr.matchITF != "" {
		if err := matchITF(cr.stdout, m, cr.matchITF); err != nil {
			cr.matchErr = err
		} else {
			cr.matched = true
		}
		return &check.Result{Outcome: check.OK, LoopStart: -1}
	}
	// TLC's Print and PrintT write to the console; ours go to stderr so
	// that stdout stays the report.
	// As TLC's, the library's Json and IOUtils read files (relative to
	// the working directory) and the environment.
	m.Spec.ReadFile, m.Spec.Environ = os.ReadFile, os.Environ
	var printMu sync.Mutex
	m.Spec.Print = func(s string) {
		printMu.Lock()
		defer printMu.Unlock()
		fmt.Fprintln(cr.stderr, s)
	}
	start := time.Now()
	last := start
	opts := cr.bounds
	opts.Workers = cr.workers
	opts.Progress = func(p check.Progress) {
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			fmt.Fprintf(cr.stderr, "progress: depth %d, %d distinct states, %d generated, %d on queue\n",
				p.Depth, p.Distinct, p.Generated, p.Queue)
		}
	}
	r := check.Check(ctx, m, opts)
	cr.elapsed = time.Since(start)
	for _, w := range r.Warnings {
		fmt.Fprintf(cr.stderr, "warning: %s\n", w)
	}
	return r
}

// boundedLoad runs load while it watches the heap and ctx: a spec too
// large for -max-memory (a module of 1.5M conjuncts takes 800 MB to
// parse), or SIGINT/SIGTERM, stops check while the spec is still being
// read, which the parser, taking no context, would not. It returns why
// it stopped ("" if load returned); the abandoned load ends with the
// process, which exits once the result is printed.
func boundedLoad(ctx context.Context, load func() (*check.Model, error), maxMemory uint64, heap func() uint64) (*check.Model, string, error) {
	type loaded struct {
		m   *check.Model
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		m, err := load()
		done <- loaded{m, err}
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case l := <-done:
			return l.m, "", l.err
		case <-ctx.Done():
			return nil, "interrupted while loading the spec", nil
		case <-tick.C:
			if maxMemory > 0 && heap() > maxMemory {
				return nil, fmt.Sprintf("-max-memory %d MiB reached while loading the spec", maxMemory>>20), nil
			}
		}
	}
}

// load reads the module (and those it uses) and its configuration, and
// builds the model: every name resolved, every error of the spec found,
// before a state is explored.
func (cr *checkRun) load() (*check.Model, error) {
	dir, base := filepath.Split(cr.module)
	if dir == "" {
		dir = "."
	}
	if _, err := os.Stat(cr.module); err != nil {
		return nil, err
	}
	mods, err := tla.Load(os.DirFS(dir), strings.TrimSuffix(base, ".tla"))
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(cr.config)
	if err != nil {
		return nil, err
	}
	conf, err := cfg.Parse(filepath.Base(cr.config), src)
	if err != nil {
		return nil, err
	}
	if err := conf.Validate(); err != nil {
		return nil, err
	}
	return check.Build(mods, conf)
}

// writeTrace prints the behaviour of a result, if it has one, as TLC does.
func writeTrace(w io.Writer, vars []string, r *check.Result) {
	if len(r.Trace) == 0 {
		return
	}
	fmt.Fprintln(w, "Error: The behavior up to this point is:")
	for i, st := range r.Trace {
		label := "<Initial predicate>"
		if st.Action != nil {
			label = "<" + st.Action.String() + ">"
		}
		fmt.Fprintf(w, "State %d: %s\n", i+1, label)
		for j, v := range vars {
			fmt.Fprintf(w, "/\\ %s = %s\n", v, value.Format(st.State[j]))
		}
		fmt.Fprintln(w)
	}
	if r.LoopStart >= 0 {
		fmt.Fprintf(w, "Back to state %d.\n\n", r.LoopStart+1)
	}
}

// errorsOf lists the errors err stands for: each of the resolver's, one
// per line, or err itself.
func errorsOf(err error) []error {
	var list tla.ErrorList
	if errors.As(err, &list) {
		out := make([]error, len(list))
		for i, e := range list {
			out[i] = e
		}
		return out
	}
	return []error{err}
}

// jsonStep is one step of a trace in JSON output.
type jsonStep struct {
	Action string            `json:"action"`
	State  map[string]string `json:"state"`
}

type jsonResult struct {
	Module          string     `json:"module"`
	Config          string     `json:"config"`
	Result          string     `json:"result"`
	Violated        string     `json:"violated"`
	DistinctStates  int64      `json:"distinctStates"`
	StatesGenerated int64      `json:"statesGenerated"`
	Depth           int        `json:"depth"`
	Trace           []jsonStep `json:"trace"`
	LoopStart       int        `json:"loopStart"`
	Error           string     `json:"error"`
	Stopped         string     `json:"stopped,omitempty"`
	Queue           int        `json:"queue"`
}

func traceJSON(vars []string, trace []check.Step) []jsonStep {
	out := make([]jsonStep, 0, len(trace))
	for _, st := range trace {
		js := jsonStep{Action: st.Action.String(), State: map[string]string{}}
		for i, v := range vars {
			js.State[v] = value.Format(st.State[i])
		}
		out = append(out, js)
	}
	return out
}

func writeCheckJSON(w io.Writer, cr *checkRun, r *check.Result) {
	jr := jsonResult{
		Module: cr.module, Config: cr.config, Result: string(r.Outcome), Violated: r.Violated,
		DistinctStates: r.Distinct, StatesGenerated: r.Generated, Depth: r.Depth,
		Trace: traceJSON(cr.vars, r.Trace), LoopStart: r.LoopStart,
		Stopped: r.Stopped, Queue: r.Queue,
	}
	if r.Err != nil {
		var lines []string
		for _, err := range errorsOf(r.Err) {
			lines = append(lines, err.Error())
		}
		jr.Error = strings.Join(lines, "\n")
	}
	b, _ := json.Marshal(jr)
	fmt.Fprintf(w, "%s\n", b)
}

// writeCheckText prints the result the way TLC does.
func writeCheckText(w io.Writer, cr *checkRun, r *check.Result) {
	prefix := "Error: "
	if r.Outcome == check.Failure && len(r.Trace) == 0 {
		// Input that cannot be checked (a file missing, a parse or
		// analysis error): on stderr, as every roomspec error; an error
		// met while exploring comes with its behaviour, as TLC's does.
		w, prefix = cr.stderr, "roomspec check: "
	}
	if r.Outcome == check.Failure {
		for _, err := range errorsOf(r.Err) {
			var te *tla.Error
			if errors.As(err, &te) && te.File != "" && !filepath.IsAbs(te.File) && !strings.Contains(te.File, "/") {
				// Name files as the user wrote them, relative to the module's folder.
				te.File = filepath.Join(filepath.Dir(cr.module), te.File)
			}
			fmt.Fprintf(w, "%s%v\n", prefix, err)
		}
		writeTrace(w, cr.vars, r)
		return
	}
	switch r.Outcome {
	case check.Invariant:
		fmt.Fprintf(w, "Error: Invariant %s is violated.\n", r.Violated)
	case check.Deadlock:
		fmt.Fprintln(w, "Error: Deadlock reached.")
	case check.Violation:
		// TLC's words for each part of a property.
		switch r.Part {
		case check.PartStep:
			fmt.Fprintf(w, "Error: Action property %s is violated.\n", r.Violated)
		case check.PartAlways:
			fmt.Fprintf(w, "Error: Invariant %s is violated.\n", r.Violated)
		case check.PartInitially:
			fmt.Fprintf(w, "Error: Property %s is violated by the initial state:\n", r.Violated)
		default:
			fmt.Fprintf(w, "Error: Temporal properties were violated: %s.\n", r.Violated)
		}
	case check.Postcondition:
		fmt.Fprintf(w, "Error: Postcondition %s is false.\n", r.Violated)
	}
	writeTrace(w, cr.vars, r)
	switch {
	case r.Outcome == check.OK:
		fmt.Fprintln(w, "Model checking completed. No error has been found.")
	case r.Stopped != "":
		fmt.Fprintf(w, "Model checking stopped before it was complete: %s. No error has been found in the states explored; temporal properties were not checked.\n", r.Stopped)
	}
	fmt.Fprintf(w, "%d states generated, %d distinct states found, %d states left on queue.\n", r.Generated, r.Distinct, r.Queue)
	fmt.Fprintf(w, "The depth of the complete state graph search is %d.\n", r.Depth)
	fmt.Fprintf(w, "Finished in %s.\n", cr.elapsed.Round(time.Millisecond))
}
