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
	// blocks hold the bytes, each state's within one block: blocks of a
	// fixed size are never copied as a growing slice would be.
	blocks  [][]byte
	spans   []span
	vars    int // the length of every state
	scratch []byte
}

// span is where the bytes of a state are.
type span struct{ block, start, end int32 }

// queueBlock is the size of a block of a queue.
const queueBlock = 1 << 20

func newQueue(codec *value.Codec) *queue { return &queue{codec: codec} }

// push appends s.
func (q *queue) push(s eval.State) {
	q.vars = len(s)
	q.scratch = q.scratch[:0]
	for _, v := range s {
		q.scratch = q.codec.Append(q.scratch, v)
	}
	n := len(q.blocks)
	if n == 0 || cap(q.blocks[n-1])-len(q.blocks[n-1]) < len(q.scratch) {
		q.blocks = append(q.blocks, make([]byte, 0, max(queueBlock, len(q.scratch))))
		n++
	}
	b := &q.blocks[n-1]
	start := len(*b)
	*b = append(*b, q.scratch...)
	q.spans = append(q.spans, span{int32(n - 1), int32(start), int32(len(*b))})
}

// state reads back state i.
func (q *queue) state(i int) eval.State {
	sp := q.spans[i]
	buf := q.blocks[sp.block][sp.start:sp.end]
	s := make(eval.State, q.vars)
	for j := range s {
		s[j], buf = q.codec.Read(buf)
	}
	return s
}
