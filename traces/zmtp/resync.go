package zmtp

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Resynchronization.
//
// Every byte offset after the loss point (or only TCP segment starts, with
// Options.SegmentStartsOnly) is a candidate frame boundary. A walker follows
// the chain of frame headers from a candidate: each header must be possible
// (reserved bits clear, no command with MORE, a long size only above 255 as
// every encoder writes it, size within MaxFrameSize, a command's name known)
// and the next header sits exactly where the body ends. Walkers run over the
// bytes as they arrive, so a long frame costs no buffering.
//
// A walker's boundary is the end of the first final frame (MORE clear) after
// ResyncChain non-empty frames: frames before it may belong to a message
// whose start was lost. The walker is believed once ResyncChain more
// non-empty frames chain after the boundary and the chain holds through
// every buffered byte; without that look-ahead a chain of noise that happens
// to end just where the buffered bytes end would be trusted. Decoding then
// restarts at the boundary, replaying the buffered bytes.
//
// Each header position is owned by the first walker that steps on it. A
// candidate already owned has the same future as its owner and is not
// started, and a walker that steps on a position owned by another walker
// stops there: the owner, live or dead, already decided that future. This
// keeps the search linear even on runs of zero bytes (they parse as empty
// frames and, being empty, never confirm anything).
//
// The default chain of six non-empty frames on each side of the boundary
// was measured (TestResyncFalsePositives): starting at every offset of
// streams of random, mostly-zero binary parts, chains of 4 and 5 still
// accepted noise now and then; 6 never did, at the cost of about one and a
// half messages more per resync.
//
// Bytes are kept only from the earliest position a live walker may still
// need, and never more than ResyncWindow of them.

const (
	resyncPiece    = 64 << 10 // Feed hands resync at most this much at once
	maxWalkers     = 1024     // live candidates; more wait for the scan
	maxWalkFrames  = 512      // frames a walker may chain without confirming
	trimSlack      = 4 << 10  // bytes kept before compacting the buffer
	maxShortFrame  = 255
	maxCommandName = 255
)

type walker struct {
	gone     bool  // rejected or merged; removed at the end of the round
	start    int64 // candidate offset
	pos      int64 // offset of the next header
	frames   int
	nonEmpty int
	boundary int64 // end of the first final frame after chain non-empty ones; -1 until then
	after    int   // non-empty frames after boundary
}

type markAt struct {
	off int64
	m   Mark
}

type resync struct {
	from    int64    // offset where decoding stopped; Skipped counts from here
	base    int64    // offset of buf[0]
	buf     []byte   // bytes not yet ruled out
	owner   []uint8  // parallel to buf: ownFree, ownNone or ownClaimed
	marks   []markAt // provenance of buf, ascending
	scan    int64    // next offset to try as a candidate
	walkers []walker

	spareBuf   []byte
	spareMarks []markAt
}

func (r *resync) end() int64 { return r.base + int64(len(r.buf)) }

// restart forgets everything buffered: the next byte is not contiguous.
func (r *resync) restart(off int64) {
	r.base, r.scan = off, off
	r.buf, r.owner, r.marks = r.buf[:0], r.owner[:0], r.marks[:0]
	r.walkers = r.walkers[:0]
}

func (r *resync) release() {
	*r = resync{from: r.from}
}

// markOf returns the provenance of the byte at off.
func (r *resync) markOf(off int64) Mark {
	i := sort.Search(len(r.marks), func(i int) bool { return r.marks[i].off > off })
	if i == 0 {
		if len(r.marks) > 0 {
			return r.marks[0].m
		}
		return Mark{}
	}
	return r.marks[i-1].m
}

// enterResync starts a search: decoding stopped at offset from, and the
// search starts with seed (whose first byte is at offset base).
func (d *Decoder) enterResync(from, base int64, seed []byte, m Mark) {
	d.state = stResync
	d.dropPartial(m, from, "resync")
	d.rs.from = from
	d.rs.restart(base)
	if len(seed) > 0 {
		d.rsAppend(seed, m, false, base)
	}
}

// rsAppend adds bytes at offset base to the search buffer.
func (d *Decoder) rsAppend(data []byte, m Mark, segStart bool, base int64) {
	r := &d.rs
	if len(r.buf) == 0 {
		r.base = base
		r.scan = max(r.scan, base)
	}
	if base != r.end() {
		// Cannot happen: callers hand over contiguous bytes. Should it
		// anyway, treat it as a discontinuity rather than misplace bytes.
		r.restart(base)
	}
	if n := len(r.marks); n == 0 || r.marks[n-1].m != m {
		r.marks = append(r.marks, markAt{base, m})
	}
	r.buf = append(r.buf, data...)
	o := ownFree
	if d.opts.SegmentStartsOnly {
		o = ownNone
	}
	for range data {
		r.owner = append(r.owner, o)
	}
	if segStart {
		r.owner[base-r.base] = ownFree
	}
}

// rsRun searches the buffered bytes and, each time a candidate is
// confirmed, replays the bytes after its boundary through the frame
// decoder, which may start another search.
func (d *Decoder) rsRun() {
	for d.state == stResync {
		b, ok := d.rsSearch()
		if !ok {
			return
		}
		d.rsAccept(b)
	}
}

const (
	ownFree    uint8 = iota // a candidate nobody stepped on
	ownNone                 // not a candidate (SegmentStartsOnly), nobody stepped on
	ownClaimed              // a walker stepped on it as a header
)

type walkResult uint8

const (
	walkPending walkResult = iota
	walkReject
)

// step advances w over the bytes up to end, claiming the header positions
// it passes. It returns walkPending when it needs more bytes and walkReject
// when the chain breaks or reaches a position another walker claimed.
func (d *Decoder) step(w *walker, end int64) walkResult {
	r := &d.rs
	chain := d.opts.ResyncChain
	for w.pos < end {
		if w.boundary < 0 && w.frames >= maxWalkFrames {
			return walkReject
		}
		p := w.pos - r.base
		if r.owner[p] == ownClaimed {
			return walkReject
		}
		b := r.buf[p:]
		f := b[0]
		if f&flagsRsvd != 0 || f&(flagCommand|flagMore) == flagCommand|flagMore {
			return walkReject
		}
		hl := 2
		if f&flagLong != 0 {
			hl = 9
		}
		if len(b) < hl {
			return walkPending
		}
		var size uint64
		if hl == 2 {
			size = uint64(b[1])
		} else {
			size = binary.BigEndian.Uint64(b[1:9])
			if size <= maxShortFrame {
				return walkReject
			}
		}
		if size > d.opts.MaxFrameSize {
			return walkReject
		}
		if f&flagCommand != 0 {
			if size == 0 {
				return walkReject
			}
			if len(b) < hl+1 {
				return walkPending
			}
			nl := int(b[hl])
			if nl == 0 || uint64(1+nl) > size {
				return walkReject
			}
			if len(b) < hl+1+nl {
				return walkPending
			}
			if !knownCommand(b[hl+1 : hl+1+nl]) {
				return walkReject
			}
		}
		r.owner[p] = ownClaimed
		w.frames++
		if size > 0 {
			w.nonEmpty++
		}
		next := w.pos + int64(hl) + int64(size)
		switch {
		case w.boundary >= 0:
			if size > 0 {
				w.after++
			}
		case w.nonEmpty >= chain && f&(flagCommand|flagMore) == 0:
			w.boundary = next
		}
		w.pos = next
	}
	return walkPending
}

// advance steps w to end. It returns the boundary of a walker that became
// confirmed.
func (d *Decoder) advance(w *walker, end int64) (int64, bool) {
	if d.step(w, end) == walkReject {
		w.gone = true
		return 0, false
	}
	if w.boundary >= 0 && w.after >= d.opts.ResyncChain {
		return w.boundary, true
	}
	return 0, false
}

// rsSearch advances the walkers and starts new ones. It returns the
// boundary of a confirmed candidate, if any.
func (d *Decoder) rsSearch() (int64, bool) {
	b, ok := d.rsRound(d.rs.end())
	d.rs.compact()
	if !ok {
		d.rsTrim()
	}
	return b, ok
}

// compact removes the walkers that are gone.
func (r *resync) compact() {
	live := r.walkers[:0]
	for _, w := range r.walkers {
		if !w.gone {
			live = append(live, w)
		}
	}
	clear(r.walkers[len(live):])
	r.walkers = live
}

func (d *Decoder) rsRound(end int64) (int64, bool) {
	r := &d.rs
	for i := range r.walkers {
		if r.walkers[i].gone {
			continue
		}
		if b, ok := d.advance(&r.walkers[i], end); ok {
			return b, true
		}
	}
	r.compact()
	for r.scan < end {
		if len(r.walkers) >= maxWalkers {
			// Most candidates die at once; only the live ones count.
			if r.compact(); len(r.walkers) >= maxWalkers {
				break
			}
		}
		c := r.scan
		r.scan++
		if r.owner[c-r.base] != ownFree {
			continue
		}
		w := walker{start: c, pos: c, boundary: -1}
		if b, ok := d.advance(&w, end); ok {
			return b, true
		}
		if !w.gone {
			r.walkers = append(r.walkers, w)
		}
	}
	return 0, false
}

// keepFrom is the first offset a live walker or the scan may still read.
func (r *resync) keepFrom() int64 {
	k := r.scan
	for i := range r.walkers {
		w := &r.walkers[i]
		need := w.pos
		if w.boundary >= 0 {
			need = w.boundary
		}
		k = min(k, need)
	}
	return k
}

// rsTrim enforces the window and compacts the buffer.
func (d *Decoder) rsTrim() {
	r := &d.rs
	end := r.end()
	if limit := end - int64(d.opts.ResyncWindow); r.keepFrom() < limit {
		// Give up the oldest evidence: walkers that would need bytes from
		// before the window, and unscanned candidates there.
		live := r.walkers[:0]
		for _, w := range r.walkers {
			need := w.pos
			if w.boundary >= 0 {
				need = w.boundary
			}
			if need >= limit && !w.gone {
				live = append(live, w)
			}
		}
		r.walkers = live
		r.scan = max(r.scan, limit)
	}
	k := min(r.keepFrom(), end)
	drop := int(k - r.base)
	if drop <= trimSlack || drop < len(r.buf)/2 {
		return
	}
	n := copy(r.buf, r.buf[drop:])
	r.buf = r.buf[:n]
	copy(r.owner, r.owner[drop:])
	r.owner = r.owner[:n]
	// Keep the mark covering k and those after it.
	i := sort.Search(len(r.marks), func(i int) bool { return r.marks[i].off > k })
	if i > 0 {
		i--
	}
	m := copy(r.marks, r.marks[i:])
	r.marks = r.marks[:m]
	r.base = k
}

// rsAccept resumes decoding at boundary b and replays the buffered bytes
// after it.
func (d *Decoder) rsAccept(b int64) {
	r := &d.rs
	last := r.markOf(b - 1)
	d.report(Diagnostic{Kind: KindResynced, Mark: last, Offset: b, Skipped: b - r.from,
		Text: fmt.Sprintf("frame boundaries found at offset %d after skipping %d bytes", b, b-r.from)})

	// Detach the buffer: replaying may start a new search, which must not
	// write into the bytes being replayed.
	buf, base, marks := r.buf, r.base, r.marks
	r.buf, r.marks = r.spareBuf[:0], r.spareMarks[:0]
	r.spareBuf, r.spareMarks = nil, nil
	r.restart(b)
	d.state = stFrames

	end := base + int64(len(buf))
	for i, mk := range marks {
		s := max(mk.off, b)
		e := end
		if i+1 < len(marks) {
			e = marks[i+1].off
		}
		if s >= e {
			continue
		}
		chunk := buf[s-base : e-base]
		if d.state == stFrames {
			n := d.frames(chunk, mk.m, s)
			chunk = chunk[n:]
			s += int64(n)
		}
		if len(chunk) > 0 && d.state == stResync {
			d.rsAppend(chunk, mk.m, false, s)
		}
	}
	r.spareBuf, r.spareMarks = buf[:0], marks[:0]
}
