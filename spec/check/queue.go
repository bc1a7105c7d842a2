package check

import (
	"github.com/roomspec/roomspec/spec/tla/eval"
	"github.com/roomspec/roomspec/spec/tla/value"
)

// queue is a level of states waiting to be expanded, kept as bytes: a
// level can hold hundreds of thousands of states, and as values they
// would be scanned by the garbage collector at every cycle, which then
// costs as much as the search itself. States are written by the serial
// merge and read back by the workers that expand them.
type queue struct {
	codec *value.Codec
	data  []byte
	ends  []int // ends[i] is where the bytes of state i end
	vars  int   // the length of every state
}

func newQueue(codec *value.Codec) *queue { return &queue{codec: codec} }

// push appends s.
func (q *queue) push(s eval.State) {
	q.vars = len(s)
	for _, v := range s {
		q.data = q.codec.Append(q.data, v)
	}
	q.ends = append(q.ends, len(q.data))
}

// len returns the number of states.
func (q *queue) len() int { return len(q.ends) }

// state reads back state i.
func (q *queue) state(i int) eval.State {
	start := 0
	if i > 0 {
		start = q.ends[i-1]
	}
	buf := q.data[start:q.ends[i]]
	s := make(eval.State, q.vars)
	for j := range s {
		s[j], buf = q.codec.Read(buf)
	}
	return s
}
