// Command tlc-side-by-side runs roomspec's model checker and TLC on the
// models of ../shared (tla-examples and tla-corpus, as their manifests list
// them), one run at a time, alternating which checker goes first, for N
// rounds, and writes a table of each checker's verdict, distinct states,
// wall time, CPU time and peak memory (median over the rounds).
//
//	go run ./cmd/tlc-side-by-side -tlc ~/.cache/roomspec-tlc/tla2tools.jar -rounds 3 -out /tmp/side
//
// TLC comes from ../shared/tools/build-tlc.sh (which also leaves
// CommunityModules.jar beside tla2tools.jar: it is used when there). Models
// that EXTEND TLAPS or the proof libraries need those modules on TLC's
// library path: -lib DIR[:DIR...] (the library/ folder of a tlaplus/tlapm
// snapshot; and a folder with the theorem modules the CommunityModules jar
// of tla2tools' build predates: FunctionTheorems, which bcastByz extends,
// and the Functions.tla it needs, from a tlaplus/CommunityModules
// snapshot. Not that snapshot's whole modules/ folder: its newer
// UndirectedGraphs.tla would take the place of the jar's, and YoYo then
// fails in TLC without the jar's Java implementation of it).
// Nothing is written beside the models: TLC runs in a scratch directory
// with -noGenerateSpecTE and its states there.
//
// It writes summary.md (the table, with the machine and its load), runs.csv
// (every run) and summary.json into -out, and the table on stdout; progress
// goes to stderr. Exit status: 0 when both checkers gave the same verdict
// (and, on success, the same distinct states) on every model, 1 when one
// differs or a run failed or timed out, 2 on bad usage.
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// entry is a model of a shared manifest.
type entry struct {
	Set    string `json:"-"` // tla-examples or tla-corpus
	Dir    string `json:"dir"`
	Module string `json:"module"`
	Config string `json:"config"`
}

// measured is one run of one checker on one model.
type measured struct {
	Model    string  `json:"model"`
	Checker  string  `json:"checker"`
	Round    int     `json:"round"`
	Verdict  string  `json:"verdict"`
	Distinct int64   `json:"distinct"` // -1: not reported
	Wall     float64 `json:"wallSeconds"`
	CPU      float64 `json:"cpuSeconds"`
	MaxRSS   int64   `json:"maxRSSKiB"`
	Detail   string  `json:"detail,omitempty"`
}

// options are the command's flags.
type options struct {
	tlc, community, lib, java string
	roomspec, shared, out     string
	rounds, workers           int
	only                      *regexp.Regexp
	timeout                   time.Duration
}

func run(args []string, stdout, stderr io.Writer) int {
	o, code, ok := parseFlags(args, stderr)
	if !ok {
		return code
	}
	models, err := readManifests(o.shared, o.only)
	if err != nil {
		fmt.Fprintf(stderr, "tlc-side-by-side: %v\n", err)
		return 2
	}
	scratch, err := os.MkdirTemp("", "tlc-side-by-side-")
	if err != nil {
		fmt.Fprintf(stderr, "tlc-side-by-side: %v\n", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	if o.roomspec == "" {
		o.roomspec = filepath.Join(scratch, "roomspec")
		build := exec.Command("go", "build", "-o", o.roomspec, "./cmd/roomspec")
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(stderr, "tlc-side-by-side: building roomspec (run from the checkout's root, or give -roomspec): %v\n", err)
			return 2
		}
	}
	loadBefore := loadAvg()
	started := time.Now()
	runs := o.checkAll(models, scratch, stderr)
	rows := summarize(models, runs)
	head := header(o, started, loadBefore, loadAvg())
	var md bytes.Buffer
	writeMarkdown(&md, head, rows)
	stdout.Write(md.Bytes())
	if o.out != "" {
		if err := writeFiles(o.out, md.Bytes(), head, rows, runs); err != nil {
			fmt.Fprintf(stderr, "tlc-side-by-side: %v\n", err)
			return 2
		}
	}
	for _, r := range rows {
		if r.Differs || !finished(r.Roomspec.Verdict) || !finished(r.TLC.Verdict) {
			return 1
		}
	}
	return 0
}

// parseFlags reads the command line; ok false ends the command with code.
func parseFlags(args []string, stderr io.Writer) (o options, code int, ok bool) {
	fs := flag.NewFlagSet("tlc-side-by-side", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.tlc, "tlc", "", "TLC's `tla2tools.jar` (required; built by ../shared/tools/build-tlc.sh)")
	fs.StringVar(&o.community, "community", "", "CommunityModules `jar` for TLC (default: CommunityModules.jar beside -tlc, if there)")
	fs.StringVar(&o.lib, "lib", "", "`DIRS` of library modules for TLC, separated by ':' (tlapm's library/ for TLAPS and the proof libraries; a folder with CommunityModules' FunctionTheorems.tla and Functions.tla, which its jar lacks)")
	fs.StringVar(&o.java, "java", "java", "the `java` command")
	fs.StringVar(&o.roomspec, "roomspec", "", "roomspec `binary` (default: built from this checkout into a scratch directory)")
	fs.StringVar(&o.shared, "shared", "../shared", "the shared `DIR` holding tla-examples and tla-corpus")
	fs.StringVar(&o.out, "out", "", "`DIR` to write summary.md, summary.json and runs.csv into (default: stdout only)")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds: each model is checked N times by each checker")
	fs.IntVar(&o.workers, "workers", 2, "workers of both checkers")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "bound on one run")
	only := fs.String("models", "", "check only the models whose directory matches this `regexp`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tlc-side-by-side -tlc tla2tools.jar [flags]")
		fmt.Fprintln(stderr, "\nRuns roomspec check and TLC on the shared models, one run at a time, alternating,")
		fmt.Fprintln(stderr, "and writes a table of verdicts, distinct states, wall, CPU and peak RSS.")
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, 0, false
		}
		return o, 2, false
	}
	if o.tlc == "" || fs.NArg() > 0 || o.rounds < 1 || o.workers < 1 {
		fs.Usage()
		return o, 2, false
	}
	var err error
	if *only != "" {
		if o.only, err = regexp.Compile(*only); err != nil {
			fmt.Fprintf(stderr, "tlc-side-by-side: -models: %v\n", err)
			return o, 2, false
		}
	}
	if o.community == "" {
		if c := filepath.Join(filepath.Dir(o.tlc), "CommunityModules.jar"); exists(c) {
			o.community = c
		}
	}
	if o.shared, err = filepath.Abs(o.shared); err != nil {
		fmt.Fprintf(stderr, "tlc-side-by-side: %v\n", err)
		return o, 2, false
	}
	return o, 0, true
}

// checkAll checks every model with both checkers, round after round,
// alternating which goes first.
func (o *options) checkAll(models []entry, scratch string, stderr io.Writer) []measured {
	var runs []measured
	for round := 1; round <= o.rounds; round++ {
		for i, m := range models {
			order := []string{"roomspec", "tlc"}
			if (round+i)%2 == 0 {
				order = []string{"tlc", "roomspec"}
			}
			for _, checker := range order {
				r := o.check(checker, m, scratch)
				r.Round = round
				runs = append(runs, r)
				fmt.Fprintf(stderr, "round %d/%d %-60s %-8s %-12s %10s states %7.1fs wall %7.1fs cpu %7d MiB (load %s)\n",
					round, o.rounds, m.Set+"/"+m.Dir, checker, r.Verdict, states(r.Distinct), r.Wall, r.CPU, r.MaxRSS>>10, loadAvg())
			}
		}
	}
	return runs
}

// readManifests lists the models of the shared sets.
func readManifests(shared string, only *regexp.Regexp) ([]entry, error) {
	var all []entry
	for _, set := range []string{"tla-examples", "tla-corpus"} {
		data, err := os.ReadFile(filepath.Join(shared, set, "manifest.json"))
		if err != nil {
			return nil, fmt.Errorf("reading the manifest of %s (is -shared right?): %w", set, err)
		}
		var es []entry
		if err := json.Unmarshal(data, &es); err != nil {
			return nil, fmt.Errorf("%s/manifest.json: %w", set, err)
		}
		for _, e := range es {
			e.Set = filepath.Join(shared, set)
			if only == nil || only.MatchString(e.Dir) {
				all = append(all, e)
			}
		}
	}
	if len(all) == 0 {
		return nil, errors.New("no model to check")
	}
	return all, nil
}

// check runs one checker on one model.
func (o *options) check(checker string, m entry, scratch string) measured {
	dir := filepath.Join(m.Set, m.Dir)
	r := measured{Model: filepath.Base(m.Set) + "/" + m.Dir, Checker: checker, Distinct: -1}
	var cmd *exec.Cmd
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	if checker == "roomspec" {
		cmd = exec.CommandContext(ctx, o.roomspec, "check", "-format", "json", "-workers", strconv.Itoa(o.workers),
			"-config", filepath.Join(dir, m.Config), filepath.Join(dir, m.Module))
		cmd.Dir = dir
	} else {
		work, err := os.MkdirTemp(scratch, "tlc-")
		if err != nil {
			r.Verdict, r.Detail = "error", err.Error()
			return r
		}
		defer os.RemoveAll(work)
		cp := o.tlc
		if o.community != "" {
			cp += string(os.PathListSeparator) + o.community
		}
		args := []string{"-XX:+UseParallelGC", "-cp", cp}
		if o.lib != "" {
			args = append(args, "-DTLA-Library="+o.lib)
		}
		args = append(args, "tlc2.TLC", "-workers", strconv.Itoa(o.workers), "-noGenerateSpecTE",
			"-metadir", filepath.Join(work, "states"), "-config", filepath.Join(dir, m.Config), filepath.Join(dir, m.Module))
		cmd = exec.CommandContext(ctx, o.java, args...)
		cmd.Dir = work
	}
	// Its own process group, killed whole on timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	// TLC writes everything to stdout; roomspec its report to stdout and
	// the spec's Print output and progress to stderr.
	out, errOut := &tail{max: 1 << 20}, &tail{max: 1 << 16}
	cmd.Stdout, cmd.Stderr = out, errOut
	start := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(start).Seconds()
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.MaxRSS = int64(ru.Maxrss) // KiB on Linux
		}
	}
	if ctx.Err() != nil {
		r.Verdict, r.Detail = "timeout", o.timeout.String()
		return r
	}
	if checker == "roomspec" {
		r.Verdict, r.Distinct, r.Detail = roomspecVerdict(out.Bytes(), errOut.Bytes(), err)
	} else {
		r.Verdict, r.Distinct, r.Detail = tlcVerdict(out.Bytes())
	}
	return r
}

// roomspecVerdict reads the JSON report of roomspec check.
func roomspecVerdict(out, errOut []byte, runErr error) (verdict string, distinct int64, detail string) {
	var rep struct {
		Result         string `json:"result"`
		Violated       string `json:"violated"`
		DistinctStates int64  `json:"distinctStates"`
		Error          string `json:"error"`
	}
	if json.Unmarshal(out, &rep) != nil {
		return "error", -1, firstLine(errOut, runErr)
	}
	v := rep.Result
	if v == "ok" {
		v = "success"
	}
	detail = rep.Violated
	if rep.Error != "" {
		detail = rep.Error
	}
	return v, rep.DistinctStates, detail
}

// TLC's messages, as tla2tools prints them.
var (
	tlcStates    = regexp.MustCompile(`(?m)^([\d,]+) states generated, ([\d,]+) distinct states found`)
	tlcInvariant = regexp.MustCompile(`(?m)^Error: Invariant (\S+) is violated`)
	tlcAction    = regexp.MustCompile(`(?m)^Error: Action property (\S+) .*is violated`)
	// TLC says "Temporal properties were violated." or, naming the one
	// property, "Temporal property P was violated."
	tlcTemporal = regexp.MustCompile(`(?m)^Error: Temporal propert(?:ies were|y (\S+) was) violated`)
	tlcAssume   = regexp.MustCompile(`(?m)^Error: Assumption .* is false`)
	tlcError    = regexp.MustCompile(`(?m)^Error: (.*)$`)
)

// tlcVerdict reads TLC's output, in roomspec's words for the outcome.
func tlcVerdict(out []byte) (verdict string, distinct int64, detail string) {
	distinct = -1
	if m := tlcStates.FindAllSubmatch(out, -1); len(m) > 0 {
		distinct, _ = strconv.ParseInt(strings.ReplaceAll(string(m[len(m)-1][2]), ",", ""), 10, 64)
	}
	switch {
	case bytes.Contains(out, []byte("Model checking completed. No error has been found.")):
		if distinct < 0 {
			distinct = 0 // assumptions only: TLC prints no count
		}
		return "success", distinct, ""
	case tlcInvariant.Match(out):
		return "invariant", distinct, string(tlcInvariant.FindSubmatch(out)[1])
	case bytes.Contains(out, []byte("Error: Deadlock reached.")):
		return "deadlock", distinct, ""
	case tlcTemporal.Match(out):
		return "property", distinct, string(tlcTemporal.FindSubmatch(out)[1])
	case tlcAction.Match(out):
		return "property", distinct, string(tlcAction.FindSubmatch(out)[1])
	case tlcAssume.Match(out):
		return "assumption", distinct, ""
	case tlcError.Match(out):
		return "error", distinct, string(tlcError.FindSubmatch(out)[1])
	}
	return "error", distinct, firstLine(out, nil)
}

// firstLine is a short account of a run that reported nothing readable.
func firstLine(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" && err != nil {
		s = err.Error()
	}
	return s
}

// tail keeps the first max bytes written to it: a runaway child's output
// is bounded. (The report comes last, but a report that does not fit
// means a child that misbehaves.)
type tail struct {
	buf bytes.Buffer
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	if room := t.max - t.buf.Len(); room > 0 {
		t.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (t *tail) Bytes() []byte { return t.buf.Bytes() }

// row is a model's line of the table: each checker's verdict and states
// (of its first run) and medians over the rounds.
type row struct {
	Model    string     `json:"model"`
	Roomspec checkerRow `json:"roomspec"`
	TLC      checkerRow `json:"tlc"`
	// WallRatio is roomspec's median wall time over TLC's.
	WallRatio float64 `json:"wallRatio"`
	Differs   bool    `json:"differs"`
}

type checkerRow struct {
	Verdict  string  `json:"verdict"`
	Detail   string  `json:"detail,omitempty"`
	Distinct int64   `json:"distinct"`
	Wall     float64 `json:"wallSeconds"`
	CPU      float64 `json:"cpuSeconds"`
	MaxRSS   int64   `json:"maxRSSKiB"`
}

func summarize(models []entry, runs []measured) []row {
	var rows []row
	for _, m := range models {
		name := filepath.Base(m.Set) + "/" + m.Dir
		rw := row{Model: name}
		for _, c := range []struct {
			name string
			dst  *checkerRow
		}{{"roomspec", &rw.Roomspec}, {"tlc", &rw.TLC}} {
			var walls, cpus []float64
			for _, r := range runs {
				if r.Model != name || r.Checker != c.name {
					continue
				}
				if len(walls) == 0 {
					c.dst.Verdict, c.dst.Detail, c.dst.Distinct = r.Verdict, r.Detail, r.Distinct
				}
				walls, cpus = append(walls, r.Wall), append(cpus, r.CPU)
				c.dst.MaxRSS = max(c.dst.MaxRSS, r.MaxRSS)
			}
			c.dst.Wall, c.dst.CPU = median(walls), median(cpus)
		}
		if rw.TLC.Wall > 0 {
			rw.WallRatio = rw.Roomspec.Wall / rw.TLC.Wall
		}
		if finished(rw.Roomspec.Verdict) && finished(rw.TLC.Verdict) {
			rw.Differs = rw.Roomspec.Verdict != rw.TLC.Verdict ||
				rw.Roomspec.Verdict == "success" && rw.Roomspec.Distinct != rw.TLC.Distinct
		}
		rows = append(rows, rw)
	}
	return rows
}

// finished reports whether a checker gave a verdict (not an error of its
// own, nor a timeout).
func finished(verdict string) bool { return verdict != "timeout" && verdict != "error" }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// header says where and when the figures were taken.
type headerInfo struct {
	Date       string `json:"date"`
	Machine    string `json:"machine"`
	LoadBefore string `json:"loadBefore"`
	LoadAfter  string `json:"loadAfter"`
	Rounds     int    `json:"rounds"`
	Workers    int    `json:"workers"`
	TLC        string `json:"tlc"`
	Duration   string `json:"duration"`
}

func header(o options, started time.Time, before, after string) headerInfo {
	return headerInfo{
		Date:       started.UTC().Format("2006-01-02 15:04 UTC"),
		Machine:    machine(),
		LoadBefore: before,
		LoadAfter:  after,
		Rounds:     o.rounds,
		Workers:    o.workers,
		TLC:        o.tlc,
		Duration:   time.Since(started).Round(time.Second).String(),
	}
}

// machine names the CPU, the cores and the memory.
func machine() string {
	cpu := runtime.GOARCH
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(data), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %d GiB", (kb+1<<19)>>20)
		}
	}
	return fmt.Sprintf("%s, %d cores%s", cpu, runtime.NumCPU(), mem)
}

// loadAvg is the 1, 5 and 15 minute load averages.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func states(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func writeMarkdown(w io.Writer, h headerInfo, rows []row) {
	fmt.Fprintf(w, "Side by side, %s: %s; load %s before, %s after; %d round(s), -workers %d each, medians; TLC %s; took %s.\n\n",
		h.Date, h.Machine, h.LoadBefore, h.LoadAfter, h.Rounds, h.Workers, filepath.Base(h.TLC), h.Duration)
	fmt.Fprintln(w, "| model | verdict (roomspec / TLC) | distinct states (roomspec / TLC) | wall s (roomspec / TLC) | wall ratio | CPU s (roomspec / TLC) | max RSS MiB (roomspec / TLC) |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		verdict := r.Roomspec.Verdict + " / " + r.TLC.Verdict
		if r.Differs {
			verdict = "**" + verdict + "** (differs)"
		}
		fmt.Fprintf(w, "| %s | %s | %s / %s | %.1f / %.1f | %.2f | %.1f / %.1f | %d / %d |\n", r.Model, verdict,
			states(r.Roomspec.Distinct), states(r.TLC.Distinct), r.Roomspec.Wall, r.TLC.Wall, r.WallRatio,
			r.Roomspec.CPU, r.TLC.CPU, r.Roomspec.MaxRSS>>10, r.TLC.MaxRSS>>10)
	}
}

func writeFiles(dir string, md []byte, h headerInfo, rows []row, runs []measured) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), md, 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(struct {
		Header headerInfo `json:"header"`
		Rows   []row      `json:"models"`
	}{h, rows}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write([]string{"model", "checker", "round", "verdict", "distinct", "wall_s", "cpu_s", "max_rss_kib", "detail"})
	for _, r := range runs {
		cw.Write([]string{r.Model, r.Checker, strconv.Itoa(r.Round), r.Verdict, strconv.FormatInt(r.Distinct, 10),
			strconv.FormatFloat(r.Wall, 'f', 3, 64), strconv.FormatFloat(r.CPU, 'f', 3, 64), strconv.FormatInt(r.MaxRSS, 10), r.Detail})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "runs.csv"), b.Bytes(), 0o644)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
