package observe

import (
	"net/netip"
	"time"
)

// The capture and the log are two clocks: each keeps its own order
// exactly, and an observation of the log goes before one of the capture
// only when it is strictly earlier, so that each source's order is kept
// even where clocks tie. Stream merges them as the capture is decoded,
// reading the log one observation ahead; Merge does the same on slices.

// Stream merges wire observations, pushed in capture order, with the
// observations of a log, pulled as needed, and hands the merged stream
// to emit.
type Stream struct {
	next  func() (Observation, bool, error)
	ahead *Observation
	emit  func(Observation)
	err   error
}

// NewStream returns a Stream whose log observations come from next (ok
// false at the end of the log; nil: no log).
func NewStream(next func() (o Observation, ok bool, err error), emit func(Observation)) *Stream {
	s := &Stream{next: next, emit: emit}
	s.advance()
	return s
}

func (s *Stream) advance() {
	s.ahead = nil
	if s.next == nil || s.err != nil {
		return
	}
	o, ok, err := s.next()
	if err != nil {
		s.err = err
		return
	}
	if ok {
		s.ahead = &o
	}
}

// Wire feeds the next wire observation: the log's observations strictly
// before it go first.
func (s *Stream) Wire(o Observation) {
	s.logBefore(o.Time)
	s.emit(o)
}

// logBefore emits the log observations strictly before t (all, if t is
// zero).
func (s *Stream) logBefore(t time.Time) {
	for s.ahead != nil && (t.IsZero() || s.ahead.Time.Before(t)) {
		s.emit(*s.ahead)
		s.advance()
	}
}

// Flush emits the rest of the log and returns the error that stopped
// reading it, if any.
func (s *Stream) Flush() error {
	s.logBefore(time.Time{})
	return s.err
}

// Merge merges wire and log observations, each in its own order, by time
// (as Stream does).
func Merge(wireObs, logObs []Observation) []Observation {
	out := make([]Observation, 0, len(wireObs)+len(logObs))
	i := 0
	s := NewStream(func() (Observation, bool, error) {
		if i == len(logObs) {
			return Observation{}, false, nil
		}
		i++
		return logObs[i-1], true, nil
	}, func(o Observation) { out = append(out, o) })
	for _, o := range wireObs {
		s.Wire(o)
	}
	s.Flush()
	return out
}

// Sources numbers the sources of observations: the log is -1, a wire
// stream its Stream number, and a wire observation without one the
// direction of its connection (numbered -2, -3, ...). Observations of one
// source are in the order they happened; see MustPrecede.
type Sources struct {
	ids map[[2]netip.AddrPort]int32
}

// ID returns the source of o.
func (s *Sources) ID(o *Observation) int32 {
	if !o.Kind.Wire() {
		return -1
	}
	if o.Stream > 0 {
		return int32(o.Stream)
	}
	k := [2]netip.AddrPort{o.Src, o.Dst}
	id, ok := s.ids[k]
	if !ok {
		if s.ids == nil {
			s.ids = map[[2]netip.AddrPort]int32{}
		}
		id = -2 - int32(len(s.ids))
		s.ids[k] = id
	}
	return id
}

// MustPrecede reports whether an observation of source srcA at time ta
// (unix nanoseconds), seen before one of source srcB at tb, must have
// happened before it: a source keeps its order, and observations of
// different sources more than skew apart are as far apart as their
// clocks say. Closer ones (separate connections are flushed by separate
// threads; the log has its own clock) may have happened in either order.
func MustPrecede(srcA int32, ta int64, srcB int32, tb int64, skew time.Duration) bool {
	return srcA == srcB || tb-ta > int64(skew)
}
