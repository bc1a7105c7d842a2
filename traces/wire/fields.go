package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

var (
	errEmpty      = errors.New("empty, want an ASCII decimal integer")
	errOutOfRange = errors.New("out of int64 range")
)

// clip quotes at most 32 bytes of b for an error message, so a huge frame
// cannot blow up a diagnostic.
func clip(b []byte) string {
	const max = 32
	if len(b) > max {
		return fmt.Sprintf("%q... (%d bytes)", b[:max], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// parseInt reads what Python's str(int) writes: an optional '-' and decimal
// digits, within int64.
func parseInt(b []byte) (int64, error) {
	// Up to 18 characters cannot overflow: skip the per-digit check.
	if len(b) > 0 && len(b) <= 18 {
		digits := b
		if b[0] == '-' {
			digits = b[1:]
		}
		var u int64
		ok := len(digits) > 0
		for _, c := range digits {
			c -= '0'
			if c > 9 {
				ok = false
				break
			}
			u = u*10 + int64(c)
		}
		if ok {
			if b[0] == '-' {
				return -u, nil
			}
			return u, nil
		}
	}
	return parseIntChecked(b)
}

// parseIntChecked is parseInt for any length, with the error messages.
func parseIntChecked(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, errEmpty
	}
	digits, neg := b, false
	if digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) == 0 {
		return 0, fmt.Errorf("not an ASCII decimal integer: %s", clip(b))
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	var u uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not an ASCII decimal integer: %s", clip(b))
		}
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, fmt.Errorf("%w: %s", errOutOfRange, clip(b))
		}
		u = u*10 + d
	}
	if neg {
		return int64(-u), nil // wraps: -(1<<63) has no positive twin in int64
	}
	return int64(u), nil
}

func checkASCII(b []byte) error {
	for i, c := range b {
		if c >= 0x80 {
			return fmt.Errorf("byte %d is 0x%02x, not ASCII: %s", i, c, clip(b))
		}
	}
	return nil
}

// elem is the element type of an SGLang little-endian array.
type elem interface{ ~int32 | ~uint32 | ~uint64 }

// decodeArray reads a frame of back-to-back little-endian elements of w
// bytes (numpy's tobytes(), struct.pack("<nQ")). An empty frame is an empty,
// non-nil slice, so JSON shows [] rather than null (null means absent).
func decodeArray[T elem](p *pool[T], b []byte, w int) ([]T, error) {
	if len(b)%w != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of %d-byte elements", len(b), w)
	}
	out := p.take(len(b) / w)
	if w == 4 {
		for i := range out {
			out[i] = T(binary.LittleEndian.Uint32(b))
			b = b[4:]
		}
	} else {
		for i := range out {
			out[i] = T(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
	}
	return out, nil
}

// decodePacked reads SGLang's pack_int_lists layout: nothing for an empty
// outer list, else n, then n inner byte lengths (u32 LE each), then the
// inner lists. Every length is checked against the frame before anything is
// allocated, and every byte must be accounted for.
func decodePacked[T elem](p *pool[T], lists *pool[[]T], b []byte, w int) ([][]T, error) {
	if len(b) == 0 {
		return [][]T{}, nil
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("pack_int_lists: %d bytes, too short for the list count", len(b))
	}
	n := uint64(binary.LittleEndian.Uint32(b))
	header := 4 + 4*n
	if header > uint64(len(b)) {
		return nil, fmt.Errorf("pack_int_lists: a header for %d lists needs %d bytes, frame has %d", n, header, len(b))
	}
	total := header
	for i := uint64(0); i < n; i++ {
		l := uint64(binary.LittleEndian.Uint32(b[4+4*i:]))
		if l%uint64(w) != 0 {
			return nil, fmt.Errorf("pack_int_lists: list %d has %d bytes, not a whole number of %d-byte elements", i, l, w)
		}
		total += l
	}
	if total != uint64(len(b)) {
		return nil, fmt.Errorf("pack_int_lists: header accounts for %d bytes, frame has %d", total, len(b))
	}
	out := lists.take(int(n))
	off := header
	for i := range out {
		l := uint64(binary.LittleEndian.Uint32(b[4+4*i:]))
		out[i], _ = decodeArray(p, b[off:off+l], w) // lengths checked above
		off += l
	}
	return out, nil
}

// reader decodes the fields of one identified form, keeping the first
// failure so that decoding code reads as a flat list of fields. Once a field
// has failed every later call returns a zero value.
type reader struct {
	parts [][]byte
	err   *FieldError
	a     *alloc
}

func (r *reader) fail(i int, field string, err error) {
	if r.err == nil {
		r.err = &FieldError{Frame: i, Field: field, Err: err}
	}
}

func (r *reader) ok() bool { return r.err == nil }

// done returns m, or, if a field did not decode, *Unknown of kind naming
// the first such field: the rule every form shares.
func (r *reader) done(kind Kind, m Message) Message {
	if r.err != nil {
		return unknown(kind, r.parts, r.err)
	}
	return m
}

// present reports whether optional frame i exists and is non-empty, which
// is how SGLang's from_zmq tells a field that was sent from one that was not.
func (r *reader) present(i int) bool { return r.err == nil && i < len(r.parts) && len(r.parts[i]) > 0 }

func (r *reader) int(i int, field string) int64 {
	if r.err != nil {
		return 0
	}
	v, err := parseInt(r.parts[i])
	if err != nil {
		r.fail(i, field, err)
	}
	return v
}

// optInt returns nil when frame i is absent or empty.
func (r *reader) optInt(i int, field string) *int64 {
	if !r.present(i) {
		return nil
	}
	v := r.int(i, field)
	if r.err != nil {
		return nil
	}
	p := r.a.i64.one()
	*p = v
	return p
}

func (r *reader) port(i int, field string) int {
	v := r.int(i, field)
	if r.err == nil && (v < 0 || v > 65535) {
		r.fail(i, field, fmt.Errorf("port %d out of range 0..65535", v))
	}
	return int(v)
}

func (r *reader) str(i int, field string) string {
	if r.err != nil {
		return ""
	}
	if s, ok := r.a.recent(i, r.parts[i]); ok {
		return s // checked when it was first seen
	}
	if err := checkASCII(r.parts[i]); err != nil {
		r.fail(i, field, err)
		return ""
	}
	return r.a.str(i, r.parts[i])
}

// flag reads is_dummy's "0" or "1".
func (r *reader) flag(i int, field string) bool {
	if r.err != nil {
		return false
	}
	switch string(r.parts[i]) {
	case "0":
		return false
	case "1":
		return true
	}
	r.fail(i, field, fmt.Errorf("want \"0\" or \"1\", got %s", clip(r.parts[i])))
	return false
}

// bytes copies an opaque frame.
func (r *reader) bytes(i int) []byte {
	if r.err != nil {
		return nil
	}
	return append([]byte{}, r.parts[i]...)
}

func array[T elem](r *reader, i int, field string, w int, p *pool[T]) []T {
	if r.err != nil {
		return nil
	}
	v, err := decodeArray(p, r.parts[i], w)
	if err != nil {
		r.fail(i, field, err)
	}
	return v
}

func packed[T elem](r *reader, i int, field string, w int, p *pool[T], lists *pool[[]T]) [][]T {
	if r.err != nil {
		return nil
	}
	v, err := decodePacked(p, lists, r.parts[i], w)
	if err != nil {
		r.fail(i, field, err)
	}
	return v
}

// Optional variants: nil when the frame is absent (beyond the message).
// A present but empty frame is an empty list, as SGLang sends for "none".

func optArray[T elem](r *reader, i int, field string, w int, p *pool[T]) []T {
	if r.err != nil || i >= len(r.parts) {
		return nil
	}
	return array(r, i, field, w, p)
}

func optPacked[T elem](r *reader, i int, field string, w int, p *pool[T], lists *pool[[]T]) [][]T {
	if r.err != nil || i >= len(r.parts) {
		return nil
	}
	return packed(r, i, field, w, p, lists)
}

// optPtr reads a staging base pointer: 8 bytes (u64 LE) or empty.
func (r *reader) optPtr(i int, field string) *uint64 {
	if !r.present(i) {
		return nil
	}
	if len(r.parts[i]) != 8 {
		r.fail(i, field, fmt.Errorf("%d bytes, want 8 (u64) or none", len(r.parts[i])))
		return nil
	}
	p := r.a.u64.one()
	*p = binary.LittleEndian.Uint64(r.parts[i])
	return p
}

// optList reads a comma-separated ASCII list such as "VRAM,VRAM".
func (r *reader) optList(i int, field string) []string {
	if !r.present(i) {
		return nil
	}
	s := r.str(i, field)
	if r.err != nil {
		return nil
	}
	return strings.Split(s, ",")
}
