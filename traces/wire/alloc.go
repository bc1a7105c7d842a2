package wire

// Decoder decodes messages as [Decode] does, with the same results, but
// amortizes allocations over many messages: the decoded values and their
// index arrays are carved from blocks it allocates a few kilobytes at a
// time, and repeated short strings (addresses, agent names, sessions) are
// shared rather than copied again. A decoded value is never written again
// after Decode returns, so callers may keep it; the price of keeping one is
// that its block (a few kilobytes) stays alive with it.
//
// A Decoder is not safe for concurrent use. The zero value is ready to use.
type Decoder struct {
	// Reuse makes each Decode take back the memory of the value the
	// previous call returned, so that a steady stream is decoded without
	// allocating: a value is then valid only until the next call, and a
	// caller that keeps one must decode its parts again with [Decode].
	// Set it before the first call.
	Reuse bool
	a     alloc
}

// Decode classifies and decodes one multipart message, exactly as the
// package-level [Decode] does.
func (d *Decoder) Decode(parts [][]byte) Message {
	if d.a.strs == nil {
		d.a.init(d.Reuse)
	} else if d.a.reuse {
		d.a.reset()
	}
	return decode(&d.a, parts)
}

// Block sizes, in elements. A block holds about 8 KiB of its type.
const (
	structBlock = 64
	indexBlock  = 2048
	listBlock   = 256
	int64Block  = 512
	// Strings longer than maxInternLen, or beyond maxInterned distinct
	// ones, are copied as usual: the table stays small whatever the input.
	maxInternLen = 64
	maxInterned  = 4096
)

// alloc hands out the memory of decoded values. Its zero value (used by
// the package-level Decode, and never written to) allocates every value
// on its own.
type alloc struct {
	strs  map[string]string
	last  [registrationMaxFrames]string // by frame index: see recent
	reuse bool

	i32  pool[int32]
	u32  pool[uint32]
	u64  pool[uint64]
	i32s pool[[]int32]
	u32s pool[[]uint32]
	u64s pool[[]uint64]
	i64  pool[int64]

	transferInfo         pool[TransferInfo]
	abort                pool[Abort]
	abortAck             pool[AbortAck]
	mooncakeTransferInfo pool[MooncakeTransferInfo]
	mooncakeStatus       pool[MooncakeStatus]
}

var unpooled = &alloc{}

func (a *alloc) init(reuse bool) {
	a.strs = make(map[string]string)
	a.reuse = reuse
	a.forEach(func(r *bool) { *r = reuse })
	a.i32.block, a.u32.block, a.u64.block = indexBlock, indexBlock, indexBlock/2
	a.i32s.block, a.u32s.block, a.u64s.block = listBlock, listBlock, listBlock
	a.i64.block = int64Block
	a.transferInfo.block = structBlock
	a.abort.block = structBlock
	a.abortAck.block = structBlock
	a.mooncakeTransferInfo.block = structBlock
	a.mooncakeStatus.block = structBlock
}

// forEach calls f with the reuse flag of every pool.
func (a *alloc) forEach(f func(reuse *bool)) {
	f(&a.i32.reuse)
	f(&a.u32.reuse)
	f(&a.u64.reuse)
	f(&a.i32s.reuse)
	f(&a.u32s.reuse)
	f(&a.u64s.reuse)
	f(&a.i64.reuse)
	f(&a.transferInfo.reuse)
	f(&a.abort.reuse)
	f(&a.abortAck.reuse)
	f(&a.mooncakeTransferInfo.reuse)
	f(&a.mooncakeStatus.reuse)
}

// reset takes back everything handed out (Decoder.Reuse).
func (a *alloc) reset() {
	a.i32.reset()
	a.u32.reset()
	a.u64.reset()
	a.i32s.reset()
	a.u32s.reset()
	a.u64s.reset()
	a.i64.reset()
	a.transferInfo.reset()
	a.abort.reset()
	a.abortAck.reset()
	a.mooncakeTransferInfo.reset()
	a.mooncakeStatus.reset()
}

// recent returns the string last decoded from frame i of a message, if b
// equals it: consecutive messages of a stream mostly repeat their
// addresses and names, and a comparison is cheaper than a map lookup.
func (a *alloc) recent(i int, b []byte) (string, bool) {
	if a.strs == nil || i >= len(a.last) || a.last[i] != string(b) {
		return "", false
	}
	return a.last[i], true
}

// str returns b, the ASCII frame i, as a string, shared with earlier equal
// strings when the alloc interns.
func (a *alloc) str(i int, b []byte) string {
	if a.strs == nil {
		return string(b)
	}
	s, ok := a.strs[string(b)] // no allocation for the lookup
	if !ok {
		s = string(b)
		if len(b) <= maxInternLen && len(a.strs) < maxInterned {
			a.strs[s] = s
		}
	}
	if i < len(a.last) {
		a.last[i] = s
	}
	return s
}

// pool carves slices of T from blocks of block elements; with block 0 it
// allocates each slice on its own and never changes. A reusing pool hands
// its current block out again after reset.
type pool[T any] struct {
	free  []T
	cur   []T // the current block, whole
	block int
	reuse bool
}

func (p *pool[T]) reset() { p.free = p.cur }

// take returns a slice of n elements, non-nil even when empty (JSON shows
// [] for it, null for an absent field), for the caller to fill: in a
// reusing pool it holds the previous message's values. Capacity is
// clipped so that appending cannot reach a neighbour.
func (p *pool[T]) take(n int) []T {
	if n == 0 {
		return []T{}
	}
	if p.block == 0 || n > p.block/4 {
		return make([]T, n)
	}
	if len(p.free) < n {
		p.free = make([]T, p.block)
		p.cur = p.free
	}
	s := p.free[:n:n]
	p.free = p.free[n:]
	return s
}

// one returns a pointer to a zeroed T.
func (p *pool[T]) one() *T {
	if p.block == 0 {
		return new(T)
	}
	v := &p.take(1)[0]
	if p.reuse {
		var zero T
		*v = zero
	}
	return v
}
