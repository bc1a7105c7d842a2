package report

import (
	"encoding/json"
	"time"
)

// The page's data is one JSON document read by its script. It is compact
// because a page may hold thousands of diagrams: every string is an index
// into the page's string table S, and records are arrays.

// jsonDiagram is a Diagram as the script reads it.
type jsonDiagram struct {
	Title   int   `json:"t"`
	Verdict int   `json:"v"`
	Reason  int   `json:"r"`
	Why     *int  `json:"w,omitempty"`
	Notes   []int `json:"n,omitempty"`
	// Lanes indexes the page's lane lists (LT), each [name, sub, side].
	Lanes int `json:"L"`
	// T0 is the time observations are relative to.
	T0 int `json:"t0"`
	// Steps indexes the page's step lists (ST): rooms of one pattern
	// share theirs.
	Steps int `json:"s"`
	// Obs: [what, frame, line, time after T0 in µs, where].
	Obs         [][5]any `json:"o,omitempty"`
	Stuck       int      `json:"k"`
	Pin         int      `json:"p"`
	Loop        int      `json:"lp"`
	Unexplained int      `json:"u"`
	End         int      `json:"e"`
}

// jsonStep is a step: [kind, lanes, action id, action text, status,
// diff, sends, recvs, observations, quiet polls, implementation diff,
// failed].
type jsonStep [12]any

// encode turns d into the page's data, interning its strings.
func (p *Page) encode(d *Diagram) jsonDiagram {
	s := &p.strs
	j := jsonDiagram{Title: s.id(d.Title), Verdict: s.id(d.Verdict), Reason: s.id(d.Reason), Why: s.optional(d.Why), Notes: s.idsOf(d.Notes),
		Stuck: d.stuck, Pin: d.pin, Loop: d.loop, Unexplained: d.unexplained, End: s.id(d.end), T0: s.id(stamp(d.t0))}
	if d.t0.IsZero() {
		j.T0 = s.id("")
	}
	var lanes [][3]int
	for _, l := range d.lanes {
		lanes = append(lanes, [3]int{s.id(l.name), s.id(l.sub), s.id(l.side)})
	}
	j.Lanes = p.lanes.id(lanes)
	if id, ok := p.stepIDs[&d.steps[0]]; ok {
		j.Steps = id
	} else {
		j.Steps = p.encodeSteps(d)
		p.stepIDs[&d.steps[0]] = j.Steps
	}
	for _, o := range d.obs {
		var rel any
		if !d.t0.IsZero() && !o.t.IsZero() {
			rel = float64(o.t.Sub(d.t0)) / float64(time.Microsecond)
		}
		j.Obs = append(j.Obs, [5]any{s.id(o.what), o.frame, o.line, rel, s.id(o.where)})
	}
	return j
}

// encodeSteps adds d's steps to the page's step lists.
func (p *Page) encodeSteps(d *Diagram) int {
	s := &p.strs
	var steps []jsonStep
	for i, st := range d.steps {
		action := ""
		if i > 0 {
			action = d.c.ActionString(st.action)
		}
		sends := make([][3]int, len(st.sends))
		for k, m := range st.sends {
			sends[k] = [3]int{m.lane, s.id(m.text), m.obs}
		}
		recvs := make([][3]int, len(st.recvs))
		for k, m := range st.recvs {
			recvs[k] = [3]int{m.lane, s.id(m.text), m.from}
		}
		fail := 0
		if st.fail {
			fail = 1
		}
		steps = append(steps, jsonStep{int(st.kind), orEmpty(st.lanes), int(st.action.ID), s.id(action), s.id(st.status),
			s.idsOf(st.diff), sends, recvs, orEmpty(st.obs), orEmpty(st.quiet), s.idsOf(st.impl), fail})
	}
	return p.steps.id(steps)
}

// jsonTable interns JSON values: diagrams of one pattern share their
// steps and lanes.
type jsonTable struct {
	ids  map[string]int
	list []json.RawMessage
}

func (t *jsonTable) id(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // ints, strings and slices of them always marshal
	}
	if i, ok := t.ids[string(b)]; ok {
		return i
	}
	if t.ids == nil {
		t.ids = map[string]int{}
	}
	t.ids[string(b)] = len(t.list)
	t.list = append(t.list, b)
	return len(t.list) - 1
}

func orEmpty(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}

// pageData is the page's whole JSON document.
type pageData struct {
	Kind    string            `json:"kind"`
	S       []string          `json:"S"`
	Cols    []column          `json:"cols"`
	Rows    [][4]any          `json:"rows"` // [id, verdict, cells, diagram]
	D       []jsonDiagram     `json:"D"`
	Steps   []json.RawMessage `json:"ST"`
	Lanes   []json.RawMessage `json:"LT"`
	Actions [][]int           `json:"A"`
	Verdict []string          `json:"verdicts"`
	Hidden  []string          `json:"hide"` // columns with nothing in them
}

func (p *Page) data() ([]byte, error) {
	pd := pageData{Kind: p.kind, Cols: p.cols, D: p.diags, Verdict: p.verdict, Actions: p.actionModels(),
		Steps: orEmptyRaw(p.steps.list), Lanes: orEmptyRaw(p.lanes.list)}
	if pd.D == nil {
		pd.D = []jsonDiagram{}
	}
	if pd.Verdict == nil {
		pd.Verdict = []string{}
	}
	used := make([]bool, len(p.cols))
	for _, r := range p.rows {
		pd.Rows = append(pd.Rows, [4]any{r.id, r.verdict, r.cells, r.diagram})
		for k, c := range r.cells {
			if v := p.strs.list[c]; v != "" && v != "-" {
				used[k] = true
			}
		}
	}
	if pd.Rows == nil {
		pd.Rows = [][4]any{}
	}
	for k, u := range used {
		if !u && len(p.rows) > 0 {
			pd.Hidden = append(pd.Hidden, p.cols[k].Key)
		}
	}
	if p.replay != nil && !p.replay.multiPrefill {
		pd.Hidden = append(pd.Hidden, "prefill")
	}
	pd.S = p.strs.list
	// encoding/json escapes <, > and & in strings, so the document is safe
	// inside a script element.
	return json.Marshal(pd)
}

func orEmptyRaw(xs []json.RawMessage) []json.RawMessage {
	if xs == nil {
		return []json.RawMessage{}
	}
	return xs
}
