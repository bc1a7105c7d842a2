package value

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCodecRoundTrip reads back every kind of value a state may hold, in
// one buffer, equal and in canonical form; records of one shape share
// their domain when read back.
func TestCodecRoundTrip(t *testing.T) {
	m := &Model{Name: "r1"}
	shape := NewRecordShape([]string{"type", "bal"})
	rec := func(ty string, bal int) *Func { return shape.Record([]Value{String(ty), Int(bal)}) }
	vals := []Value{
		True, False, Int(0), Int(-7), Int(1 << 40), String(""), String("phase1a"), m,
		EmptySet, EmptyFunc, NewTuple(),
		NewSet(Int(3), Int(1), String("a"), m),
		NewTuple(Int(1), NewTuple(String("x"), Int(2))),
		NewSet(rec("phase1a", 1), rec("phase2a", 0)),
		// A function whose arguments are tuples: its domain holds
		// functions, written while the domain is looked up.
		NewFunc([]Value{NewTuple(Int(1), Int(2)), NewTuple(Int(2), Int(1))}, []Value{m, NewSet(Int(1))}),
		NewRecord([]string{"f"}, []Value{NewFunc([]Value{NewTuple(Int(1))}, []Value{True})}),
		&Interval{Lo: 1, Hi: 3},
		&Subset{Base: NewSet(Int(1), Int(2))},
	}
	c := NewCodec()
	var buf []byte
	for _, v := range vals {
		buf = c.Append(buf, v)
	}
	rest := buf
	for _, v := range vals {
		var got Value
		got, rest = c.Read(rest)
		require.True(t, Equal(v, got), "%s read back as %s", Format(v), Format(got))
		assert.Equal(t, Hash(v), Hash(got), "%s", Format(v))
		assert.Equal(t, Format(v), Format(got))
	}
	assert.Empty(t, rest)

	// Records of one shape share their domain once read back.
	b := c.Append(c.Append(nil, rec("a", 1)), rec("b", 2))
	r1, b := c.Read(b)
	r2, _ := c.Read(b)
	assert.Same(t, &r1.(*Func).Keys()[0], &r2.(*Func).Keys()[0])
	// A tuple read back is still a sequence.
	tup, _ := c.Read(c.Append(nil, NewTuple(Int(5), Int(6))))
	assert.True(t, tup.(*Func).IsSeq())
	// Equal lazy sets share one entry of the table.
	n := len(c.atoms)
	c.Append(nil, &Interval{Lo: 1, Hi: 3})
	assert.Len(t, c.atoms, n)
}
