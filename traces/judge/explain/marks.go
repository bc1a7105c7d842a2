package explain

import (
	"fmt"
	"slices"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// Mark is a trace one spec step leaves where a capture or a log can see
// it: a message on the wire (as the step's @wire annotations say) or a
// line of the prefill event log. An observation is explained by a step
// that left its mark; a step that leaves no mark may have happened
// unseen.
//
// Marks are what the search compares, so they hold only what the spec
// decides: the decode rank as its index in the room's spec instance
// (ranks are named in order of appearance), never an address.
type Mark struct {
	Kind observe.Kind
	// Rank is the decode rank of a wire mark (an index into the
	// instance's DecodeRanks); -1 for log marks.
	Rank int
	// A and B are a status change's from and to, or a poll's queue
	// ("bootstrap", "inflight"; "" when the log did not say) and the
	// status it saw; empty otherwise.
	A, B string
}

func (m Mark) String() string {
	switch m.Kind {
	case observe.Status:
		return fmt.Sprintf("status %s -> %s", m.A, m.B)
	case observe.Poll:
		return fmt.Sprintf("poll %s saw %s", m.A, m.B)
	}
	if m.Kind.Wire() {
		return fmt.Sprintf("%s rank %d", m.Kind, m.Rank)
	}
	return m.Kind.String()
}

// matches reports whether observed mark m is the mark a step left: the
// same, except that a poll whose queue the log did not say matches a
// poll of either queue (the room's state tells which).
func (m Mark) matches(left Mark) bool {
	if m.Kind == observe.Poll && m.A == "" {
		return left.Kind == observe.Poll && left.B == m.B
	}
	return m == left
}

// MarkOf returns the mark observation o of decode rank d (its index in
// the room's instance; -1 for a log observation) must match.
func MarkOf(o *observe.Observation, d int) Mark {
	m := Mark{Kind: o.Kind, Rank: d}
	switch o.Kind {
	case observe.Status:
		m.A, m.B = o.From, o.To
	case observe.Poll:
		m.A, m.B = o.Queue, o.Status
	}
	return m
}

// Channels. A mark travels on a channel that keeps its order: one per
// decode rank and direction of the @wire annotations (a ZeroMQ connection
// keeps its order), one for the log (its lines are in the order they were
// written). The directions and the direction of each message come from
// the compiled spec's annotations.
var (
	// dirs are the annotations' directions, in order of appearance.
	dirs []string
	// kindDir is the index in dirs of each wire kind's direction, or -1
	// for a message no annotation names.
	kindDir [observe.AbortAck + 1]int
	// kindMsg is the observation kind of each message name the
	// annotations use; messages the capture cannot show have none.
	kindMsg = map[string]observe.Kind{}
)

func init() {
	for k := range kindDir {
		kindDir[k] = -1
	}
	for _, a := range model.Actions {
		for _, w := range a.Wire {
			d := slices.Index(dirs, w.Dir)
			if d < 0 {
				dirs = append(dirs, w.Dir)
				d = len(dirs) - 1
			}
			for k := observe.TransferInfo; k <= observe.AbortAck; k++ {
				if k.String() == w.Msg {
					kindDir[k] = d
					kindMsg[w.Msg] = k
				}
			}
		}
	}
	if len(dirs)*observe.MaxRanks > 32 {
		panic(fmt.Sprintf("explain: %d wire directions in the spec's annotations; channels of %d decode ranks must fit 32 bits", len(dirs), observe.MaxRanks))
	}
}

// Channel returns the channel m travels on: -1 for the log, else one
// per decode rank and direction of the @wire annotations. Marks of one
// channel are observed in the order the steps left them.
func (m Mark) Channel() int {
	if !m.Kind.Wire() {
		return -1
	}
	return len(dirs)*m.Rank + kindDir[m.Kind]
}

// channelOf returns the channel of a message an annotation describes.
func channelOf(msg *model.WireMessage) int {
	return len(dirs)*int(msg.Rank) + slices.Index(dirs, msg.Dir)
}

// allChannels has a bit set for each channel of instance c.
func allChannels(c *model.Config) uint32 { return uint32(1)<<(len(dirs)*c.DecodeRanks.Size()) - 1 }

// Marks returns the marks step a (from s to t) of a one-room spec
// instance leaves, in the order they appear: the messages its @wire
// annotations send (as spec/model's AppendWire evaluates them) and, when
// withLog, the prefill event-log lines its @log annotations say it writes.
//
// Receiving a message leaves no mark: a capture sees a message when it
// is sent.
func Marks(c *model.Config, a model.Action, s, t *model.State, withLog bool) []Mark {
	return appendMarks(nil, c.AppendWire(nil, a, s), c, a, s, t, withLog)
}

// appendMarks appends the marks of step a, whose wire messages are msgs.
func appendMarks(out []Mark, msgs []model.WireMessage, c *model.Config, a model.Action, s, t *model.State, withLog bool) []Mark {
	for i := range msgs {
		if k, ok := kindMsg[msgs[i].Msg]; ok && msgs[i].Send {
			out = append(out, Mark{Kind: k, Rank: int(msgs[i].Rank)})
		}
	}
	if withLog && !model.Actions[a.ID].Environment() {
		out = appendLogMarks(out, c, a, s, t)
	}
	return out
}

// MarkTable interns marks as small integers: what rooms keep of their
// observations.
type MarkTable struct {
	ids  map[Mark]int32
	list []Mark
}

// ID returns m's number.
func (t *MarkTable) ID(m Mark) int32 {
	if id, ok := t.ids[m]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = map[Mark]int32{}
	}
	id := int32(len(t.list))
	t.ids[m] = id
	t.list = append(t.list, m)
	return id
}

// Has reports whether m was interned.
func (t *MarkTable) Has(m Mark) bool {
	_, ok := t.ids[m]
	return ok
}

// Len is the number of marks interned.
func (t *MarkTable) Len() int { return len(t.list) }

// Mark returns the mark numbered id.
func (t *MarkTable) Mark(id int32) Mark { return t.list[id] }
