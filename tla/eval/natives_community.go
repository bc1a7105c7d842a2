package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// communityNatives are the operators of the CommunityModules (library
// modules SequencesExt, FiniteSetsExt, Functions, BagsExt, Combinatorics,
// Bitwise, IOUtils, Json, VectorClocks, DyadicRationals, SVG, Graphs)
// that TLC computes in Java (tlc2/overrides of tlaplus/CommunityModules):
// each gives the value TLC's Java gives, which for a fold of an operator
// that is not commutative depends on the order of application, and for
// SetToSeq on the order in which TLC enumerates a set.
func communityNatives() map[string]map[string]native {
	return map[string]map[string]native{
		"SequencesExt": {
			"SetToSeqs":           nativeSetToSeqs,
			"Contains":            nativeContains,
			"IsPrefix":            nativeIsPrefix,
			"SelectInSeq":         selectInSeq(false, false),
			"SelectInSubSeq":      selectInSeq(false, true),
			"SelectLastInSeq":     selectInSeq(true, false),
			"SelectLastInSubSeq":  selectInSeq(true, true),
			"LongestCommonPrefix": nativeLongestCommonPrefix,
			"FoldSeq":             nativeFoldSeq,
			"FoldLeft":            foldSeq(false, false),
			"FoldRight":           foldSeq(true, false),
			"FoldLeftDomain":      foldSeq(false, true),
			"FoldRightDomain":     foldSeq(true, true),
			"ReplaceFirstSubSeq":  replaceSubSeq(false),
			"ReplaceAllSubSeqs":   replaceSubSeq(true),
		},
		"FiniteSetsExt": {
			"FoldSet":  nativeFoldSet,
			"Quantify": nativeQuantify,
			"kSubset":  nativeKSubset,
			"Max":      extremum(">="),
			"Min":      extremum("<="),
		},
		"Functions": {
			"FoldFunction":      nativeFoldFunction,
			"FoldFunctionOnSet": nativeFoldFunctionOnSet,
			"IsInjective":       nativeIsInjective,
			"AntiFunction":      nativeAntiFunction,
		},
		"BagsExt":       {"FoldBag": nativeFoldBag},
		"Combinatorics": {"choose": nativeChoose},
		"Bitwise": {
			"And":    bitwise("&", func(x, y int64) int64 { return x & y }),
			"Or":     bitwise("|", func(x, y int64) int64 { return x | y }),
			"Xor":    bitwise("^^", func(x, y int64) int64 { return x ^ y }),
			"Not":    nativeBitNot,
			"shiftR": nativeShiftR,
		},
		"IOUtils": {
			"IOEnv":             nativeIOEnv,
			"atoi":              nativeAtoi,
			"Deserialize":       nativeDeserialize,
			"Serialize":         noIO("Serialize"),
			"IOSerialize":       noIO("IOSerialize"),
			"IODeserialize":     unsupported("IODeserialize", "it reads TLC's binary serialization of values"),
			"IOExec":            noExec("IOExec"),
			"IOEnvExec":         noExec("IOEnvExec"),
			"IOExecTemplate":    noExec("IOExecTemplate"),
			"IOEnvExecTemplate": noExec("IOEnvExecTemplate"),
		},
		"Json": {
			"JsonDeserialize":   nativeJSONDeserialize(false),
			"ndJsonDeserialize": nativeJSONDeserialize(true),
		},
		"VectorClocks":    {"CausalOrder": nativeCausalOrder},
		"DyadicRationals": {"Reduce": nativeReduce},
		"SVG": {
			"SVGElemToString":           nativeSVGElemToString,
			"NodeOfRingNetwork":         nativeNodeOfRingNetwork,
			"PointOnLine":               nativePointOnLine,
			"NodesOfDirectedMultiGraph": unsupported("NodesOfDirectedMultiGraph", "TLC lays the graph out with a graph-drawing library"),
		},
		"Graphs": {
			"IsStronglyConnected": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return c.graphOf(a[0], at, true).stronglyConnected()
			},
		},
	}
}

func unsupported(name, why string) native {
	return func(c *ctx, at tla.Pos, _ []value.Value, _ []*closure) value.Value {
		c.fail(at, "%s is not supported by roomspec: %s", name, why)
		return nil
	}
}

func noExec(name string) native {
	return unsupported(name, "a model check by roomspec runs no command")
}

// boolOf applies a boolean operator argument.
func (c *ctx) boolOf(op *closure, args []value.Value, what string, at tla.Pos) bool {
	v := c.callClosure(op, args, at)
	b, ok := v.(value.Bool)
	if !ok {
		c.fail(at, "%s must be a boolean, found %s", what, value.Format(v))
	}
	return bool(b)
}

func nativeSetToSeqs(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	elems := c.enumerateValue(at, c.asSet(a[0], at)).Elems()
	if len(elems) > 10 {
		c.fail(at, "SetToSeqs of a set of %d elements: %d! sequences are too many to enumerate", len(elems), len(elems))
	}
	var out []value.Value
	perm := make([]value.Value, 0, len(elems))
	used := make([]bool, len(elems))
	var rec func()
	rec = func() {
		if len(perm) == len(elems) {
			out = append(out, value.NewTuple(slices.Clone(perm)...))
			return
		}
		for i, e := range elems {
			if !used[i] {
				used[i] = true
				perm = append(perm, e)
				rec()
				perm = perm[:len(perm)-1]
				used[i] = false
			}
		}
	}
	rec()
	return value.NewSetOwned(out)
}

func nativeContains(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	for _, x := range c.asSeq(a[0], at).Vals() {
		if c.equal(x, a[1], at) {
			return value.True
		}
	}
	return value.False
}

func nativeIsPrefix(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	if s, ok := a[0].(value.String); ok {
		if t, ok := a[1].(value.String); ok {
			return value.Bool(strings.HasPrefix(string(t), string(s)))
		}
	}
	s, t := c.asSeq(a[0], at).Vals(), c.asSeq(a[1], at).Vals()
	if len(s) > len(t) {
		return value.False
	}
	for i := range s {
		if !c.equal(s[i], t[i], at) {
			return value.False
		}
	}
	return value.True
}

// selectInSeq is SelectInSeq and its kin: the first (last) index of the
// sequence, or of its part from..to, whose element passes the test; 0 if
// none.
func selectInSeq(last, sub bool) native {
	return func(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
		s := c.asSeq(a[0], at).Vals()
		test := ops[1]
		from, to := int64(1), int64(len(s))
		if sub {
			from, to, test = c.asInt(a[1], at), c.asInt(a[2], at), ops[3]
			if from > to {
				return value.Int(0)
			}
			if from < 1 || from > int64(len(s)) || to < 1 || to > int64(len(s)) {
				c.fail(at, "%d..%d is not in the domain of the sequence %s", from, to, value.Format(a[0]))
			}
		}
		for k := range to - from + 1 {
			i := from + k
			if last {
				i = to - k
			}
			if c.boolOf(test, []value.Value{s[i-1]}, "the test", at) {
				return value.Int(i)
			}
		}
		return value.Int(0)
	}
}

func nativeLongestCommonPrefix(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	elems := c.enumerateValue(at, c.asSet(a[0], at)).Elems()
	if len(elems) == 0 {
		c.fail(at, "LongestCommonPrefix of the empty set")
	}
	if _, ok := elems[0].(value.String); ok {
		prefix := string(elems[0].(value.String))
		for _, e := range elems[1:] {
			s, ok := e.(value.String)
			if !ok {
				c.fail(at, "LongestCommonPrefix of %s: not all strings", value.Format(a[0]))
			}
			n := 0
			for n < len(prefix) && n < len(s) && prefix[n] == s[n] {
				n++
			}
			prefix = prefix[:n]
		}
		return value.String(prefix)
	}
	prefix := c.asSeq(elems[0], at).Vals()
	for _, e := range elems[1:] {
		s := c.asSeq(e, at).Vals()
		n := 0
		for n < len(prefix) && n < len(s) && value.Equal(prefix[n], s[n]) {
			n++
		}
		prefix = prefix[:n]
	}
	return value.NewTuple(slices.Clone(prefix)...)
}

// foldSeq is FoldLeft (op(op(base, s[1]), s[2]) ...) and FoldRight
// (op(s[1], op(s[2], ... base))), over the elements or, for the Domain
// variants, over the indices.
func foldSeq(right, domain bool) native {
	return func(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
		seqArg, acc := a[2], a[1]
		if right {
			seqArg, acc = a[1], a[2]
		}
		s := c.asSeq(seqArg, at).Vals()
		elem := func(i int) value.Value {
			if domain {
				return value.Int(i + 1)
			}
			return s[i]
		}
		for k := range s {
			if right {
				i := len(s) - 1 - k
				acc = c.callClosure(ops[0], []value.Value{elem(i), acc}, at)
			} else {
				acc = c.callClosure(ops[0], []value.Value{acc, elem(k)}, at)
			}
		}
		return acc
	}
}

// nativeFoldSeq is FoldFunction on a sequence, as TLC's Java computes it.
func nativeFoldSeq(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
	f := c.asSeq(a[2], at)
	return c.foldFunctionOn(ops[0], a[1], f, f.Domain(), at)
}

// replaceSubSeq is ReplaceFirstSubSeq(r, s, t) and ReplaceAllSubSeqs(r, s,
// t): t with its first (every, leftmost first, not overlapping) occurrence
// of s replaced by r, on sequences or strings. An empty s occurs before
// every element of t (ReplaceAllSubSeqs) or at its start.
func replaceSubSeq(all bool) native {
	return func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
		if r, ok := a[0].(value.String); ok {
			s, ok1 := a[1].(value.String)
			t, ok2 := a[2].(value.String)
			if ok1 && ok2 {
				switch {
				case !all:
					return value.String(strings.Replace(string(t), string(s), string(r), 1))
				case s == t:
					return r
				case s == "":
					var b strings.Builder
					for _, ch := range []byte(t) {
						b.WriteString(string(r))
						b.WriteByte(ch)
					}
					return value.String(b.String())
				}
				return value.String(strings.ReplaceAll(string(t), string(s), string(r)))
			}
		}
		r, s, t := c.asSeq(a[0], at).Vals(), c.asSeq(a[1], at).Vals(), c.asSeq(a[2], at).Vals()
		if all && len(s) == len(t) && seqsEqual(s, t) {
			return a[0]
		}
		var out []value.Value
		if len(s) == 0 {
			if !all {
				return value.NewTuple(append(slices.Clone(r), t...)...)
			}
			for _, x := range t {
				out = append(append(out, r...), x)
			}
			return value.NewTuple(out...)
		}
		i, replaced := 0, false
		for i < len(t) {
			if (all || !replaced) && i+len(s) <= len(t) && seqsEqual(t[i:i+len(s)], s) {
				out = append(out, r...)
				i += len(s)
				replaced = true
				continue
			}
			out = append(out, t[i])
			i++
		}
		return value.NewTuple(out...)
	}
}

func seqsEqual(a, b []value.Value) bool {
	return slices.EqualFunc(a, b, value.Equal)
}

// nativeFoldSet is FoldSet(op, base, S): op(xn, ... op(x1, base)) for the
// elements x1 < ... < xn of S.
func nativeFoldSet(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
	acc := a[1]
	for _, x := range c.enumerateValue(at, c.asSet(a[2], at)).Elems() {
		acc = c.callClosure(ops[0], []value.Value{x, acc}, at)
	}
	return acc
}

func nativeQuantify(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
	n := 0
	for _, x := range c.enumerateValue(at, c.asSet(a[0], at)).Elems() {
		if c.boolOf(ops[1], []value.Value{x}, "the predicate of Quantify", at) {
			n++
		}
	}
	return value.Int(n)
}

// nativeKSubset is kSubset(k, S), the subsets of S with k elements,
// enumerated without going through SUBSET S.
func nativeKSubset(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	k := c.asInt(a[0], at)
	elems := c.enumerateValue(at, c.asSet(a[1], at)).Elems()
	if k < 0 || k > int64(len(elems)) {
		return value.EmptySet
	}
	var out []value.Value
	pick := make([]value.Value, 0, k)
	var rec func(from int)
	rec = func(from int) {
		if int64(len(pick)) == k {
			out = append(out, value.NewSet(pick...))
			if len(out) > value.MaxEnumerate {
				c.fail(at, "kSubset(%d, %s): %v", k, value.Format(a[1]), value.ErrTooLarge)
			}
			return
		}
		for i := from; i < len(elems); i++ {
			pick = append(pick, elems[i])
			rec(i + 1)
			pick = pick[:len(pick)-1]
		}
	}
	rec(0)
	return value.NewSetOwned(out)
}

// extremum is Max (cmp ">=") or Min ("<="): CHOOSE x \in S : \A y \in S :
// x cmp y, computed in one pass (the integers compared as >= and =<
// compare them).
func extremum(cmp string) native {
	return func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
		elems := c.enumerateValue(at, c.asSet(a[0], at)).Elems()
		if len(elems) == 0 {
			c.fail(at, "CHOOSE found no element satisfying %s: the set is empty", map[string]string{">=": "Max", "<=": "Min"}[cmp])
		}
		best := c.asInt(elems[0], at)
		for _, e := range elems[1:] {
			x := c.asInt(e, at)
			if cmp == ">=" && x > best || cmp == "<=" && x < best {
				best = x
			}
		}
		return value.Int(best)
	}
}

func nativeFoldFunction(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
	f := c.asFunc(a[2], at)
	return c.foldFunctionOn(ops[0], a[1], f, f.Domain(), at)
}

func nativeFoldFunctionOnSet(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
	return c.foldFunctionOn(ops[0], a[1], c.asFunc(a[2], at), c.asSet(a[3], at), at)
}

// foldFunctionOn is FoldFunctionOnSet(op, base, f, S): op(f[xn], ...
// op(f[x1], base)) for the elements x1 < ... < xn of S.
func (c *ctx) foldFunctionOn(op *closure, acc value.Value, f *value.Func, s value.SetValue, at tla.Pos) value.Value {
	for _, x := range c.enumerateValue(at, s).Elems() {
		v, ok := f.Apply(x)
		if !ok {
			c.fail(at, "%s is not in the domain of %s", value.Format(x), value.Format(f))
		}
		acc = c.callClosure(op, []value.Value{v, acc}, at)
	}
	return acc
}

func nativeIsInjective(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	vals := slices.Clone(c.asFunc(a[0], at).Vals())
	slices.SortFunc(vals, value.Compare)
	for i := 1; i < len(vals); i++ {
		if value.Equal(vals[i-1], vals[i]) {
			return value.False
		}
	}
	return value.True
}

// nativeAntiFunction maps each value of f to the least argument f maps to
// it (the only one when f is injective).
func nativeAntiFunction(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	f := c.asFunc(a[0], at)
	var keys, vals []value.Value
	for i, k := range f.Keys() {
		v := f.Vals()[i]
		if !slices.ContainsFunc(keys, func(x value.Value) bool { return value.Equal(x, v) }) {
			keys, vals = append(keys, v), append(vals, k)
		}
	}
	return value.NewFunc(keys, vals)
}

// nativeFoldBag is FoldBag(op, base, B): for each element x of B in TLC's
// order, as many times as B holds it, acc := op(acc, x).
func nativeFoldBag(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
	b := c.asFunc(a[2], at)
	acc := a[1]
	for i, x := range b.Keys() {
		n, ok := b.Vals()[i].(value.Int)
		if !ok || n <= 0 {
			c.fail(at, "FoldBag: %s is not a bag (%s :> %s)", value.Format(b), value.Format(x), value.Format(b.Vals()[i]))
		}
		for range n {
			acc = c.callClosure(ops[0], []value.Value{acc, x}, at)
		}
	}
	return acc
}

// nativeChoose is the binomial coefficient n choose k, an error where it
// overflows as TLC's (32-bit) does.
func nativeChoose(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	n, k := c.asInt(a[0], at), c.asInt(a[1], at)
	if n < 0 || k < 0 {
		c.fail(at, "the arguments of choose should be natural numbers, but instead they are %d and %d", n, k)
	}
	if k > n {
		return value.Int(0)
	}
	k = min(k, n-k)
	r := uint64(1)
	for i := int64(1); i <= k; i++ {
		hi, lo := bits.Mul64(r, uint64(n-k+i))
		if hi != 0 {
			c.fail(at, "%d choose %d overflows", n, k)
		}
		r = lo / uint64(i)
	}
	if r > math.MaxInt32 {
		c.fail(at, "%d choose %d overflows", n, k)
	}
	return value.Int(int64(r))
}

// bitwise is the helper of Bitwise's x & y, x | y and x ^^ y (And(x, y,
// n, m) and kin, which TLC computes in Java on x and y alone).
func bitwise(name string, f func(x, y int64) int64) native {
	return func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
		x, y := c.asInt(a[0], at), c.asInt(a[1], at)
		if x < 0 || y < 0 {
			c.fail(at, "%s is defined on natural numbers, not %d and %d", name, x, y)
		}
		return value.Int(f(x, y))
	}
}

// nativeBitNot flips the bits of a below its highest set bit, as TLC's
// Java does (Not(0) is 0 there, although the TLA+ definition says 1).
func nativeBitNot(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	x := c.asInt(a[0], at)
	if x < 0 || x > math.MaxInt32 {
		c.fail(at, "Not is defined on natural numbers below 2^31, not %d", x)
	}
	mask := int64(math.MaxInt32) >> (bits.LeadingZeros32(uint32(x)) - 1)
	if x == 0 {
		mask = 0
	}
	return value.Int(^x & mask)
}

func nativeShiftR(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	n, pos := c.asInt(a[0], at), c.asInt(a[1], at)
	if n < 0 || pos < 0 {
		c.fail(at, "shiftR is defined on natural numbers, not %d and %d", n, pos)
	}
	if pos >= 64 {
		return value.Int(0)
	}
	return value.Int(n >> pos)
}

// nativeIOEnv is the environment of the checker's process as a record of
// strings (Spec.Environ; empty without one).
func nativeIOEnv(c *ctx, at tla.Pos, _ []value.Value, _ []*closure) value.Value {
	var names []string
	var vals []value.Value
	seen := map[string]bool{}
	if env := c.sc.spec.Environ; env != nil {
		for _, kv := range env() {
			k, v, _ := strings.Cut(kv, "=")
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			names = append(names, k)
			vals = append(vals, value.String(v))
		}
	}
	return value.NewRecord(names, vals)
}

// nativeAtoi reads a decimal integer as Java's Integer.parseInt does.
func nativeAtoi(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	s, ok := a[0].(value.String)
	if ok {
		if n, err := strconv.ParseInt(string(s), 10, 32); err == nil {
			return value.Int(n)
		}
	}
	c.fail(at, "the argument of atoi should be a string of a 32-bit integer, but instead it is: %s", value.Format(a[0]))
	return nil
}

// readFile reads a file the spec names through Spec.ReadFile.
func (c *ctx) readFile(op, name string, at tla.Pos) []byte {
	rf := c.sc.spec.ReadFile
	if rf == nil {
		c.fail(at, "%s(%q): reading files is not available here", op, name)
	}
	b, err := rf(name)
	if err != nil {
		c.fail(at, "%s: %v", op, err)
	}
	return b
}

// nativeDeserialize is IOUtils' Deserialize(file, [format |-> "TXT", ...]):
// [exitValue |-> 0, stdout |-> the file's text, stderr |-> ""], or exit
// value 1 and the error in stderr where the file cannot be read.
func nativeDeserialize(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	name, ok := a[0].(value.String)
	opts := c.asFunc(a[1], at)
	format, _ := opts.Field("format")
	if format != value.String("TXT") {
		c.fail(at, "Deserialize: roomspec reads the format \"TXT\" only, not %s", value.Format(format))
	}
	result := func(exit int, out, errs string) value.Value {
		return value.NewRecord([]string{"exitValue", "stdout", "stderr"},
			[]value.Value{value.Int(exit), value.String(out), value.String(errs)})
	}
	if !ok {
		return result(1, "", "Deserialize error invalid parameters: the file name is not a string")
	}
	rf := c.sc.spec.ReadFile
	if rf == nil {
		return result(1, "", "Deserialize error reading from the file: reading files is not available here")
	}
	b, err := rf(string(name))
	if err != nil {
		return result(1, "", "Deserialize error reading from the file: "+err.Error())
	}
	return result(0, string(b), "")
}

// nativeJSONDeserialize is JsonDeserialize (one JSON value) and
// ndJsonDeserialize (a value per non-blank line, as a sequence): arrays are
// sequences, objects records, numbers integers.
func nativeJSONDeserialize(lines bool) native {
	name := "JsonDeserialize"
	if lines {
		name = "ndJsonDeserialize"
	}
	return func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
		file, ok := a[0].(value.String)
		if !ok {
			c.fail(at, "the argument of %s should be a string, but instead it is: %s", name, value.Format(a[0]))
		}
		data := c.readFile(name, string(file), at)
		if !lines {
			v, err := jsonValue(json.NewDecoder(bytes.NewReader(data)))
			if err != nil {
				c.fail(at, "%s(%q): %v", name, file, err)
			}
			return v
		}
		var out []value.Value
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, len(data)+1)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			v, err := jsonValue(json.NewDecoder(bytes.NewReader(line)))
			if err != nil {
				c.fail(at, "%s(%q): line %d: %v", name, file, n, err)
			}
			out = append(out, v)
		}
		return value.NewTuple(out...)
	}
}

// jsonValue reads one JSON value as TLC's Json module converts it.
func jsonValue(d *json.Decoder) (value.Value, error) {
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			var elems []value.Value
			for d.More() {
				v, err := jsonValue(d)
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
			}
			_, err := d.Token()
			return value.NewTuple(elems...), err
		case '{':
			var names []string
			var vals []value.Value
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := jsonValue(d)
				if err != nil {
					return nil, err
				}
				names = append(names, k.(string))
				vals = append(vals, v)
			}
			_, err := d.Token()
			return value.NewRecord(names, vals), err
		}
	case json.Number:
		n, err := strconv.ParseInt(t.String(), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("the number %s is not a 32-bit integer", t)
		}
		return value.Int(n), nil
	case bool:
		return value.Bool(t), nil
	case string:
		return value.String(t), nil
	}
	return nil, fmt.Errorf("cannot convert value: unsupported JSON value %v", tok)
}

// nativeCausalOrder is VectorClocks' CausalOrder(log, clock, node,
// domain) as TLC computes it: each node's lines sorted by the node's own
// entry in their clocks, an edge from the line a clock first shows it has
// seen of another node to the line of that clock, then the lines taken in
// rounds over the nodes (in TLC's order of node names), each round taking
// the next line of each node whose predecessors are all taken.
func nativeCausalOrder(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
	log := c.asSeq(a[0], at).Vals()
	type line struct {
		val, clock value.Value
		time       int64
		hosts      []value.Value
		parents    int
		children   []*line
	}
	byNode := map[value.Value][]*line{} // keys are canonical values: compared by Equal below
	var nodes []value.Value
	nodeOf := func(n value.Value) value.Value {
		for _, x := range nodes {
			if value.Equal(x, n) {
				return x
			}
		}
		nodes = append(nodes, n)
		return n
	}
	for _, v := range log {
		n := nodeOf(c.callClosure(ops[2], []value.Value{v}, at))
		vc := c.callClosure(ops[1], []value.Value{v}, at)
		t, ok := c.asFunc(vc, at).Apply(n)
		if !ok {
			c.fail(at, "CausalOrder: the clock %s has no entry for its node %s", value.Format(vc), value.Format(n))
		}
		dom := c.enumerateValue(at, c.asSet(c.callClosure(ops[3], []value.Value{vc}, at), at)).Elems()
		byNode[n] = append(byNode[n], &line{val: v, clock: vc, time: c.asInt(t, at), hosts: dom})
	}
	slices.SortFunc(nodes, value.Compare)
	for _, n := range nodes {
		slices.SortStableFunc(byNode[n], func(x, y *line) int { return int(x.time - y.time) })
	}
	for _, n := range nodes {
		global := map[int]int64{}
		for _, l := range byNode[n] {
			for _, h := range l.hosts {
				hi := slices.IndexFunc(nodes, func(x value.Value) bool { return value.Equal(x, h) })
				if hi < 0 {
					c.fail(at, "CausalOrder: the clock %s names %s, which logged nothing", value.Format(l.clock), value.Format(h))
				}
				tv, _ := c.asFunc(l.clock, at).Apply(h)
				t := c.asInt(tv, at)
				if global[hi] < t {
					global[hi] = t
					other := byNode[nodes[hi]]
					if t < 1 || t > int64(len(other)) {
						c.fail(at, "CausalOrder: the clock %s says %s logged %d lines; the log has %d", value.Format(l.clock), value.Format(h), t, len(other))
					}
					if p := other[t-1]; p != l {
						p.children = append(p.children, l)
						l.parents++
					}
				}
			}
		}
	}
	out := make([]value.Value, 0, len(log))
	for len(out) < len(log) {
		progress := false
		for _, n := range nodes {
			q := byNode[n]
			if len(q) == 0 || q[0].parents > 0 {
				continue
			}
			for _, ch := range q[0].children {
				ch.parents--
			}
			out = append(out, q[0].val)
			byNode[n] = q[1:]
			progress = true
		}
		if !progress {
			c.fail(at, "CausalOrder: the clocks of the log form a cycle")
		}
	}
	return value.NewTuple(out...)
}

// nativeReduce is DyadicRationals' Reduce: the fraction in lowest terms.
func nativeReduce(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	r := c.asFunc(a[0], at)
	nv, ok1 := r.Field("num")
	dv, ok2 := r.Field("den")
	if !ok1 || !ok2 {
		c.fail(at, "%s is not a rational [num |-> n, den |-> d]", value.Format(a[0]))
	}
	n, d := c.asInt(nv, at), c.asInt(dv, at)
	g := gcd(n, d)
	if g == 0 {
		c.fail(at, "cannot reduce %s", value.Format(a[0]))
	}
	if g == 1 {
		return a[0]
	}
	return value.NewRecord([]string{"num", "den"}, []value.Value{value.Int(n / g), value.Int(d / g)})
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// nativeSVGElemToString renders an SVG element record as TLC's Java does:
// <name attr='value'...>innerText children</name>.
func nativeSVGElemToString(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	var b strings.Builder
	var w func(v value.Value)
	field := func(r *value.Func, name string) value.Value {
		v, ok := r.Field(name)
		if !ok {
			c.fail(at, "an SVG element must be a record with a field %s: %s", name, value.Format(r))
		}
		return v
	}
	str := func(v value.Value) string {
		s, ok := v.(value.String)
		if !ok {
			c.fail(at, "expected a string in an SVG element, found %s", value.Format(v))
		}
		return string(s)
	}
	w = func(v value.Value) {
		r := c.asFunc(v, at)
		name := str(field(r, "name"))
		b.WriteString("<" + name)
		attrs := c.asFunc(field(r, "attrs"), at)
		for i, k := range attrs.Keys() {
			b.WriteString(" " + strings.ReplaceAll(str(k), "_", "-") + "='" + str(attrs.Vals()[i]) + "'")
		}
		b.WriteString(">")
		text := str(field(r, "innerText"))
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(text, "<<", "&lt;&lt;"), ">>", "&gt;&gt;"))
		for _, ch := range c.asFunc(field(r, "children"), at).Vals() {
			w(ch)
		}
		b.WriteString("</" + name + ">")
	}
	w(a[0])
	return value.String(b.String())
}

func point(x, y int64) value.Value {
	return value.NewRecord([]string{"x", "y"}, []value.Value{value.Int(x), value.Int(y)})
}

// nativeNodeOfRingNetwork places node n of m on the circle of radius r
// about (cx, cy), truncating to integers as Java's (int) cast does.
func nativeNodeOfRingNetwork(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	cx, cy, r, n, m := c.asInt(a[0], at), c.asInt(a[1], at), c.asInt(a[2], at), c.asInt(a[3], at), c.asInt(a[4], at)
	angle := 2 * math.Pi / float64(m) * float64(n)
	return point(int64(float64(cx)+float64(r)*math.Cos(angle)), int64(float64(cy)+float64(r)*math.Sin(angle)))
}

// nativePointOnLine is from + (to - from) / segment, each coordinate
// truncated toward zero as TLC's Java computes it.
func nativePointOnLine(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
	coord := func(r value.Value, f string) int64 {
		v, ok := c.asFunc(r, at).Field(f)
		if !ok {
			c.fail(at, "%s has no field %s", value.Format(r), f)
		}
		return c.asInt(v, at)
	}
	seg := float64(c.asInt(a[2], at))
	fx, fy, tx, ty := coord(a[0], "x"), coord(a[0], "y"), coord(a[1], "x"), coord(a[1], "y")
	return point(int64(float64(fx)+float64(tx-fx)/seg), int64(float64(fy)+float64(ty-fy)/seg))
}

// stronglyConnected reports whether every node of g reaches every other.
func (g *graph) stronglyConnected() value.Value {
	for i := range g.nodes {
		for _, in := range g.reach(i) {
			if !in {
				return value.False
			}
		}
	}
	return value.True
}
