package value

import (
	"fmt"
	"slices"
	"sync"
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
	e := c.NewEncoder()
	buf := e.Append(nil, vals...)
	got := make([]Value, len(vals))
	c.Read(buf, got)
	for i, v := range vals {
		require.True(t, Equal(v, got[i]), "%s read back as %s", Format(v), Format(got[i]))
		assert.Equal(t, Hash(v), Hash(got[i]), "%s", Format(v))
		assert.Equal(t, Format(v), Format(got[i]))
	}

	// Records of one shape share their domain once read back, also
	// when another encoder wrote one of them.
	two := make([]Value, 2)
	c.Read(append(e.Append(nil, rec("a", 1)), c.NewEncoder().Append(nil, rec("b", 2))...), two)
	assert.Same(t, &two[0].(*Func).Keys()[0], &two[1].(*Func).Keys()[0])
	// A tuple read back is still a sequence.
	one := make([]Value, 1)
	c.Read(e.Append(nil, NewTuple(Int(5), Int(6))), one)
	assert.True(t, one[0].(*Func).IsSeq())
	// Equal lazy sets share one entry of the table.
	n := len(c.atoms)
	e.Append(nil, &Interval{Lo: 1, Hi: 3})
	assert.Len(t, c.atoms, n)
}

// TestCodecConcurrent writes and reads from several goroutines at once,
// each adding atoms and domains of its own (run with -race).
func TestCodecConcurrent(t *testing.T) {
	c := NewCodec()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := c.NewEncoder()
			for i := range 200 {
				v := NewRecord([]string{fmt.Sprint("f", g, i%7)}, []Value{String(fmt.Sprint(g, i))})
				out := make([]Value, 1)
				c.Read(e.Append(nil, v), out)
				if !Equal(v, out[0]) {
					t.Errorf("%s read back as %s", Format(v), Format(out[0]))
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestNewFuncSizes updates functions of every size newFunc allocates
// specially, and one beyond: each keeps its other images.
func TestNewFuncSizes(t *testing.T) {
	for n := 1; n <= 8; n++ {
		keys := make([]Value, n)
		vals := make([]Value, n)
		for i := range keys {
			keys[i], vals[i] = Int(i+1), String(fmt.Sprint("v", i))
		}
		f := NewFunc(keys, slices.Clone(vals))
		g, ok := f.Update(Int(n), True)
		require.True(t, ok)
		vals[n-1] = True
		assert.True(t, Equal(NewFunc(keys, vals), g), "n=%d: %s", n, Format(g))
		assert.Len(t, g.Vals(), n)
	}
}
