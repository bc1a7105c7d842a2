package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/traces/judge"
)

// Page is one self-contained HTML page (inline CSS, SVG and script; no
// network): a summary, a sortable table of rooms or counterexamples that
// filters by verdict, each row opening its sequence diagram, and the
// room-status state diagram with the transitions the rows used, counted.
//
// Rows are added one at a time as their verdicts come (AddRoom,
// AddCaptured, AddDiagram), each encoded at once into the page's compact
// data (strings shared across rows), so a page holds what its HTML will
// hold, not the rooms. Diagrams are drawn by the page's script when a row
// is opened, and the table draws only the rows in view: a page of ten
// thousand rooms opens as fast as one of ten.
type Page struct {
	// Title heads the page; Subtitle (e.g. the command line) goes under it.
	Title, Subtitle string

	kind  string // "replay", "captured" or "diagrams"
	strs  strTable
	cols  []column
	rows  []row
	diags []jsonDiagram
	steps jsonTable
	lanes jsonTable
	// skeletons are the diagrams of the witnesses seen, by their steps;
	// stepIDs the steps' entries in the steps table, by their first step.
	skeletons map[*judge.WitnessStep]*Diagram
	stepIDs   map[*step]int
	verdict   []string // verdicts in the order of the filter buttons
	counts    map[string]int
	edges     map[[3]string]int
	graph     *check.Projection
	variant   string
	replay    *replayInfo
	capt      *capturedInfo
}

type column struct {
	Key   string `json:"k"`
	Title string `json:"t"`
	Type  string `json:"y"` // "int", "num" or "str"
}

type row struct {
	id      string
	verdict int
	cells   []int
	diagram int
}

// ReplayInfo is what a replay page says besides its rooms.
type ReplayInfo struct {
	// Variant is the variant replayed under; Command the command line.
	Variant, Command string
	// Why says which variant and why (the lines replay prints first:
	// the SGLang code that called for it, or that it was assumed).
	Why []string
	// Status is the variant's room-status state machine (roomspec
	// diagram), or nil; the page counts the transitions its rooms used.
	Status *check.Projection
}

type replayInfo struct {
	ReplayInfo
	rep *judge.Report
	// lead is the room the page opens with, said first.
	lead *lead
	// start is the capture's first packet time.
	start time.Time
	// Per reported room: abort time, release time (0 if none), latency
	// (-1 if none), whether it is pinned (violated or at-risk) and whether
	// it is still waiting (inconclusive), for the histogram and the
	// timeline.
	aborts, releases, latencies []int64
	pinned, waiting             []bool
	multiPrefill                bool
	prefill                     string
}

// NewReplayPage returns an empty page for the rooms of a replay.
func NewReplayPage(info ReplayInfo) *Page {
	p := newPage("replay")
	p.Title = "roomspec replay"
	if info.Variant != "" {
		p.Title += ": " + info.Variant
	}
	p.Subtitle = info.Command
	p.variant, p.graph = info.Variant, info.Status
	p.replay = &replayInfo{ReplayInfo: info}
	p.verdict = []string{string(judge.Violated), string(judge.AtRisk), string(judge.Invalid), string(judge.Inconclusive), string(judge.PredictedReleased), string(judge.Satisfied), string(judge.NotAborted)}
	p.cols = []column{{"room", "room", "int"}, {"verdict", "verdict", "str"}, {"aborted", "aborted", "str"},
		{"latency", "latency (s)", "num"}, {"end", "terminal / last seen", "str"}, {"frames", "frames", "str"},
		{"lines", "log lines", "str"}, {"steps", "steps (unseen)", "str"}, {"prefill", "prefill", "str"}}
	return p
}

func newPage(kind string) *Page {
	return &Page{kind: kind, counts: map[string]int{}, edges: map[[3]string]int{}, strs: strTable{ids: map[string]int{}},
		skeletons: map[*judge.WitnessStep]*Diagram{}, stepIDs: map[*step]int{}}
}

// AddRoom adds a reported room of a replay (its diagram drawn from its
// witness, if it has one). The room's row is its record of replay
// -format json, so that the table says what the JSON says.
func (p *Page) AddRoom(room *judge.Room) {
	ri := p.replay
	var b bytes.Buffer
	var j struct {
		Room         int64    `json:"room"`
		Verdict      string   `json:"verdict"`
		AbortTime    *string  `json:"abort_time"`
		TerminalTime *string  `json:"terminal_time"`
		LatencyS     *float64 `json:"latency_s"`
		LastSeen     string   `json:"last_seen"`
		Frames       []int    `json:"frames"`
		Lines        []int    `json:"log_lines"`
		More         int      `json:"more_evidence"`
		Prefill      string   `json:"prefill"`
	}
	if err := judge.WriteRoomJSON(&b, room); err == nil {
		err = json.Unmarshal(b.Bytes(), &j)
	}
	abort, latency, end := "", "", "last seen "+j.LastSeen
	if j.AbortTime != nil {
		abort = *j.AbortTime
	}
	if j.LatencyS != nil {
		latency = strconv.FormatFloat(*j.LatencyS, 'f', 6, 64)
	}
	if j.TerminalTime != nil {
		end = "terminal " + *j.TerminalTime
	}
	frames := joinInts(j.Frames)
	if j.More > 0 {
		frames += fmt.Sprintf(",+%d", j.More)
	}
	d := roomDiagram(room, p.skeletons)
	steps := ""
	if d != nil {
		steps = fmt.Sprintf("%d (%d)", d.Steps(), d.Unseen())
	}
	if j.Prefill != "" {
		if ri.prefill == "" {
			ri.prefill = j.Prefill
		}
		ri.multiPrefill = ri.multiPrefill || j.Prefill != ri.prefill
	}
	id := strconv.FormatInt(j.Room, 10)
	if j.Prefill != "" {
		id += "@" + j.Prefill
	}
	p.add(id, j.Verdict, []string{strconv.FormatInt(j.Room, 10), j.Verdict, abort, latency, end,
		frames, joinInts(j.Lines), steps, j.Prefill}, d)
	var release int64
	if !room.TerminalTime.IsZero() && room.Latency >= 0 {
		release = room.TerminalTime.UnixNano()
	}
	var at int64
	if room.Aborted {
		at = room.AbortTime.UnixNano()
	}
	ri.aborts = append(ri.aborts, at)
	ri.releases = append(ri.releases, release)
	ri.latencies = append(ri.latencies, int64(room.Latency))
	ri.pinned = append(ri.pinned, room.Verdict == judge.Violated && room.Latency < 0 || room.Verdict == judge.AtRisk)
	ri.waiting = append(ri.waiting, room.Verdict == judge.Inconclusive)
	if room.Why != "" && (ri.lead == nil || room.FirstSeen.Before(ri.lead.first)) {
		ri.lead = &lead{id: id, first: room.FirstSeen,
			text: fmt.Sprintf("Room %d is %s: %s. Why it is pinned: %s.", j.Room, j.Verdict, room.Reason, room.Why)}
	}
}

// lead is the first pinned room (the first seen of those whose
// behaviour reaches a state that pins them), which the page opens.
type lead struct {
	id, text string
	first    time.Time
}

// Finish records the replay's report (its counts and end time) and the
// capture's first packet time: call it after the last AddRoom.
func (p *Page) Finish(rep *judge.Report, start time.Time) {
	p.replay.rep, p.replay.start = rep, start
}

// capturedInfo is what a captured-trace page says besides its rooms.
type capturedInfo struct {
	CapturedInfo
}

// CapturedInfo is what a page of roomspec test -captures says besides its
// rooms.
type CapturedInfo struct {
	Command string
	// Seed, Cases: the run's seed and schedules per room.
	Seed  int64
	Cases int
	// Status is the room-status state machine (of the first
	// implementation's variant), or nil.
	Status *check.Projection
}

// NewCapturedPage returns an empty page for roomspec test -captures.
func NewCapturedPage(info CapturedInfo) *Page {
	p := newPage("captured")
	p.Title, p.Subtitle, p.graph = "roomspec test -captures", info.Command, info.Status
	p.capt = &capturedInfo{info}
	p.verdict = []string{"pinned", "fails", "holds", "skipped"}
	p.cols = []column{{"capture", "capture", "str"}, {"room", "room", "int"}, {"impl", "implementation", "str"},
		{"verdict", "verdict", "str"}, {"schedules", "schedules", "int"}, {"frames", "frames", "str"}, {"reason", "reason", "str"}}
	return p
}

// AddCaptured adds one room's result under one implementation.
func (p *Page) AddCaptured(r *captured.Result) {
	verdict, reason := "holds", fmt.Sprintf("holds over %d schedules", r.Schedules)
	d := CapturedDiagram(r)
	if !r.Holds {
		verdict, reason = "pinned", r.Result.Failure
		if r.Property != conformance.Liveness {
			verdict = "fails"
		}
	}
	p.addCapturedRow(r.Room, r.Impl, verdict, strconv.Itoa(r.Schedules), reason, d)
}

// AddSkipped adds a room the captured schedules do not model.
func (p *Page) AddSkipped(room *captured.Room, impl string) {
	p.addCapturedRow(room, impl, "skipped", "", room.Skip, nil)
}

func (p *Page) addCapturedRow(room *captured.Room, impl, verdict, schedules, reason string, d *Diagram) {
	frames := slices.Sorted(slices.Values(room.Frames))
	capture := room.Capture[strings.LastIndexByte(room.Capture, '/')+1:]
	id := fmt.Sprintf("%s/%d/%s", capture, room.Room, impl)
	p.add(id, verdict, []string{capture, strconv.FormatInt(room.Room, 10), impl, verdict, schedules, joinInts(frames), reason}, d)
}

// NewDiagramPage returns a page of counterexamples (roomspec check,
// test, show): add each with AddDiagram.
func NewDiagramPage(title, subtitle string) *Page {
	p := newPage("diagrams")
	p.Title, p.Subtitle = title, subtitle
	p.cols = []column{{"name", "counterexample", "str"}, {"verdict", "verdict", "str"}, {"steps", "steps", "int"}, {"reason", "failure", "str"}}
	return p
}

// AddDiagram adds a diagram as a row of its own.
func (p *Page) AddDiagram(d *Diagram) {
	v := d.Verdict
	if v == "" {
		v = "behaviour"
	}
	if !slices.Contains(p.verdict, v) {
		p.verdict = append(p.verdict, v)
	}
	p.add(strconv.Itoa(len(p.rows)+1), v, []string{d.Title, v, strconv.Itoa(d.Steps()), d.Reason}, d)
}

// Rows returns how many rows the page has.
func (p *Page) Rows() int { return len(p.rows) }

func (p *Page) add(id, verdict string, cells []string, d *Diagram) {
	r := row{id: id, verdict: p.strs.id(verdict), diagram: -1}
	for _, c := range cells {
		r.cells = append(r.cells, p.strs.id(c))
	}
	if d != nil {
		r.diagram = len(p.diags)
		p.diags = append(p.diags, p.encode(d))
		d.statusEdges(func(from, to, action string) { p.edges[[3]string{from, to, action}]++ })
	}
	if !slices.Contains(p.verdict, verdict) {
		p.verdict = append(p.verdict, verdict)
	}
	p.counts[verdict]++
	p.rows = append(p.rows, r)
}

// strTable interns the page's strings: the data refers to them by index.
type strTable struct {
	ids  map[string]int
	list []string
}

func (t *strTable) id(s string) int {
	if i, ok := t.ids[s]; ok {
		return i
	}
	t.ids[s] = len(t.list)
	t.list = append(t.list, s)
	return len(t.list) - 1
}

// optional is the id of s, or nil for "".
func (t *strTable) optional(s string) *int {
	if s == "" {
		return nil
	}
	i := t.id(s)
	return &i
}

func (t *strTable) idsOf(ss []string) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = t.id(s)
	}
	return out
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// actionModels lists, per action, its name and the SGLang code it models
// (the @models annotations), for the diagrams' tooltips.
func (p *Page) actionModels() [][]int {
	out := make([][]int, len(model.Actions))
	for i, a := range model.Actions {
		out[i] = append([]int{p.strs.id(a.Name), p.strs.id(a.Kind + " " + a.Actor)}, p.strs.idsOf(a.Models)...)
	}
	return out
}
