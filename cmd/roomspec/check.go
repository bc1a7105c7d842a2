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

func runCheck(e *env, args []string) int {
	fs := newFlagSet(e, "check", "[MODULE.tla]",
		"Explores every reachable state of MODULE.tla under the configuration MODULE.cfg\n"+
			"(or -config FILE), checking invariants, deadlock and temporal properties as TLC does.\n\n"+
			"Without MODULE.tla it checks the bundled room-lifecycle spec (Room.tla) under every\n"+
			"bundled variant (or -variant NAME) and prints the verdict table, variant x property,\n"+
			"then every counterexample as a step table. Checking goes on after a violation.")
	config := fs.String("config", "", "TLC configuration `file` (default: MODULE.cfg beside the module)")
	format := fs.String("format", "text", "output `format`: text or json")
	workers := fs.PositiveInt("workers", 0, "`N` goroutines computing successors (default: one per CPU)")
	variant := fs.String("variant", "", "check the bundled spec under this variant only (see -list)")
	list := fs.Bool("list", false, "list the bundled variants and exit")
	interpret := fs.Bool("interpret", false, "bundled spec: compute states with the interpreter, not the compiled model")
	htmlDir := fs.String("html", "", "bundled spec: write each counterexample as a sequence diagram (HTML) into `DIR`, with an index.html of them all")
	itfDir := fs.String("itf", "", "write every counterexample as an ITF trace (with loop for a lasso) into `DIR`")
	matchFile := fs.String("match-itf", "", "instead of checking, match the ITF trace in `FILE` (roomspec's, Apalache's or Quint's) against the spec: exit 0 if it is a behaviour of the spec, 1 if a state has no match")
	maxStates := fs.PositiveInt("max-states", 0, "stop after `N` distinct states (exit status 3; default: no bound)")
	maxDepth := fs.PositiveInt("max-depth", 0, "do not expand states at depth `N` or more (exit status 3; default: no bound)")
	maxMemory := fs.PositiveInt("max-memory", int(defaultMaxMemory()), "stop when the heap exceeds `MiB` (exit status 3; default: a quarter of physical memory)")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	bounds := check.Options{MaxStates: int64(*maxStates), MaxDepth: *maxDepth}
	if *maxMemory > 0 {
		bounds.MaxMemory = uint64(*maxMemory) << 20
		// Collect harder as the heap nears the budget, so that garbage
		// does not count against it.
		debug.SetMemoryLimit(int64(bounds.MaxMemory) / 10 * 9)
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(e.stderr, "roomspec check: -format must be text or json, not %q\n", *format)
		return exitBadInput
	}
	// Exploring states allocates fast and keeps a large, pointer-rich heap
	// (the states of a level); collecting at the default 100% growth
	// spends more time marking than checking. The heap is bounded by
	// -max-memory instead.
	debug.SetGCPercent(gcPercent)
	if *list {
		for _, v := range spec.Variants() {
			fmt.Fprintln(e.stdout, v)
		}
		return exitOK
	}
	if fs.NArg() == 0 {
		if *matchFile != "" {
			fmt.Fprintln(e.stderr, "roomspec check: -match-itf needs a module")
			return exitBadInput
		}
		return runBundled(e, *variant, *format, *workers, *interpret, *htmlDir, *itfDir)
	}
	if *htmlDir != "" {
		fmt.Fprintln(e.stderr, "roomspec check: -html draws counterexamples of the bundled spec (Room.tla), whose actions and messages it knows; not of another module")
		return exitBadInput
	}
	if *variant != "" {
		fmt.Fprintln(e.stderr, "roomspec check: -variant applies to the bundled spec; use -config with a module")
		return exitBadInput
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitBadInput
	}
	module := fs.Arg(0)
	if *config == "" {
		*config = strings.TrimSuffix(module, ".tla") + ".cfg"
	}
	run := checkRun{module: module, config: *config, workers: *workers, stderr: e.stderr, bounds: bounds, matchITF: *matchFile, stdout: e.stdout}
	// SIGINT or SIGTERM stops the search; what was explored is reported.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := run.do(ctx)
	if run.matched {
		return exitOK
	}
	if run.matchErr != nil {
		fmt.Fprintf(e.stdout, "Error: %v\n", run.matchErr)
		return exitViolation
	}
	if *itfDir != "" && len(r.Trace) > 0 {
		desc := fmt.Sprintf("roomspec check: %s %s", r.Outcome, r.Violated)
		path, err := writeITFTrace(*itfDir, itfName(module, r), filepath.Base(module), desc, run.vars, r.Trace, r.LoopStart)
		if err != nil {
			fmt.Fprintf(e.stderr, "roomspec check: -itf: %v\n", err)
			return exitBadInput
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", path)
	}
	if *format == "json" {
		writeCheckJSON(e.stdout, &run, r)
	} else {
		writeCheckText(e.stdout, &run, r)
	}
	switch {
	case r.Outcome == check.Failure:
		if *format == "json" {
			fmt.Fprintf(e.stderr, "roomspec check: %v\n", r.Err)
		}
		return exitBadInput
	case r.Outcome == check.Incomplete:
		return exitIncomplete
	case run.cause != nil:
		return exitBadInput
	case r.Outcome != check.OK:
		return exitViolation
	}
	return exitOK
}

// runBundled checks the embedded Room.tla and prints the verdict table.
func runBundled(e *env, variant, format string, workers int, interpret bool, htmlDir, itfDir string) int {
	variants := spec.Variants()
	if variant != "" {
		variants = []string{variant}
	}
	results, err := checkBundled(variants, workers, interpret, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec check: %v\n", err)
		return exitBadInput
	}
	if htmlDir != "" {
		if err := writeCheckHTML(htmlDir, results); err != nil {
			fmt.Fprintf(e.stderr, "roomspec check: %v\n", err)
			return exitBadInput
		}
	}
	if itfDir != "" {
		if err := writeBundledITF(e.stderr, itfDir, results); err != nil {
			fmt.Fprintf(e.stderr, "roomspec check: -itf: %v\n", err)
			return exitBadInput
		}
	}
	if format == "json" {
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
	// cause is gen's located explanation of a violation found.
	cause   error
	vars    []string
	elapsed time.Duration
}

// gcPercent is the garbage collector's target heap growth during a check.
const gcPercent = 400

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
	fail := func(err error) *check.Result {
		return &check.Result{Outcome: check.Failure, Err: err, LoopStart: -1}
	}
	dir, base := filepath.Split(cr.module)
	if dir == "" {
		dir = "."
	}
	if _, err := os.Stat(cr.module); err != nil {
		return fail(err)
	}
	mods, err := tla.Load(os.DirFS(dir), strings.TrimSuffix(base, ".tla"))
	if err != nil {
		return fail(err)
	}
	src, err := os.ReadFile(cr.config)
	if err != nil {
		return fail(err)
	}
	conf, err := cfg.Parse(filepath.Base(cr.config), src)
	if err != nil {
		return fail(err)
	}
	if err := conf.Validate(); err != nil {
		return fail(err)
	}
	var genErr error
	if modSrc, err := os.ReadFile(cr.module); err == nil {
		genErr = genAnalysis(mods, modSrc, conf)
	}
	m, err := check.Build(mods, conf)
	if err != nil {
		return fail(err)
	}
	cr.vars = m.Spec.Vars
	if cr.matchITF != "" {
		// check.Check would check the assumptions; matching does not call it.
		if err := m.Spec.CheckAssumptions(); err != nil {
			return fail(err)
		}
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
	r := check.Check(ctx, m, check.Options{
		Workers:   cr.workers,
		MaxStates: cr.bounds.MaxStates,
		MaxDepth:  cr.bounds.MaxDepth,
		MaxMemory: cr.bounds.MaxMemory,
		Progress: func(p check.Progress) {
			if time.Since(last) > 5*time.Second {
				last = time.Now()
				fmt.Fprintf(cr.stderr, "progress: depth %d, %d distinct states, %d generated, %d on queue\n",
					p.Depth, p.Distinct, p.Generated, p.Queue)
			}
		},
	})
	cr.elapsed = time.Since(start)
	if genErr != nil {
		// gen located what went wrong at the action or expression: report
		// it as the cause of an error or a violation (the model check's
		// own finding follows); a spec that checks clean is only warned.
		switch r.Outcome {
		case check.OK, check.Incomplete:
			fmt.Fprintf(cr.stderr, "warning: gen, which compiles each action below Next as a complete step, would reject the spec (the model check found no error): %v\n", genErr)
		case check.Failure:
			r.Err = fmt.Errorf("%w\n(the model check stopped with: %v)", genErr, r.Err)
		default:
			cr.cause = genErr
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(cr.stderr, "warning: %s\n", w)
	}
	return r
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
	Cause           string     `json:"cause,omitempty"`
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
		jr.Error = r.Err.Error()
	}
	if cr.cause != nil {
		jr.Cause = cr.cause.Error()
	}
	b, _ := json.Marshal(jr)
	fmt.Fprintf(w, "%s\n", b)
}

// writeCheckText prints the result the way TLC does.
func writeCheckText(w io.Writer, cr *checkRun, r *check.Result) {
	switch r.Outcome {
	case check.Failure:
		var te *tla.Error
		if errors.As(r.Err, &te) && te.File != "" && !filepath.IsAbs(te.File) && !strings.Contains(te.File, "/") {
			// Name files as the user wrote them, relative to the module's folder.
			te.File = filepath.Join(filepath.Dir(cr.module), te.File)
		}
		fmt.Fprintf(w, "Error: %v\n", r.Err)
		return
	}
	if cr.cause != nil {
		fmt.Fprintf(w, "Error: %v\n", cr.cause)
	}
	switch r.Outcome {
	case check.Invariant:
		fmt.Fprintf(w, "Error: Invariant %s is violated.\n", r.Violated)
	case check.Deadlock:
		fmt.Fprintln(w, "Error: Deadlock reached.")
	case check.Violation:
		if r.ActionProperty {
			// TLC's words for a step that a [][A]_v property forbids.
			fmt.Fprintf(w, "Error: Action property %s is violated.\n", r.Violated)
		} else {
			fmt.Fprintf(w, "Error: Temporal properties were violated: %s.\n", r.Violated)
		}
	case check.Postcondition:
		fmt.Fprintf(w, "Error: Postcondition %s is false.\n", r.Violated)
	}
	if len(r.Trace) > 0 {
		fmt.Fprintln(w, "Error: The behavior up to this point is:")
		for i, st := range r.Trace {
			label := "<Initial predicate>"
			if st.Action != nil {
				label = "<" + st.Action.String() + ">"
			}
			fmt.Fprintf(w, "State %d: %s\n", i+1, label)
			for j, v := range cr.vars {
				fmt.Fprintf(w, "/\\ %s = %s\n", v, value.Format(st.State[j]))
			}
			fmt.Fprintln(w)
		}
		if r.LoopStart >= 0 {
			fmt.Fprintf(w, "Back to state %d.\n\n", r.LoopStart+1)
		}
	}
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
