package check

import (
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// queue is a level of states waiting to be expanded, kept as bytes
// (written by a value.Encoder): a level can hold hundreds of thousands of
// states, and as values they would be scanned by the garbage collector at
// every cycle, which then costs as much as the search itself. The workers
// write the bytes of the new states they find; the serial merge queues
// them, and the workers of the next level read them back.
type queue struct {
	// blocks hold the bytes, each state's within one block: blocks of a
	// fixed size are never copied as a growing slice would be.
	blocks [][]byte
	spans  []span
	vars   int // the length of every state
}

// span is where the bytes of a state are.
type span struct{ block, start, end int32 }

// queueBlock is the size of a block of a queue.
const queueBlock = 1 << 20

// push appends the bytes b of a state of n variables.
func (q *queue) push(b []byte, n int) {
	q.vars = n
	k := len(q.blocks)
	if k == 0 || cap(q.blocks[k-1])-len(q.blocks[k-1]) < len(b) {
		q.blocks = append(q.blocks, make([]byte, 0, max(queueBlock, len(b))))
		k++
	}
	blk := &q.blocks[k-1]
	start := len(*blk)
	*blk = append(*blk, b...)
	q.spans = append(q.spans, span{int32(k - 1), int32(start), int32(len(*blk))})
}

// state reads back state i, written into codec's tables.
func (q *queue) state(i int, codec *value.Codec) eval.State {
	sp := q.spans[i]
	s := make(eval.State, q.vars)
	codec.Read(q.blocks[sp.block][sp.start:sp.end], s)
	return s
}
