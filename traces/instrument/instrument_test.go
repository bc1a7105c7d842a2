// Package instrument's tests run roomspec_instrument.py, the prefill event
// log's writer (Python, standard library only): its Python unit tests,
// its install with pip, its launcher, and, where ROOMSPEC_SGLANG names
// SGLang's repository, the launcher on SGLang's real prefill code at each
// commit of README's history table (through roomspec's harness): the log
// it writes lets replay judge every room as it went, and the property
// suite's results are the same with and without it.
package instrument

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/traces/eventlog"
)

const module = "roomspec_instrument.py"

// python is Debian's python3, which has python3-zmq, python3-numpy and
// python3-psutil (.ci/run installs them): what the harness runs on.
func python(t testing.TB) string {
	t.Helper()
	p := sglang.Python()
	if _, err := exec.LookPath(p); err != nil {
		t.Skipf("no python3 (%v)", err)
	}
	return p
}

// run runs cmd with a time limit and returns its standard output; its
// standard error goes into the failure message.
func run(t testing.TB, limit time.Duration, cmd *exec.Cmd) []byte {
	t.Helper()
	out, err := output(limit, cmd)
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return out
}

func output(limit time.Duration, cmd *exec.Cmd) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Dir, c.Env, c.Stdin = cmd.Dir, cmd.Env, cmd.Stdin
	c.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return append(out, stderr.Bytes()...), err
	}
	return out, nil
}

// TestPythonUnitTests runs every Python unit test of this folder
// (test_*.py).
func TestPythonUnitTests(t *testing.T) {
	cmd := exec.Command(python(t), strings.Fields("-B -m unittest discover -s . -p test_*.py -v")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	ran := regexp.MustCompile(`(?m)^Ran (\d+) tests?`).FindSubmatch(out.Bytes())
	if err != nil || ran == nil || string(ran[1]) == "0" {
		t.Fatalf("python unittest: %v\n%s", err, out.String())
	}
	t.Logf("%s Python tests passed", ran[1])
}

// TestLauncherUsage: the launcher's errors and exit statuses.
func TestLauncherUsage(t *testing.T) {
	py := python(t)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--help"}, 0, "usage: python -m roomspec_instrument"},
		{[]string{"--log", "x.jsonl"}, 2, "no COMMAND after --"},
		{[]string{"--", "true"}, 2, "no --log FILE"},
		{[]string{"--lgo", "x", "--", "true"}, 2, "unknown argument '--lgo'"},
		{[]string{"--log", filepath.Join(t.TempDir(), "x.jsonl"), "--", "/nonexistent/command"}, 127, "/nonexistent/command"},
		{[]string{"--log", filepath.Join(t.TempDir(), "x.jsonl"), "--", "sh", "-c", "exit 7"}, 7, ""},
	} {
		cmd := exec.Command(py, append([]string{module}, tc.args...)...)
		cmd.Env = append(os.Environ(), "ROOMSPEC_EVENT_LOG=")
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(string(out), tc.says) {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", tc.args, code, out, tc.code, tc.says)
		}
	}
}

// TestLauncherReachesSpawnedChildren: under the launcher (the one file,
// copied alone elsewhere and run as a script), the hook is on in
// the process it starts and in a child started with multiprocessing's
// spawn (as SGLang starts its schedulers), a sitecustomize the launcher's
// folder hides still runs in both, and a process that never imports
// SGLang writes no log.
func TestLauncherReachesSpawnedChildren(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	// A sitecustomize of the user's own, on PYTHONPATH.
	site := filepath.Join(dir, "site")
	if err := os.Mkdir(site, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site, "sitecustomize.py"), []byte("import builtins\nbuiltins.ROOMSPEC_TEST_SITECUSTOMIZE = True\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The one file, copied alone elsewhere (as an operator may install it).
	copied := filepath.Join(dir, "opt", module)
	src, err := os.ReadFile(module)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, src, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "spawn_plain.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "events.jsonl")
	cmd := exec.Command(py, copied, "--log", logPath, "--", py, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+site)
	out := run(t, time.Minute, cmd)
	var got struct {
		Parent, Child struct {
			Active                 bool `json:"active"`
			HiddenSitecustomizeRan bool `json:"hidden_sitecustomize_ran"`
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !got.Parent.Active || !got.Child.Active || !got.Parent.HiddenSitecustomizeRan || !got.Child.HiddenSitecustomizeRan {
		t.Errorf("under the launcher: %+v, want the hook on and the user's sitecustomize run in parent and spawned child", got)
	}
	if _, err := os.Stat(logPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a log written by processes without SGLang: %v", err)
	}
	// Without the launcher, nothing.
	plain := exec.Command(py, filepath.Join("testdata", "spawn_plain.py"))
	out = run(t, time.Minute, plain)
	if strings.Contains(string(out), `"active": true`) {
		t.Errorf("without the launcher: %s", out)
	}
}

// TestPipInstall installs the folder with pip (no index: only what is
// here) into a virtual environment: it installs the one module, the
// launcher runs from it (python -m and the console script), and the
// module it loads in the processes it starts is the installed one.
func TestPipInstall(t *testing.T) {
	py := python(t)
	if exec.Command(py, "-c", "import venv, setuptools, wheel").Run() != nil || exec.Command(py, "-m", "pip", "--version").Run() != nil {
		t.Skip("no venv, pip, setuptools or wheel for Debian's python3 (apt-get install python3-venv python3-pip; .ci/run does)")
	}
	dir := t.TempDir()
	// A copy of the folder: a build writes into the tree it builds.
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pyproject.toml", module} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	venv := filepath.Join(dir, "venv")
	// The system's pip, setuptools and wheel (Debian's python3-pip) install
	// and build it, with no index to fetch anything from.
	run(t, 2*time.Minute, exec.Command(py, "-m", "venv", "--system-site-packages", "--without-pip", venv))
	vpy := filepath.Join(venv, "bin", "python")
	run(t, 2*time.Minute, exec.Command(vpy, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--disable-pip-version-check", "-q", src))
	files := run(t, time.Minute, exec.Command(vpy, "-m", "pip", "show", "-f", "roomspec-instrument"))
	var installed []string
	for _, l := range strings.Split(string(files), "\n") {
		if f := strings.TrimSpace(l); strings.HasSuffix(f, ".py") {
			installed = append(installed, f)
		}
	}
	if !slices.Equal(installed, []string{module}) {
		t.Errorf("pip installed Python files %v, want just %s:\n%s", installed, module, files)
	}
	// (Elsewhere than this folder, whose roomspec_instrument.py python -c
	// would find first.)
	inDir := func(cmd *exec.Cmd) *exec.Cmd { cmd.Dir = dir; return cmd }
	where := strings.TrimSpace(string(run(t, time.Minute, inDir(exec.Command(vpy, "-c", "import roomspec_instrument; print(roomspec_instrument.__file__)")))))
	a, _ := os.ReadFile(module)
	b, _ := os.ReadFile(where)
	if !bytes.Equal(a, b) {
		t.Errorf("the installed %s differs from the source's", where)
	}
	for _, launcher := range [][]string{{vpy, "-m", "roomspec_instrument"}, {filepath.Join(venv, "bin", "roomspec-instrument")}} {
		cmd := exec.Command(launcher[0], append(launcher[1:], "--log", filepath.Join(dir, "x.jsonl"), "--",
			vpy, "-c", "import sys; m = sys.modules.get('roomspec_instrument'); print(m.active(), m.__file__)")...)
		out := strings.TrimSpace(string(run(t, time.Minute, inDir(cmd))))
		if out != "True "+where {
			t.Errorf("%v: the started process says %q, want the installed module active (True %s)", launcher, out, where)
		}
	}
}

// historyRow is a row of README's history table: a commit and the
// variant its probe picked, with the environment of the row.
type historyRow struct {
	commit, variant string
	env             []string
}

// historyTable reads the commits of README's history table (roomspec
// history's output).
func historyTable(t testing.TB) []historyRow {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := bytes.Cut(readme, []byte("COMMIT        DATE        VARIANT"))
	if !ok {
		t.Fatal("README.md: no history table (COMMIT DATE VARIANT ...)")
	}
	table, _, _ = bytes.Cut(table, []byte("```"))
	var rows []historyRow
	for _, m := range regexp.MustCompile(`(?m)^([0-9a-f]{12})  \d{4}-\d\d-\d\d  (\S+)`).FindAllSubmatch(table, -1) {
		r := historyRow{commit: string(m[1]), variant: string(m[2])}
		if strings.HasSuffix(r.variant, "-deferred") {
			// The README's command for that row.
			r.env = []string{"SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1"}
		}
		rows = append(rows, r)
	}
	if len(rows) < 10 {
		t.Fatalf("README.md's history table: %d rows", len(rows))
	}
	return rows
}

// realSGLang returns the git directory of $ROOMSPEC_SGLANG
// (GITDIR@COMMIT), or skips.
func realSGLang(t testing.TB) string {
	t.Helper()
	v := os.Getenv("ROOMSPEC_SGLANG")
	gitDir, _, ok := strings.Cut(v, "@")
	if v == "" || !ok {
		t.Skip("ROOMSPEC_SGLANG (GITDIR@COMMIT of SGLang's repository) not set: the tests on SGLang's real code are skipped")
	}
	if err := exec.Command(python(t), "-c", "import zmq, numpy, psutil").Run(); err != nil {
		t.Skip("Debian's python3 lacks python3-zmq, python3-numpy or python3-psutil (.ci/run installs them)")
	}
	return gitDir
}

// source extracts SGLang's python/ folder at commit (once per commit, in
// roomspec's cache).
func source(t testing.TB, gitDir, commit string) sglang.Source {
	t.Helper()
	cache, err := sglang.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	src, err := sglang.Resolve(context.Background(), gitDir+"@"+commit, cache)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func harnessDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "conformance", "sglang", "harness"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var (
	binOnce sync.Once
	bin     string
	binErr  error
)

// roomspec builds the CLI once.
func roomspec(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "roomspec-instrument-test")
		if err != nil {
			binErr = err
			return
		}
		bin = filepath.Join(dir, "roomspec")
		if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/roomspec").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

// TestRealSpawnedScheduler: under the launcher, a child started as SGLang
// starts its schedulers (multiprocessing, spawn) that loads SGLang's real
// modules (through the harness, whose finders serve them) has them
// instrumented, at the commit of $ROOMSPEC_SGLANG.
func TestRealSpawnedScheduler(t *testing.T) {
	gitDir := realSGLang(t)
	_, commit, _ := strings.Cut(os.Getenv("ROOMSPEC_SGLANG"), "@")
	src := source(t, gitDir, commit)
	py := python(t)
	cmd := exec.Command(py, module, "--log", filepath.Join(t.TempDir(), "events.jsonl"), "--",
		py, filepath.Join("testdata", "spawn_check.py"), harnessDir(t), src.Root)
	out := run(t, 3*time.Minute, cmd)
	var got struct {
		ParentActive bool `json:"parent_active"`
		Child        struct {
			Active  bool     `json:"active"`
			Wrapped []string `json:"wrapped"`
		}
		ExitCode int `json:"exitcode"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !got.ParentActive || !got.Child.Active || len(got.Child.Wrapped) != 3 || got.ExitCode != 0 {
		t.Errorf("spawned child on SGLang %s: %s; want the hook on and update_status, poll and pop_bootstrapped wrapped", commit, out)
	}
}

// TestRealCommits runs, at each commit of README's history table,
// SGLang's real prefill code free-running on real ZeroMQ sockets under
// tcpdump (make_scenarios.py --real: ten rooms of the real-code storm,
// aborted at different points of their lives, decode emulated) under the
// launcher, which alone writes the event log (the script does not
// instrument when the hook is on). The log must hold only the prefill's
// lines, each from rank 0 of the named host, and with it replay must give
// each aborted room the verdict the emulators saw it earn (released in
// time, or pinned past the deadline).
func TestRealCommits(t *testing.T) {
	gitDir := realSGLang(t)
	if os.Geteuid() != 0 {
		t.Skip("the real-code storm is captured with tcpdump: run as root")
	}
	if _, err := exec.LookPath("tcpdump"); err != nil {
		t.Skip("no tcpdump (.ci/run installs it)")
	}
	py := python(t)
	bin := roomspec(t)
	seen := map[string]bool{}
	for _, row := range historyTable(t) {
		if seen[row.commit] || row.env != nil {
			continue // (the storm's decode does not exercise the deferred release)
		}
		seen[row.commit] = true
		t.Run(row.commit, func(t *testing.T) {
			src := source(t, gitDir, row.commit)
			out := t.TempDir()
			name := "real-" + row.commit
			logPath := filepath.Join(out, name+".events.jsonl")
			cmd := exec.Command(py, module, "--log", logPath, "--host", "prefill-0", "--",
				py, filepath.Join("..", "testdata", "scenarios", "make_scenarios.py"),
				"--real", src.Root, "--variant", row.variant, "--commit", row.commit, "--live", out, name)
			run(t, 3*time.Minute, cmd)
			exp, err := scenarios.Read(out, name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(logPath)
			if err != nil {
				t.Fatalf("no event log: %v", err)
			}
			events, err := eventlog.ReadAll(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events {
				if ev.Host != "prefill-0" || ev.Role != "prefill" || ev.Rank != 0 {
					t.Fatalf("line %d: host %q role %q rank %d", ev.Line, ev.Host, ev.Role, ev.Rank)
				}
			}
			rep := exec.Command(bin, "replay", "-format", "json", "-variant", row.variant, "-deadline", exp.Deadline,
				"-log", logPath, filepath.Join(out, name+".pcap"))
			got, _ := output(time.Minute, rep) // exit 1: violated rooms
			verdicts, reasons := map[string]string{}, map[string]string{}
			sc := bufio.NewScanner(bytes.NewReader(got))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				if bytes.HasPrefix(sc.Bytes(), []byte("roomspec replay: ")) {
					continue // stderr (output appends it on exit 1): which variant, and why
				}
				if bytes.HasPrefix(sc.Bytes(), []byte(`{"summary":`)) {
					continue // the last line: the counts, not a room
				}
				var r struct {
					Room    int64  `json:"room"`
					Verdict string `json:"verdict"`
					Reason  string `json:"reason"`
				}
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("replay: %v: %s", err, got)
				}
				verdicts[strconv.FormatInt(r.Room, 10)] = r.Verdict
				reasons[strconv.FormatInt(r.Room, 10)] = r.Reason
			}
			if len(verdicts) != len(exp.WithLog) {
				t.Errorf("replay judged %d aborted rooms, the emulators %d", len(verdicts), len(exp.WithLog))
			}
			for room, want := range exp.WithLog {
				if verdicts[room] != want {
					t.Errorf("room %s: replay with the log says %q (%s); the real code %s it (%s)", room, verdicts[room], reasons[room],
						map[bool]string{true: "pinned", false: "released"}[want != "satisfied"], want)
					keep(t, out)
				}
			}
			t.Logf("%s (%s): %d log lines, %d aborted rooms judged as they went (%d pinned)", row.commit, row.variant, len(events), len(exp.WithLog), len(exp.Pinned))
		})
	}
}

// keep copies a failing run's files into $ROOMSPEC_KEEP, if set.
func keep(t *testing.T, dir string) {
	to := os.Getenv("ROOMSPEC_KEEP")
	if to == "" {
		return
	}
	to = filepath.Join(to, strings.ReplaceAll(t.Name(), "/", "-"))
	if err := os.CopyFS(to, os.DirFS(dir)); err != nil {
		t.Logf("keeping %s: %v", dir, err)
		return
	}
	t.Logf("files kept in %s", to)
}

// TestRealSameResults: at each row of README's history table, the
// property suite on SGLang's real code (roomspec test -impl
// sglang:GITDIR@COMMIT, refinement checked after every step, liveness)
// prints the same results, case for case, with the launcher between the
// suite and the harness's python as without it; and with it, the log the
// hook wrote is read without error.
func TestRealSameResults(t *testing.T) {
	gitDir := realSGLang(t)
	if testing.Short() {
		t.Skip("runs the property suite twice per commit")
	}
	py := python(t)
	bin := roomspec(t)
	mod, err := filepath.Abs(module)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range historyTable(t) {
		t.Run(row.commit+"-"+row.variant, func(t *testing.T) {
			dir := t.TempDir()
			logPath := filepath.Join(dir, "events.jsonl")
			wrapper := filepath.Join(dir, "python")
			script := fmt.Sprintf("#!/bin/sh\nexec %q %q --log %q -- %q \"$@\"\n", py, mod, logPath, py)
			if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"test", "-impl", "sglang:" + gitDir + "@" + row.commit, "-cases", "50", "-seed", "22"}
			for _, kv := range row.env {
				args = append(args, "-sglang-env", kv)
			}
			suite := func(python string) string {
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), "ROOMSPEC_PYTHON="+python)
				out, err := output(5*time.Minute, cmd)
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					t.Fatalf("roomspec %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			plain, instrumented := suite(py), suite(wrapper)
			if plain != instrumented {
				t.Fatalf("results differ with the instrumentation:\n--- without\n%s\n--- with\n%s", plain, instrumented)
			}
			f, err := os.Open(logPath)
			if err != nil {
				t.Fatalf("the instrumented suite wrote no log: %v", err)
			}
			defer f.Close()
			events, err := eventlog.ReadAll(f)
			if err != nil || len(events) == 0 {
				t.Fatalf("the instrumented suite's log: %d events, %v", len(events), err)
			}
			t.Logf("same results with and without; %d log lines", len(events))
		})
	}
}

// BenchmarkRoomCost measures what the event log costs per room on
// SGLang's real prefill code (the commit of $ROOMSPEC_SGLANG), through
// the harness free-running: testdata/bench_rooms.py pushes healthy rooms
// through the real bootstrap thread, transfer worker and scheduler
// functions, plainly and under the launcher in turn. Reported: the
// process's CPU time per room each way (medians over the iterations) and
// their ratio.
func BenchmarkRoomCost(b *testing.B) {
	gitDir := realSGLang(b)
	_, commit, _ := strings.Cut(os.Getenv("ROOMSPEC_SGLANG"), "@")
	src := source(b, gitDir, commit)
	py := python(b)
	const rooms = 400
	dir := b.TempDir()
	script := filepath.Join("testdata", "bench_rooms.py")
	measure := func(cmd *exec.Cmd) float64 {
		out := run(b, 3*time.Minute, cmd)
		var r struct {
			CPU float64 `json:"cpu_s"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return r.CPU / rooms
	}
	var off, on []float64
	for i := 0; i < b.N; i++ {
		off = append(off, measure(exec.Command(py, script, harnessDir(b), src.Root, strconv.Itoa(rooms))))
		logPath := filepath.Join(dir, "events.jsonl")
		os.Remove(logPath)
		on = append(on, measure(exec.Command(py, module, "--log", logPath, "--", py, script, harnessDir(b), src.Root, strconv.Itoa(rooms))))
		if lines := countLines(b, logPath); lines < 5*rooms {
			b.Fatalf("the instrumented run logged %d lines for %d rooms", lines, rooms)
		}
	}
	mOff, mOn := median(off), median(on)
	b.ReportMetric(mOff*1e6, "cpu-µs/room-plain")
	b.ReportMetric(mOn*1e6, "cpu-µs/room-logged")
	b.ReportMetric(mOn/mOff, "ratio")
}

func countLines(t testing.TB, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		lines++
	}
	return lines
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}
