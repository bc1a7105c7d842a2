package specrt_test

import (
	"math"
	"testing"

	"github.com/roomspec/roomspec/tla/gen/specrt"
)

// Checked arithmetic: the interpreter fails on 64-bit overflow, so must
// the compiled model; TLA+'s \div and % round toward negative infinity.
func TestArithmetic(t *testing.T) {
	ok := []struct {
		name string
		f    func() int
		want int
	}{
		{"add", func() int { return specrt.AddInt(2, 3) }, 5},
		{"add negative", func() int { return specrt.AddInt(math.MinInt, 0) }, math.MinInt},
		{"sub", func() int { return specrt.SubInt(2, 3) }, -1},
		{"sub to min", func() int { return specrt.SubInt(-1, math.MaxInt) }, math.MinInt},
		{"mul", func() int { return specrt.MulInt(-4, 3) }, -12},
		{"mul min by 1", func() int { return specrt.MulInt(math.MinInt, 1) }, math.MinInt},
		{"div", func() int { return specrt.FloorDiv(-7, 2) }, -4},
		{"div exact", func() int { return specrt.FloorDiv(-8, 2) }, -4},
		{"mod", func() int { return specrt.FloorMod(-7, 3) }, 2},
	}
	for _, tt := range ok {
		if got := tt.f(); got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, got, tt.want)
		}
	}
	overflow := map[string]func() int{
		"add":           func() int { return specrt.AddInt(math.MaxInt, 1) },
		"sub":           func() int { return specrt.SubInt(math.MinInt, 1) },
		"neg":           func() int { return specrt.SubInt(0, math.MinInt) },
		"mul":           func() int { return specrt.MulInt(math.MaxInt/2+1, 2) },
		"mul min by -1": func() int { return specrt.MulInt(math.MinInt, -1) },
	}
	for name, f := range overflow {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on overflow", name)
				}
			}()
			f()
		}()
	}
}
