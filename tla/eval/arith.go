package eval

import (
	"math"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

func (c *ctx) arith(op tla.Op, x, y int64, at tla.Pos) value.Value {
	overflow := func() {
		c.fail(at, "integer overflow: %d %s %d does not fit in 64 bits", x, op, y)
	}
	switch op {
	case tla.OpPlus:
		r := x + y
		if (x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0) {
			overflow()
		}
		return value.Int(r)
	case tla.OpMinus:
		r := x - y
		if (x >= 0 && y < 0 && r < 0) || (x < 0 && y > 0 && r >= 0) {
			overflow()
		}
		return value.Int(r)
	case tla.OpTimes:
		r, ok := mulInt(x, y)
		if !ok {
			overflow()
		}
		return value.Int(r)
	case tla.OpDiv, tla.OpRealDiv:
		if y == 0 {
			c.fail(at, "division by zero")
		}
		if op == tla.OpRealDiv {
			c.fail(at, "real division / is not supported; use \\div")
		}
		q := x / y
		if (x%y != 0) && ((x < 0) != (y < 0)) {
			q-- // TLA+'s \div rounds toward negative infinity
		}
		return value.Int(q)
	case tla.OpMod:
		if y <= 0 {
			c.fail(at, "%d %% %d: the divisor must be positive", x, y)
		}
		r := x % y
		if r < 0 {
			r += y
		}
		return value.Int(r)
	case tla.OpExp:
		if y < 0 {
			c.fail(at, "negative exponent in %d^%d", x, y)
		}
		// Square and multiply: a huge exponent of 0, 1 or -1 must not
		// loop y times. b is squared only while a higher bit of y remains,
		// so an overflowing square means the result overflows too.
		r, b := int64(1), x
		for e := y; e > 0; e >>= 1 {
			var ok bool
			if e&1 == 1 {
				if r, ok = mulInt(r, b); !ok {
					overflow()
				}
			}
			if e > 1 {
				if b, ok = mulInt(b, b); !ok {
					overflow()
				}
			}
		}
		return value.Int(r)
	}
	c.fail(at, "unknown arithmetic operator %s", op)
	return nil
}

// mulInt multiplies with overflow detection; the product may be
// math.MinInt64, whose absolute value does not fit.
func mulInt(x, y int64) (int64, bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	r := x * y
	if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		return 0, false
	}
	return r, true
}
