package explain

import (
	"encoding/binary"
	"iter"
	"math/bits"
	"strconv"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// Observations of one room that come close together (a burst) may have
// happened in another order than the capture shows them: separate TCP
// connections are not ordered with each other (libzmq flushes each
// socket from its own I/O thread, so decode's ABORT on one rank's
// connection can reach the wire microseconds before another rank's
// earlier TransferInfo), and the log's clock is not the capture's. Each
// source keeps its own order exactly. A burst is explained when some
// order of its observations that keeps each source's order, and swaps
// observations of different sources only when they are at most the skew
// apart, is explained; the states after it are the union over all such
// orders.

// MaxBurst bounds the observations one burst reorders (masks are uint16
// and a burst explores at most 2^MaxBurst orders' prefixes); a longer run
// of close observations is cut into bursts of this size.
const MaxBurst = 8

// Order is the constraint on a burst's orders: observation i may come
// only after every observation in need[i], and before every one in
// forbid[i] (bit j is observation j of the burst).
type Order struct {
	n            int
	need, forbid [MaxBurst]uint16
}

// Obs is an observation as a room keeps it.
type Obs struct {
	// T is its time (unix nanoseconds).
	T int64
	// Mark is its interned mark (MarkTable).
	Mark int32
	// Src is its source (observe.Sources).
	Src int32
	// Ev is its evidence: a frame number, or a log line number.
	Ev int32
}

// Cuts reports whether an observation at time t starts a new burst after
// n observations of the open one, whose latest is at last: it is more
// than the skew after every earlier one, or the burst is full.
func Cuts(n int, last, t int64, skew time.Duration) bool {
	return n > 0 && (t-last > int64(skew) || n == MaxBurst)
}

// Bursts yields the end of each burst of hist, cut as Cuts says.
func Bursts(hist []Obs, skew time.Duration) iter.Seq[int] {
	return func(yield func(int) bool) {
		start, last := 0, int64(0)
		for i, o := range hist {
			if Cuts(i-start, last, o.T, skew) {
				if !yield(i) {
					return
				}
				start = i
			}
			if i == 0 || o.T > last {
				last = o.T
			}
		}
		if len(hist) > 0 {
			yield(len(hist))
		}
	}
}

// BurstOf returns the marks of a burst's observations (at most MaxBurst)
// and the orders they may have happened in: each source keeps its order,
// and observations of different sources are reordered only where
// observe.MustPrecede allows.
func BurstOf(obs []Obs, skew time.Duration) (ms [MaxBurst]int32, o Order) {
	o.n = len(obs)
	for i := range obs {
		ms[i] = obs[i].Mark
		for j := range obs {
			switch {
			case j < i && observe.MustPrecede(obs[j].Src, obs[j].T, obs[i].Src, obs[i].T, skew):
				o.need[i] |= 1 << j
			case j > i && observe.MustPrecede(obs[i].Src, obs[i].T, obs[j].Src, obs[j].T, skew):
				o.forbid[i] |= 1 << j
			}
		}
	}
	return ms, o
}

// AppendKey appends to b a key of the burst whose marks ms and orders o
// BurstOf returned: bursts of equal keys are explained alike from the
// same set (the memo key of Instance.Burst, and how replay tells rooms
// of one pattern).
func (o Order) AppendKey(b []byte, ms []int32) []byte {
	for i := 0; i < o.n; i++ {
		b = binary.LittleEndian.AppendUint32(b, uint32(ms[i]))
		b = binary.LittleEndian.AppendUint16(b, o.need[i])
		b = binary.LittleEndian.AppendUint16(b, o.forbid[i])
	}
	return b
}

// space is what a burst is explained in: sets of nodes, as interned sets
// (the memoized path) or as node lists with trails (reconstruction).
type space[S any] interface {
	// step explains the burst's observation i after the nodes of s.
	step(s S, i int) (next S, depth int, hit bool)
	union(a, b S) S
	empty(s S) bool
	closed(s S) bool
	released(s S) bool
}

// explained is what explaining a burst found.
type explained[S any] struct {
	// final: the nodes after every observation, in any allowed order;
	// empty when no order explains them all.
	final S
	// closedAt is the smallest k >= 1 such that the burst's first j
	// observations (capture order) are explained and leave the room
	// closed for every j >= k: when, within the burst, the room closed
	// for good; 0 if it is not closed at the end. releasedAt is the same
	// for released.
	closedAt, releasedAt int
	// blame is, when final is empty, the observation no order explains
	// (of the orders that explain the most observations, the one that
	// follows capture order longest), and from the nodes it was checked
	// from; blame is -1 otherwise.
	blame int
	from  S
	depth int
	hit   bool
}

// maxOrderSteps bounds the steps one burst's orders may take together: a
// burst of a few observations of two sources takes a few, the scenarios'
// bursts (both ranks' messages, their ACKs and log lines) up to about a
// hundred, maxBurst observations of as many sources 1,024. Past it only
// the capture's order is explained, and the result says a bound was hit.
const maxOrderSteps = 256

// explain explains a burst of o.n observations after start.
func explain[S any](sp space[S], start S, o Order) explained[S] {
	if steps := orderSteps(o); steps > maxOrderSteps {
		strict := Order{n: o.n}
		for i := 0; i < o.n; i++ {
			strict.need[i] = 1<<i - 1
			strict.forbid[i] = uint16(1<<o.n-1) &^ (1<<(i+1) - 1)
		}
		res := explainOrders(sp, start, strict)
		res.hit = true
		return res
	}
	return explainOrders(sp, start, o)
}

// orderSteps counts the steps explainOrders would take if every one
// explained its observation: the edges between the allowed prefixes.
func orderSteps(o Order) int {
	n, steps := o.n, 0
	reach := make([]bool, 1<<n)
	reach[0] = true
	for m := 0; m < 1<<n; m++ {
		if !reach[m] {
			continue
		}
		for i := 0; i < n; i++ {
			if bit := 1 << i; m&bit == 0 && int(o.need[i])&^m == 0 && int(o.forbid[i])&m == 0 {
				reach[m|bit] = true
				steps++
			}
		}
	}
	return steps
}

func explainOrders[S any](sp space[S], start S, o Order) explained[S] {
	n := o.n
	full := 1<<n - 1
	dp := make([]S, 1<<n)
	has := make([]bool, 1<<n)
	dp[0], has[0] = start, true
	var res explained[S]
	// A step adds a bit, so every mask's predecessors come before it.
	for m := 0; m <= full; m++ {
		if !has[m] {
			continue
		}
		for i := 0; i < n; i++ {
			bit := 1 << i
			if m&bit != 0 || int(o.need[i])&^m != 0 || int(o.forbid[i])&m != 0 {
				continue
			}
			next, d, h := sp.step(dp[m], i)
			res.depth, res.hit = max(res.depth, d), res.hit || h
			if sp.empty(next) {
				continue
			}
			if has[m|bit] {
				dp[m|bit] = sp.union(dp[m|bit], next)
			} else {
				dp[m|bit], has[m|bit] = next, true
			}
		}
	}
	// From the end backwards, while each capture-order prefix is
	// explained and keeps the property.
	closed, released := true, true
	for k := n; k >= 1 && (closed || released); k-- {
		p := 1<<k - 1
		closed = closed && has[p] && sp.closed(dp[p])
		released = released && has[p] && sp.released(dp[p])
		if closed {
			res.closedAt = k
		}
		if released {
			res.releasedAt = k
		}
	}
	res.blame = -1
	if has[full] {
		res.final = dp[full]
		return res
	}
	best, bestCount, bestMiss := 0, -1, -1
	for m := 0; m < full; m++ {
		if !has[m] {
			continue
		}
		count, miss := bits.OnesCount(uint(m)), bits.TrailingZeros(uint(^m))
		if count > bestCount || count == bestCount && miss > bestMiss {
			best, bestCount, bestMiss = m, count, miss
		}
	}
	res.final = dp[full] // the zero S: empty
	res.blame, res.from = bestMiss, dp[best]
	return res
}

// Start is what a room's judgment assumes about its life before the
// capture.
type Start int

const (
	// StartSeen: the room's life is in the capture (and log) from the
	// spec's initial state on.
	StartSeen Start = iota
	// StartBlind: the room began in the spec's initial state, but the
	// capture joined connections mid-stream, so messages sent before it
	// saw each of the room's connections may be missing.
	StartBlind
	// StartUnknown: the room's life began before both the capture and the
	// log; it is judged from every state of the spec.
	StartUnknown
)

var startNames = [...]string{"seen", "blind", "unknown"}

func (s Start) String() string {
	if int(s) < len(startNames) {
		return startNames[s]
	}
	return "Start(" + strconv.Itoa(int(s)) + ")"
}

// StartSet returns the set a room of the given start is explained from
// (for StartUnknown, complete says whether MaxStates cut it).
func (a *Instance) StartSet(start Start) (s *Set, complete bool) {
	switch start {
	case StartBlind:
		return a.Blind(), true
	case StartUnknown:
		return a.Past()
	}
	return a.Start(), true
}

// Behaviour explains a room's history again (from its start, burst by
// burst as Bursts cuts it), with trails, and returns a behaviour of the
// spec matching it: ending in state want if given (one of the final
// states), else in the first final state; for a history some burst of
// which no behaviour explains, up to the state that burst was checked
// from. It returns nil when want is not a final state.
func (a *Instance) Behaviour(start Start, hist []Obs, skew time.Duration, want *model.State) []model.State {
	nodes := a.startNodes(start)
	var from []node
	begin := 0
	for end := range Bursts(hist, skew) {
		obs := hist[begin:end]
		ids, ord := BurstOf(obs, skew)
		ms := make([]Mark, len(obs))
		for i := range ms {
			ms[i] = a.marks.Mark(ids[i])
		}
		e := explain[[]node](nodeSpace{&a.sr, ms}, nodes, ord)
		if e.blame >= 0 {
			from = e.from
			break
		}
		nodes = e.final
		begin = end
	}
	if from != nil {
		nodes = from
	}
	for i := range nodes {
		if want == nil || nodes[i].s.Equal(want) {
			return nodes[i].trail.states()
		}
	}
	return nil
}

// startNodes returns the nodes a room of the given start begins in, with
// trails.
func (a *Instance) startNodes(start Start) []node {
	if start == StartUnknown {
		nodes, _ := a.sr.past()
		return nodes
	}
	var blind uint32
	if start == StartBlind {
		blind = allChannels(a.sr.c)
	}
	var nodes []node
	a.sr.c.Inits(func(s *model.State) bool {
		nodes = append(nodes, node{s: *s, blind: blind, trail: &trail{s: *s}})
		return false
	})
	return nodes
}
