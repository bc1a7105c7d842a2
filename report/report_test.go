package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/internal/browser"
	"github.com/roomspec/roomspec/internal/golden"
	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

func allScenarios(t testing.TB) []scenarios.Scenario {
	t.Helper()
	all, err := scenarios.All(scenarios.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// replayScenario replays a scenario capture (with its log, or from the
// wire alone) with witnesses; start is the capture's first packet time.
func replayScenario(t testing.TB, sc scenarios.Scenario, withLog bool) (rep *judge.Report, start time.Time) {
	t.Helper()
	f, err := os.Open(sc.Capture())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := replay.Input{Captures: []replay.Capture{replay.Reader(sc.Name, f)}}
	if withLog {
		lf, err := os.Open(sc.Log())
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		in.Log, in.LogName = lf, sc.Log()
	}
	cfg, err := spec.Compiled(sc.Variant)
	if err != nil {
		t.Fatal(err)
	}
	deadline, err := sc.DeadlineDuration()
	if err != nil {
		t.Fatal(err)
	}
	j, err := judge.New(cfg, judge.Options{Deadline: deadline, Log: withLog, Witness: true})
	if err != nil {
		t.Fatal(err)
	}
	var rooms []*judge.Room
	res, err := replay.Run(in, []*judge.Judge{j}, func(_ int, ev judge.Event) error {
		rooms = append(rooms, ev.Room)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep = res.Reports[0]
	rep.Keep(rooms)
	return rep, res.Start
}

// interpretedStatus projects the variant's reachable graph onto the
// room's status with the interpreter, as roomspec diagram does.
func interpretedStatus(t testing.TB, variant string) *check.Projection {
	t.Helper()
	v, err := spec.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	v.Cfg.Invariants, v.Cfg.Properties = nil, nil
	m, err := v.Model()
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Spec.ParseFormula(`request_status[CHOOSE r \in Rooms : TRUE]`)
	if err != nil {
		t.Fatal(err)
	}
	r := check.Check(context.Background(), m, check.Options{Graph: true})
	g, err := check.Project(m.Spec, r.Graph, f)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// statusMachine is the status machine replay's page draws (the compiled
// model's).
func statusMachine(t testing.TB, variant string) *check.Projection {
	t.Helper()
	c, err := spec.Compiled(variant)
	if err != nil {
		t.Fatal(err)
	}
	return report.StatusMachine(c)
}

// TestStatusMachine: the status machine drawn from the compiled model is
// roomspec diagram's, drawn from the interpreter's graph, for every
// bundled variant (the reuse variants, whose graphs are the largest, only
// without -short).
func TestStatusMachine(t *testing.T) {
	for _, v := range spec.Variants() {
		if testing.Short() && strings.HasSuffix(v, "-reuse") {
			continue
		}
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			got := statusMachine(t, v)
			if c, err := spec.Compiled(v); err == nil && c.Rooms.Size() != 1 {
				if got != nil {
					t.Errorf("a status machine for %d rooms; StatusMachine draws one room's", c.Rooms.Size())
				}
				return // more than one room: no status machine to draw
			}
			want := interpretedStatus(t, v)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("compiled (+) and interpreted (-) status machines differ:\n%s", d)
			}
		})
	}
}

func scenarioPage(t testing.TB, sc scenarios.Scenario, withLog bool) *report.Page {
	t.Helper()
	rep, start := replayScenario(t, sc, withLog)
	p := report.NewReplayPage(report.ReplayInfo{Variant: sc.Variant, Command: "roomspec replay -variant " + sc.Variant,
		Status: statusMachine(t, sc.Variant)})
	for _, room := range rep.Reported() {
		p.AddRoom(room)
	}
	p.Finish(rep, start)
	return p
}

// TestGolden holds the generated HTML of a few pages to testdata/golden
// (-update rewrites them): a replay with a log (violated rooms) and
// without (at-risk rooms with their pinning completions), Mooncake's
// ABORT_ACKs, room reuse, and a counterexample of roomspec test. The
// inline stylesheet and script are the package's own files, so the golden
// files name them instead of repeating them.
func TestGolden(t *testing.T) {
	pages := map[string]*report.Page{}
	for _, sc := range allScenarios(t) {
		switch sc.Name {
		case "storm-fork":
			pages["storm-fork"] = scenarioPage(t, sc, true)
			pages["storm-fork-wire"] = scenarioPage(t, sc, false)
		case "storm-mooncake", "reuse-upstream":
			pages[sc.Name] = scenarioPage(t, sc, true)
		}
	}
	pages["test-fork-liveness"] = resultPage(t)
	css, _ := os.ReadFile("page.css")
	js, _ := os.ReadFile("page.js")
	for name, p := range pages {
		var b bytes.Buffer
		if err := p.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
		got := bytes.Replace(bytes.Replace(b.Bytes(), css, []byte("/* page.css */"), 1), js, []byte("/* page.js */"), 1)
		golden.Check(t, filepath.Join("testdata", "golden", name+".html"), got)
	}
}

func resultPage(t testing.TB) *report.Page {
	t.Helper()
	r := forkLiveness(t)
	p := report.NewDiagramPage("roomspec test: fork-90a52f44a", "roomspec test -impl fork-90a52f44a -seed 1")
	p.AddDiagram(report.ResultDiagram(r))
	return p
}

// forkLiveness is the liveness counterexample of the fork's Go port.
func forkLiveness(t testing.TB) *conformance.Result {
	t.Helper()
	impl, variant, err := conformance.Builtin("fork-90a52f44a")
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	c, err := spec.Compiled(variant)
	if err != nil {
		t.Fatal(err)
	}
	r, err := conformance.Target{Name: "fork-90a52f44a", Impl: impl, Config: c}.Check(conformance.Liveness, conformance.Options{Seed: 1, Cases: 100, MaxSteps: 30})
	if err != nil {
		t.Fatal(err)
	}
	if r.Holds {
		t.Fatal("the fork's liveness holds")
	}
	return r
}

// TestRoomDiagramScenarios draws every reported room of every scenario
// and holds the drawing to the witness it comes from: the pinned rooms of
// each scenario are pinned on it, the lanes are the spec's actors (one
// per decode rank for decode), and every frame the room was judged on is
// drawn.
func TestRoomDiagramScenarios(t *testing.T) {
	for _, sc := range allScenarios(t) {
		for _, withLog := range []bool{true, false} {
			rep, _ := replayScenario(t, sc, withLog)
			for _, room := range rep.Reported() {
				d := report.RoomDiagram(room)
				if d == nil {
					t.Errorf("%s room %d: no diagram", sc.Name, room.Room)
					continue
				}
				var b strings.Builder
				if err := d.WriteText(&b); err != nil {
					t.Fatal(err)
				}
				text := b.String()
				// Pinned on the diagram: every at-risk room (by its completion),
				// and the rooms the scenario pinned; never a satisfied one.
				drawn := strings.Contains(text, "<- pinned from here")
				want := room.Verdict == judge.AtRisk || slices.Contains(sc.Pinned, room.Room) && room.Verdict != judge.Satisfied
				if drawn != want && !(drawn && room.Verdict == judge.Violated) {
					t.Errorf("%s room %d (%s, log %v): pinned %v, but the diagram says:\n%s", sc.Name, room.Room, room.Verdict, withLog, want, text)
				}
				if room.Verdict == judge.AtRisk && !strings.Contains(text, " pins ") {
					t.Errorf("%s room %d: at-risk, but no step of the pinning completion:\n%s", sc.Name, room.Room, text)
				}
				lanes := d.Lanes()
				for _, a := range model.Actions {
					if a.Kind == "implementation" && !slices.Contains(lanes, a.Actor) {
						t.Errorf("%s room %d: no lane for %s in %q", sc.Name, room.Room, a.Actor, lanes)
					}
				}
				for r := range room.Config.DecodeRanks.Size() {
					if name := "decode " + room.Config.DecodeRanks.Names[r]; !slices.Contains(lanes, name) && room.Verdict != judge.Invalid {
						t.Errorf("%s room %d: no lane %s in %q", sc.Name, room.Room, name, lanes)
					}
				}
				for _, f := range room.Frames {
					if !strings.Contains(text, fmt.Sprintf("frame %d", f)) {
						t.Errorf("%s room %d: frame %d not drawn:\n%s", sc.Name, room.Room, f, text)
					}
				}
			}
		}
	}
}

func TestReadITF(t *testing.T) {
	files, _ := filepath.Glob("../conformance/testdata/*.itf.json")
	if len(files) == 0 {
		t.Fatal("no ITF files in conformance/testdata")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, err := conformance.DecodeCaseHeader(data)
		if err != nil {
			t.Fatal(err)
		}
		c, err := spec.Compiled(head.Variant)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := conformance.LoadITF(c, data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := report.ReadITF(data, "")
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if got.Variant != cs.Variant || got.Diagram.Steps() != len(cs.Seq) {
			t.Errorf("%s: variant %s, %d steps; the case says %s, %d", f, got.Variant, got.Diagram.Steps(), cs.Variant, len(cs.Seq))
		}
	}
	// Not a behaviour of the variant named: an error, not a picture.
	data, _ := os.ReadFile(files[0])
	if _, err := report.ReadITF(data, "fixed-deferred"); err == nil || !strings.Contains(err.Error(), "not a behaviour") {
		t.Errorf("another variant's trace: %v, want not a behaviour", err)
	}
	for _, bad := range []string{``, `{}`, `{"states": [1]}`, `{"states": [{"x": 1}]}`, `[`} {
		if _, err := report.ReadITF([]byte(bad), ""); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzReadITF(f *testing.F) {
	files, _ := filepath.Glob("../conformance/testdata/*.itf.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := report.ReadITF(data, "upstream")
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := it.Diagram.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		p := report.NewDiagramPage("fuzz", "")
		p.AddDiagram(it.Diagram)
		if err := p.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
	})
}

// TestStatusGraphCounts: the status machine under the table counts every
// change of the room's status along the rooms' diagrams (the pinning
// completions, which nothing observed, not counted).
func TestStatusGraphCounts(t *testing.T) {
	for _, sc := range allScenarios(t) {
		rep, start := replayScenario(t, sc, true)
		p := report.NewReplayPage(report.ReplayInfo{Variant: sc.Variant, Status: statusMachine(t, sc.Variant)})
		want := 0
		for _, room := range rep.Reported() {
			p.AddRoom(room)
			w := room.Witness
			for i := 1; i < len(w.Steps); i++ {
				if w.Steps[i].State.RequestStatus[0] != w.Steps[i-1].State.RequestStatus[0] && (w.Pin < 0 || i < w.Pin) {
					want++
				}
			}
		}
		p.Finish(rep, start)
		var b bytes.Buffer
		if err := p.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("(%d in the diagrams above)", want); !strings.Contains(b.String(), got) {
			t.Errorf("%s: the status machine does not say %q", sc.Name, got)
		}
	}
}

// TestEmptyPagesInBrowser: pages with no row (a replay in which nothing
// was aborted, a run with no counterexample) load with no console error.
func TestEmptyPagesInBrowser(t *testing.T) {
	b := browser.Start(t)
	dir := t.TempDir()
	rp := report.NewReplayPage(report.ReplayInfo{Variant: "upstream"})
	rp.Finish(&judge.Report{Verdicts: map[judge.Verdict]int{}}, time.Time{})
	pages := map[string]*report.Page{
		"replay": rp,
		"check":  report.NewDiagramPage("nothing", ""),
		"test":   report.NewCapturedPage(report.CapturedInfo{}),
	}
	for name, p := range pages {
		path := filepath.Join(dir, name+".html")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.WriteHTML(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		tab, err := b.Open("file://"+path, 1200, 800, `document.body.dataset.ready === "true"`, 30*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		shown, err := browser.Eval[string](tab, `document.getElementById("shown").textContent`)
		if err != nil || shown != "0 of 0 shown" {
			t.Errorf("%s: %q, %v", name, shown, err)
		}
		if errs := tab.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %q", name, errs)
		}
		tab.Close()
	}
}

// TestPageSaysInputs: a replay page says what the report says of its
// inputs: the log's fit to the capture (its lines, span, clock offset,
// whether it ended early, the rooms held inconclusive for it, a refusal)
// and the capture's damage by kind.
func TestPageSaysInputs(t *testing.T) {
	sc := findScenarioPage(t, "storm-fork")
	rep, start := replayScenario(t, sc, true)
	if rep.Log == nil || rep.Log.Rooms == 0 {
		t.Fatalf("storm-fork's log gives no offset: %v", rep.Log)
	}
	rep.Damage = map[string]int{"snaplen": 20, "time-jump": 2}
	p := report.NewReplayPage(report.ReplayInfo{Variant: sc.Variant})
	p.Finish(rep, start)
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<i>log lines</i> 1 to ", "<i>log offset</i> &#43;", "<i>log offset rooms</i> " + strconv.Itoa(rep.Log.Rooms),
		"<i>log ended before capture</i> false", "<i>log inconclusive rooms</i> 0",
		"<i>capture damage snaplen</i> 20", "<i>capture damage time-jump</i> 2",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	rep.Log.Refused = "the event log does not belong to the capture: (why)"
	b.Reset()
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if want := "<i>log refused</i> the event log does not belong to the capture: (why)"; !strings.Contains(b.String(), want) {
		t.Errorf("the page does not say %q", want)
	}
}

func findScenarioPage(t *testing.T, name string) scenarios.Scenario {
	t.Helper()
	for _, sc := range allScenarios(t) {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return scenarios.Scenario{}
}
