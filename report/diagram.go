package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/roomspec/roomspec/internal/statediff"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/gen/specrt"
	"github.com/roomspec/roomspec/tla/value"
)

// A Diagram is one behaviour of the room-lifecycle spec drawn as a
// sequence diagram: one lane per environment actor and decode rank, the
// wire, one lane per prefill thread (the actors of the spec's @action
// annotations), and the log. Each row is a spec step; the messages its
// @wire annotations name go to and from the wire lane, where the capture
// saw them (frame numbers and times); log lines go to the log lane.
// Hovering a step shows what it changed in the spec's state.
type Diagram struct {
	// Title names the diagram ("room 101"), Verdict and Reason what was
	// found (empty for a plain behaviour).
	Title, Verdict, Reason string
	// Why says why a pinned room is pinned, in SGLang's terms
	// (judge.Why); empty for others.
	Why string
	// Notes are sentences drawn under the title (where the room's life
	// began, search bounds, the failure of a property).
	Notes []string

	c     *model.Config
	lanes []lane
	steps []step
	obs   []observation
	t0    time.Time
	// stuck: the first row from which the room is pinned; pin the first
	// row of a pinning completion; loop the row a lasso returns to;
	// unexplained the observation no step explains; -1 for none.
	stuck, pin, loop, unexplained int
	// end says what follows the last step ("then nothing changes").
	end string
}

// stepKind says how a step is known.
type stepKind int

const (
	kindInit    stepKind = iota // the initial state
	kindSeen                    // an observation shows it
	kindUnseen                  // inferred: nothing observed shows it
	kindPin                     // inferred: the completion that pins the room
	kindPlain                   // a step of a behaviour with nothing observed (a counterexample)
	kindQuiesce                 // an implementation's own step under fair scheduling
)

type lane struct {
	// key identifies the lane: the actor, and for an environment actor
	// the decode rank its messages are addressed by.
	key       string
	name, sub string
	side      string // "env", "wire", "impl" or "log"
	order     int
	rank      string
}

type step struct {
	action model.Action
	kind   stepKind
	lanes  []int
	status string
	diff   []string
	// impl lists where an implementation's state differed from the spec's.
	impl  []string
	sends []message
	recvs []message
	// obs are the observations of the step that are not a message's
	// (log lines; frames of a message the step's @wire does not name).
	obs   []int
	quiet []int
	fail  bool
}

// message is a message a step puts on or takes off the wire.
type message struct {
	lane int
	text string // e.g. "ABORT(room: r, rank: d1)"
	name string // e.g. "ABORT"
	obs  int    // the observation of a sent message, or -1
	// from is, for a received message, the step that sent it, or -1.
	from int
}

type observation struct {
	what  string // "ABORT", "status Absent -> Bootstrapping", ...
	frame int
	line  int
	t     time.Time
	where string // the decode endpoint of a wire observation
}

// statusVar is the spec variable whose value is the room's status, drawn
// beside each step and projected by the status diagram.
const statusVar = "request_status"

// newDiagram draws behaviour states, where actions[i] takes states[i-1]
// to states[i] (actions[0] is unused), each step of the given kind.
func newDiagram(c *model.Config, states []model.State, actions []model.Action, kind func(i int) stepKind) *Diagram {
	d := &Diagram{c: c, stuck: -1, pin: -1, loop: -1, unexplained: -1}
	lanes := map[string]int{}
	laneOf := func(l lane) int {
		if i, ok := lanes[l.key]; ok {
			return i
		}
		lanes[l.key] = len(d.lanes)
		d.lanes = append(d.lanes, l)
		return len(d.lanes) - 1
	}
	laneOf(lane{key: "wire", name: "wire", side: "wire", order: 1 << 20})
	for i, info := range model.Actions {
		if info.Kind != "environment" {
			laneOf(lane{key: info.Actor, name: info.Actor, side: "impl", order: 1<<21 + i})
		}
	}
	var prev []value.Value
	// inFlight queues the sent, not yet received messages by their text
	// and direction: a channel is a FIFO.
	inFlight := map[string][]int{}
	var msgs []model.WireMessage
	for i := range states {
		vals := c.Values(&states[i])
		st := step{kind: kindInit, status: status(vals), diff: statediff.States(model.Vars, prev, vals)}
		prev = vals
		if i == 0 {
			d.steps = append(d.steps, st)
			continue
		}
		st.kind = kind(i)
		a := actions[i]
		st.action = a
		info := model.Actions[a.ID]
		actorLane := func(rank string) int {
			if info.Kind != "environment" {
				return laneOf(lane{key: info.Actor})
			}
			key := info.Actor
			if rank != "" {
				key += " " + rank
			}
			return laneOf(lane{key: key, name: key, side: "env", order: actorOrder(info.Actor), rank: rank})
		}
		msgs = c.AppendWire(msgs[:0], a, &states[i-1])
		for _, m := range msgs {
			l := actorLane(c.DecodeRanks.String(int(m.Rank)))
			if !slices.Contains(st.lanes, l) {
				st.lanes = append(st.lanes, l)
			}
			msg := message{lane: l, text: messageText(c, m), name: m.Msg, obs: -1, from: -1}
			key := msg.text + " " + m.Dir
			if m.Send {
				inFlight[key] = append(inFlight[key], i)
				st.sends = append(st.sends, msg)
			} else {
				if q := inFlight[key]; len(q) > 0 {
					msg.from, inFlight[key] = q[0], q[1:]
				}
				st.recvs = append(st.recvs, msg)
			}
		}
		if len(st.lanes) == 0 {
			st.lanes = []int{actorLane("")}
		}
		d.steps = append(d.steps, st)
	}
	d.sortLanes()
	return d
}

// actorOrder orders environment lanes by their actor's first action.
func actorOrder(actor string) int {
	return slices.IndexFunc(model.Actions, func(a specrt.ActionInfo) bool { return a.Actor == actor }) << 8
}

// sortLanes puts the environment's lanes (by actor, then rank) before the
// wire and the implementation's threads, and renumbers the steps' lanes.
func (d *Diagram) sortLanes() {
	order := make([]int, len(d.lanes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		la, lb := &d.lanes[a], &d.lanes[b]
		if c := cmp.Compare(la.order, lb.order); c != 0 {
			return c
		}
		return naturalCompare(la.rank, lb.rank)
	})
	renum := make([]int, len(order))
	lanes := make([]lane, len(order))
	for to, from := range order {
		renum[from] = to
		lanes[to] = d.lanes[from]
	}
	d.lanes = lanes
	for i := range d.steps {
		st := &d.steps[i]
		for k := range st.lanes {
			st.lanes[k] = renum[st.lanes[k]]
		}
		for k := range st.sends {
			st.sends[k].lane = renum[st.sends[k].lane]
		}
		for k := range st.recvs {
			st.recvs[k].lane = renum[st.recvs[k].lane]
		}
	}
}

// naturalCompare orders "d2" before "d10".
func naturalCompare(a, b string) int {
	ta, na := splitNumber(a)
	tb, nb := splitNumber(b)
	if c := cmp.Compare(ta, tb); c != 0 {
		return c
	}
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}

// messageText prints a message as its @wire annotation names it:
// MSG(room: ROOM, rank: RANK). The rank splits an environment actor into
// one lane per decode rank.
func messageText(c *model.Config, m model.WireMessage) string {
	return m.Msg + "(room: " + c.Rooms.String(int(m.Room)) + ", rank: " + c.DecodeRanks.String(int(m.Rank)) + ")"
}

// status is the room's status in a state: the status variable's value,
// the entry itself when it has one entry (a one-room instance), quotes
// dropped.
func status(vals []value.Value) string {
	i := slices.Index(model.Vars, statusVar)
	if i < 0 {
		return ""
	}
	v := vals[i]
	if f, ok := v.(*value.Func); ok && f.Len() == 1 {
		v = f.Vals()[0]
	}
	if s, ok := v.(value.String); ok {
		return string(s)
	}
	return value.Format(v)
}

// addLogLane adds the log lane (after every other) and returns it.
func (d *Diagram) addLogLane() int {
	for i, l := range d.lanes {
		if l.side == "log" {
			return i
		}
	}
	d.lanes = append(d.lanes, lane{key: "log", name: "log", side: "log", order: 1 << 30})
	return len(d.lanes) - 1
}

// StatusEdges counts the status changes of the diagram's steps: from, to
// and the action that made the change.
func (d *Diagram) statusEdges(count func(from, to, action string)) {
	for i := 1; i < len(d.steps); i++ {
		if from, to := d.steps[i-1].status, d.steps[i].status; from != to && d.steps[i].kind != kindPin {
			count(from, to, model.Actions[d.steps[i].action.ID].Name)
		}
	}
}

// Steps returns how many spec steps the diagram draws (the initial state
// not counted).
func (d *Diagram) Steps() int { return len(d.steps) - 1 }

// Unseen returns how many of the diagram's steps nothing observed shows
// (inferred, including a pinning completion).
func (d *Diagram) Unseen() int {
	n := 0
	for _, st := range d.steps {
		if st.kind == kindUnseen || st.kind == kindPin {
			n++
		}
	}
	return n
}

func (d *Diagram) String() string {
	return fmt.Sprintf("%s: %d steps, %d unseen", d.Title, d.Steps(), d.Unseen())
}

var kindNames = [...]string{"initial", "observed", "inferred", "pins", "step", "fair"}

// WriteText writes the diagram as a step table: each step's number, how
// it is known, its lane, its action and what it changed.
func (d *Diagram) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", d.Title)
	if d.Verdict != "" {
		fmt.Fprintf(&b, ": %s", d.Verdict)
	}
	if d.Reason != "" {
		fmt.Fprintf(&b, ": %s", d.Reason)
	}
	b.WriteString("\n")
	if d.Why != "" {
		b.WriteString("why: " + d.Why + "\n")
	}
	for _, n := range d.Notes {
		b.WriteString(n + "\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  step\tknown\tlane\taction\tseen\tchanged")
	for i, st := range d.steps {
		action, lanes := "(initial state)", ""
		if i > 0 {
			action = d.c.ActionString(st.action)
			var names []string
			for _, l := range st.lanes {
				names = append(names, d.lanes[l].name)
			}
			lanes = strings.Join(names, ", ")
		}
		mark := strconv.Itoa(i)
		if i == d.loop {
			mark += " <- loop"
		}
		if i == d.stuck {
			mark += " <- pinned from here"
		}
		changes := st.diff
		if len(changes) == 0 {
			changes = []string{"(nothing)"}
		}
		var seen []string
		for _, m := range st.sends {
			if m.obs >= 0 {
				seen = append(seen, d.obs[m.obs].evidence())
			}
		}
		for _, o := range st.obs {
			seen = append(seen, d.obs[o].evidence())
		}
		for _, o := range st.quiet {
			seen = append(seen, d.obs[o].evidence()+" (quiet)")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", mark, kindNames[st.kind], lanes, action, strings.Join(seen, ", "), changes[0])
		for _, c := range changes[1:] {
			fmt.Fprintf(tw, "  \t\t\t\t\t%s\n", c)
		}
	}
	tw.Flush()
	if d.end != "" {
		b.WriteString("  " + d.end + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// evidence says where an observation was seen: "frame 40" or "line 12".
func (o *observation) evidence() string {
	if o.line > 0 {
		return "line " + strconv.Itoa(o.line)
	}
	return "frame " + strconv.Itoa(o.frame)
}

// Lanes returns the names of the diagram's lanes, left to right.
func (d *Diagram) Lanes() []string {
	out := make([]string, len(d.lanes))
	for i, l := range d.lanes {
		out[i] = l.name
	}
	return out
}
