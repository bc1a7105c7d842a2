package specrt_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/tla/gen/specrt"
	"github.com/roomspec/roomspec/tla/value"
)

// Elements of a product are numbered row-major over the components'
// canonical orders, and print, write as ITF and read back as such.
func TestDomainProduct(t *testing.T) {
	rooms := specrt.NewModels("Rooms", []string{"r2", "r1"})
	inc := specrt.NewInts("Incarnations", 2, 1)
	req := specrt.NewProduct("Requests", rooms, inc)
	if req.Size() != 4 || req.Index(1, 2) != 3 || req.Comp(3, 0) != 1 || req.Comp(3, 1) != 2 {
		t.Fatalf("size %d, index %d", req.Size(), req.Index(1, 2))
	}
	var b strings.Builder
	req.FormatSet(&b)
	if got := b.String(); got != "{<<r1, 1>>, <<r1, 2>>, <<r2, 1>>, <<r2, 2>>}" {
		t.Errorf("FormatSet = %s", got)
	}
	for i := range req.Size() {
		if j, ok := req.IndexOf(req.Value(i)); !ok || j != i {
			t.Errorf("IndexOf(Value(%d)) = %d, %v", i, j, ok)
		}
	}
	if _, ok := req.IndexOf(value.Int(3)); ok {
		t.Error("IndexOf found an integer in a product")
	}
}

// The Go types of a small spec that uses every shape a Type can have, in
// every position: scalars, sets of strings and of elements, functions and
// sequences of each kind (their elements scalar or composite), records
// with a composite field.
type (
	str  uint8 // "a", "b\"c", "z"
	rank int   // an element of Ranks, a set of model values
	req  int   // an element of Req == Rooms \X Inc, a product

	rec struct {
		A int
		B []str
	}

	state struct {
		Flag bool
		N    int
		S    str
		R    rank
		Q    req
		Set  uint64   // SUBSET Ranks
		SSet uint64   // SUBSET strings
		FB   []bool   // [Ranks -> BOOLEAN]
		FI   []int    // [Inc -> Int] (Inc is 1..2: a tuple)
		FS   []str    // [Ranks -> strings]
		FE   []rank   // [Req -> Ranks]
		FT   []uint64 // [Ranks -> SUBSET Ranks]
		SQ   [][]rec  // [Ranks -> Seq(rec)]
		SS   []uint64 // Seq(SUBSET strings)
		SI   []int    // Seq(Int)
		Rec  rec
	}
)

var (
	strNames = []string{"a", `b"c`, "z"}
	tStr     = specrt.Strings[str](strNames)
	tRank    = specrt.Elem[rank]("Ranks")
	tReq     = specrt.Elem[req]("Req")
	tRec     = specrt.Record[rec](specrt.Field{Name: "a", Type: specrt.Int}, specrt.Field{Name: "b", Type: specrt.Seq(tStr)})
	tState   = specrt.Record[state](
		specrt.Field{Name: "flag", Type: specrt.Bool},
		specrt.Field{Name: "n", Type: specrt.Int},
		specrt.Field{Name: "s", Type: tStr},
		specrt.Field{Name: "r", Type: tRank},
		specrt.Field{Name: "q", Type: tReq},
		specrt.Field{Name: "set", Type: specrt.Set(tRank)},
		specrt.Field{Name: "sset", Type: specrt.Set(tStr)},
		specrt.Field{Name: "fb", Type: specrt.Func("Ranks", specrt.Bool)},
		specrt.Field{Name: "fi", Type: specrt.Func("Inc", specrt.Int)},
		specrt.Field{Name: "fs", Type: specrt.Func("Ranks", tStr)},
		specrt.Field{Name: "fe", Type: specrt.Func("Req", tRank)},
		specrt.Field{Name: "ft", Type: specrt.Func("Ranks", specrt.Set(tRank))},
		specrt.Field{Name: "sq", Type: specrt.Func("Ranks", specrt.Seq(tRec))},
		specrt.Field{Name: "ss", Type: specrt.Seq(specrt.Set(tStr))},
		specrt.Field{Name: "si", Type: specrt.Seq(specrt.Int)},
		specrt.Field{Name: "rec", Type: tRec},
	)
)

type domains struct{ ranks, rooms, inc, req *specrt.Domain }

func newDomains() *domains {
	d := &domains{
		ranks: specrt.NewModels("Ranks", []string{"d1", "d2", "d3"}),
		rooms: specrt.NewModels("Rooms", []string{"r"}),
		inc:   specrt.NewInts("Inc", 1, 2),
	}
	d.req = specrt.NewProduct("Req", d.rooms, d.inc)
	return d
}

func (d *domains) domain(name string) *specrt.Domain {
	switch name {
	case "Ranks":
		return d.ranks
	case "Rooms":
		return d.rooms
	case "Inc":
		return d.inc
	case "Req":
		return d.req
	}
	return nil
}

func sample() state {
	return state{
		Flag: true, N: -3, S: 1, R: 2, Q: 1,
		Set: 0b101, SSet: 0b011,
		FB:  []bool{true, false, true},
		FI:  []int{7, 8},
		FS:  []str{0, 2, 1},
		FE:  []rank{2, 0},
		FT:  []uint64{0, 0b010, 0b111},
		SQ:  [][]rec{{{A: 1, B: []str{0}}}, nil, {{A: 2}, {A: 3, B: []str{2, 1}}}},
		SS:  []uint64{0b100, 0},
		SI:  []int{4},
		Rec: rec{A: 5, B: []str{1}},
	}
}

func codec(t *testing.T) *specrt.Codec[state] {
	t.Helper()
	c, err := tState.Bind(newDomains().domain)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A state prints as the interpreter prints it, and as the interpreter
// prints the values it converts to.
func TestFormat(t *testing.T) {
	c := codec(t)
	s := sample()
	want := strings.Join([]string{
		`/\ flag = TRUE`,
		`/\ n = -3`,
		`/\ s = "b\"c"`,
		`/\ r = d3`,
		`/\ q = <<r, 2>>`,
		`/\ set = {d1, d3}`,
		`/\ sset = {"a", "b\"c"}`,
		`/\ fb = (d1 :> TRUE @@ d2 :> FALSE @@ d3 :> TRUE)`,
		`/\ fi = <<7, 8>>`,
		`/\ fs = (d1 :> "a" @@ d2 :> "z" @@ d3 :> "b\"c")`,
		`/\ fe = (<<r, 1>> :> d3 @@ <<r, 2>> :> d1)`,
		`/\ ft = (d1 :> {} @@ d2 :> {d2} @@ d3 :> {d1, d2, d3})`,
		`/\ sq = (d1 :> <<[a |-> 1, b |-> <<"a">>]>> @@ d2 :> <<>> @@ d3 :> <<[a |-> 2, b |-> <<>>], [a |-> 3, b |-> <<"z", "b\"c">>]>>)`,
		`/\ ss = <<{"z"}, {}>>`,
		`/\ si = <<4>>`,
		`/\ rec = [a |-> 5, b |-> <<"b\"c">>]`,
	}, "\n")
	if got := c.FormatState(&s); got != want {
		t.Errorf("FormatState:\n%s\nwant:\n%s", got, want)
	}
	vals := c.Values(&s)
	var lines []string
	for i, v := range vals {
		lines = append(lines, `/\ `+[]string{"flag", "n", "s", "r", "q", "set", "sset", "fb", "fi", "fs", "fe", "ft", "sq", "ss", "si", "rec"}[i]+" = "+value.Format(v))
	}
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("the interpreter prints the values as:\n%s\nwant:\n%s", got, want)
	}
	var b strings.Builder
	c.Format(&b, &s)
	if got := b.String(); !strings.HasPrefix(got, `[fb |-> (d1 :> TRUE`) && !strings.HasPrefix(got, `[flag |-> TRUE, n |-> -3`) {
		t.Errorf("Format(state as a record) = %s", got)
	}
	rc, err := tRec.Bind(newDomains().domain)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	rc.Format(&b, &s.Rec)
	if got := b.String(); got != `[a |-> 5, b |-> <<"b\"c">>]` {
		t.Errorf("Format(record) = %s", got)
	}
	if got, want := value.Format(rc.Value(&s.Rec)), b.String(); got != want {
		t.Errorf("Value(record) prints %s, want %s", got, want)
	}
	b.Reset()
	rc.ITF(&b, &s.Rec)
	if got := b.String(); got != `{"a":{"#bigint":"5"},"b":["b\"c"]}` {
		t.Errorf("ITF(record) = %s", got)
	}
	r, err := rc.Read([]byte(b.String()), true)
	if err != nil || !tRec.Equal(&r, &s.Rec) {
		t.Errorf("Read(ITF(record)) = %+v, %v", r, err)
	}
}

// A state written as ITF reads back as the same state; variables are
// written in name order.
func TestITFRoundTrip(t *testing.T) {
	c := codec(t)
	s := sample()
	var b strings.Builder
	c.WriteITFState(&b, &s, 3)
	itf := b.String()
	for _, want := range []string{
		`{"#meta":{"index":3},"fb":{"#map":[["d1",true],["d2",false],["d3",true]]},"fe":{"#map":[[{"#tup":["r",{"#bigint":"1"}]},"d3"],`,
		`"flag":true,`,
		`"fi":{"#map":[[{"#bigint":"1"},{"#bigint":"7"}],[{"#bigint":"2"},{"#bigint":"8"}]]}`,
		`"q":{"#tup":["r",{"#bigint":"2"}]}`,
		`"rec":{"a":{"#bigint":"5"},"b":["b\"c"]}`,
		`"sset":{"#set":["a","b\"c"]}`,
	} {
		if !strings.Contains(itf, want) {
			t.Errorf("ITF %s\nlacks %s", itf, want)
		}
	}
	got, err := c.ReadState([]byte(itf), true)
	if err != nil {
		t.Fatal(err)
	}
	if !tState.Equal(&got, &s) {
		t.Errorf("read back:\n%s\nwant:\n%s", c.FormatState(&got), c.FormatState(&s))
	}
}

// Plain JSON: elements as indices, functions as lists in index order.
func TestReadPlain(t *testing.T) {
	c := codec(t)
	data := `{"flag": true, "n": -3, "s": "b\"c", "r": 2, "q": 1, "set": [0, 2], "sset": ["a", "b\"c"],
		"fb": [true, false, true], "fi": [7, 8], "fs": ["a", "z", "b\"c"], "fe": [2, 0], "ft": [[], [1], [0, 1, 2]],
		"sq": [[{"a": 1, "b": ["a"]}], [], [{"a": 2, "b": []}, {"a": 3, "b": ["z", "b\"c"]}]],
		"ss": [["z"], []], "si": [4], "rec": {"a": 5, "b": ["b\"c"]}}`
	got, err := c.ReadState([]byte(data), false)
	if err != nil {
		t.Fatal(err)
	}
	s := sample()
	if !tState.Equal(&got, &s) {
		t.Errorf("read:\n%s\nwant:\n%s", c.FormatState(&got), c.FormatState(&s))
	}
	if v, err := c.Read([]byte(`{"#meta": 1}`), false); err == nil {
		t.Errorf("Read of an object without the fields: %+v", v)
	}
}

// Reading names the path of what does not fit.
func TestReadErrors(t *testing.T) {
	c := codec(t)
	good := `"flag": true, "n": 1, "s": "a", "r": 0, "q": 0, "set": [], "sset": [], "fb": [true, true, true], "fi": [1, 2],
		"fs": ["a", "a", "a"], "fe": [0, 0], "ft": [[], [], []], "sq": [[], [], []], "ss": [], "si": [], "rec": {"a": 1, "b": []}`
	if _, err := c.ReadState([]byte("{"+good+"}"), false); err != nil {
		t.Fatalf("the base state does not read: %v", err)
	}
	for _, tc := range []struct {
		json string
		itf  bool
		want string
	}{
		{`{"set": [0, 5], ` + good[strings.Index(good, `"sset"`):] + `, "flag": true, "n": 1, "s": "a", "r": 0, "q": 0}`, false, "state.set[1]: want an index into Ranks, got 5"},
		{`{` + strings.Replace(good, `"s": "a"`, `"s": "q"`, 1) + `}`, false, `state.s: "q" is no string of the spec`},
		{`{` + strings.Replace(good, `"fb": [true, true, true]`, `"fb": [true]`, 1) + `}`, false, "state.fb: want 3 elements, got 1"},
		{`{` + strings.Replace(good, `"n": 1`, `"n": 1.5`, 1) + `}`, false, "state.n: want an integer, got 1.5"},
		{`{` + strings.Replace(good, `"rec": {"a": 1, "b": []}`, `"rec": {"a": 1, "b": [], "c": 2}`, 1) + `}`, false, `state.rec: unknown field "c"`},
		{`{` + strings.Replace(good, `"sq": [[], [], []]`, `"sq": [[], [{"a": 1, "b": [7]}], []]`, 1) + `}`, false, "state.sq[1][0].b[0]: want a string, got 7"},
		{`{` + good + `, "extra": 1}`, false, `state: unknown field "extra"`},
		{`{"flag": true}`, false, `state: no field "n"`},
		{itfWith(t, c, "fb", `{"#map": [["d1", true]]}`), true, "state.fb: want 3 elements, got 1"},
		{itfWith(t, c, "fb", `{"#map": [["d1", true], ["d1", false], ["d2", true]]}`), true, `state.fb: want each key once, got "d1"`},
		{itfWith(t, c, "sset", `{"#set": ["b"]}`), true, `state.sset[0]: "b" is no string of the spec`},
		{itfWith(t, c, "r", `"d4"`), true, `state.r: want an element of Ranks, got "d4"`},
		{itfWith(t, c, "q", `{"#tup": ["r", {"#bigint": "3"}]}`), true, `state.q[1]: want an element of Inc, got {"#bigint":"3"}`},
		{itfWith(t, c, "n", `{"#bigint": 1}`), true, `state.n: want a #bigint string, got 1`},
		{itfWith(t, c, "sq", `{"#map": [["d1", []], ["d2", [{"a": {"#bigint": "1"}, "b": ["q"]}]], ["d3", []]]}`), true, `state.sq[d2][0].b[0]: "q" is no string of the spec`},
		{itfWith(t, c, "fe", `{"#map": [[{"#tup": ["r", {"#bigint": "1"}]}, "d1"], ["r", "d1"]]}`), true, `state.fe key: want an object, got "r"`},
		{`{` + good + `} {}`, false, "data after the value"},
	} {
		_, err := c.ReadState([]byte(tc.json), tc.itf)
		if err == nil || !errors.Is(err, specrt.ErrDecode) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.json, err, tc.want)
		}
	}
}

// itfWith is the sample state written as ITF with variable name's value
// replaced by raw.
func itfWith(t *testing.T, c *specrt.Codec[state], name, raw string) string {
	t.Helper()
	s := sample()
	var b strings.Builder
	c.WriteITFState(&b, &s, 0)
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(b.String()), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m[name]; !ok {
		t.Fatalf("no variable %s", name)
	}
	m[name] = json.RawMessage(raw)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Equal values hash equally; a change anywhere, however deep, makes the
// values differ, and (for these) their hashes.
func TestHashEqual(t *testing.T) {
	s := sample()
	same := sample()
	if !tState.Equal(&s, &same) || tState.Hash(&s) != tState.Hash(&same) {
		t.Fatal("a state and its copy differ")
	}
	for name, change := range map[string]func(*state){
		"flag": func(s *state) { s.Flag = false },
		"n":    func(s *state) { s.N++ },
		"s":    func(s *state) { s.S = 0 },
		"r":    func(s *state) { s.R = 0 },
		"q":    func(s *state) { s.Q = 0 },
		"set":  func(s *state) { s.Set = 0 },
		"sset": func(s *state) { s.SSet = 1 },
		"fb":   func(s *state) { s.FB = []bool{true, true, true} },
		"fi":   func(s *state) { s.FI = []int{7, 9} },
		"fs":   func(s *state) { s.FS = []str{0, 2, 2} },
		"fe":   func(s *state) { s.FE = []rank{2, 1} },
		"ft":   func(s *state) { s.FT = []uint64{0, 0b010, 0b011} },
		"sq":   func(s *state) { s.SQ = [][]rec{s.SQ[0], s.SQ[1], {{A: 2}, {A: 3, B: []str{2, 0}}}} },
		"sq len": func(s *state) {
			s.SQ = [][]rec{s.SQ[0], s.SQ[1], s.SQ[2][:1]}
		},
		"ss":      func(s *state) { s.SS = []uint64{0b100} },
		"si":      func(s *state) { s.SI = nil },
		"rec.a":   func(s *state) { s.Rec.A = 6 },
		"rec.b":   func(s *state) { s.Rec.B = []str{2} },
		"fb swap": func(s *state) { s.FB = []bool{false, true, true} },
	} {
		o := sample()
		change(&o)
		if tState.Equal(&s, &o) || tState.Equal(&o, &s) {
			t.Errorf("%s: the changed state is equal", name)
		}
		if tState.Hash(&s) == tState.Hash(&o) {
			t.Errorf("%s: the changed state hashes the same", name)
		}
	}
	// An empty sequence equals a nil one.
	a, b := sample(), sample()
	a.SI, b.SI = nil, []int{}
	if !tState.Equal(&a, &b) || tState.Hash(&a) != tState.Hash(&b) {
		t.Error("nil and empty sequences differ")
	}
}

// The fingerprint is the fold of Mix over the values: a record its
// fields', a slice its length and its elements', a boolean 1 or 2.
func TestHashDefinition(t *testing.T) {
	r := rec{A: 5, B: []str{1, 2}}
	h := uint64(0xcbf29ce484222325)
	h = specrt.Mix(h, 5)
	h = specrt.Mix(h, 2)
	h = specrt.Mix(h, 1)
	h = specrt.Mix(h, 2)
	if got := tRec.Hash(&r); got != h {
		t.Errorf("Hash = %x, want %x", got, h)
	}
	fb := []bool{true, false}
	h = specrt.Mix(specrt.Mix(specrt.Mix(0xcbf29ce484222325, 2), 1), 2)
	if got := specrt.Func("Ranks", specrt.Bool).Hash(&fb); got != h {
		t.Errorf("Hash(bools) = %x, want %x", got, h)
	}
}

// A Type prints as the TLA+ set it describes.
func TestTypeString(t *testing.T) {
	for _, tc := range []struct {
		t    specrt.AnyType
		want string
	}{
		{specrt.Bool, "BOOLEAN"},
		{specrt.Int, "Int"},
		{tStr, "STRING"},
		{specrt.Set(tRank), "SUBSET Ranks"},
		{specrt.Func("Ranks", specrt.Seq(tRec)), "[Ranks -> Seq([a: Int, b: Seq(STRING)])]"},
	} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("String = %s, want %s", got, tc.want)
		}
	}
	if k := tState.Kind(); k != specrt.RecordKind || k.String() != "record" {
		t.Errorf("Kind = %v", k)
	}
}

// A descriptor that does not describe its Go type is a generator bug,
// reported when the package is initialised.
func TestRecordMismatch(t *testing.T) {
	for name, f := range map[string]func(){
		"field count": func() { specrt.Record[rec](specrt.Field{Name: "a", Type: specrt.Int}) },
		"field type": func() {
			specrt.Record[rec](specrt.Field{Name: "a", Type: specrt.Bool}, specrt.Field{Name: "b", Type: specrt.Seq(tStr)})
		},
		"twice": func() {
			specrt.Record[rec](specrt.Field{Name: "a", Type: specrt.Int}, specrt.Field{Name: "a", Type: specrt.Seq(tStr)})
		},
		"not struct":  func() { specrt.Record[int]() },
		"set of ints": func() { specrt.Set(specrt.Elem[int]("X")); specrt.Set(specrt.Int) },
		"unsorted":    func() { specrt.Strings[str]([]string{"b", "a"}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	if _, err := tState.Bind(func(string) *specrt.Domain { return nil }); err == nil || !strings.Contains(err.Error(), "no domain") {
		t.Errorf("Bind without domains: %v", err)
	}
}

// Action parameters print as the interpreter prints them.
func TestFormatAction(t *testing.T) {
	c := codec(t)
	got := c.FormatAction("Step", []specrt.AnyType{tReq, tRank, specrt.Int, tStr, specrt.Bool}, []int{1, 2, -4, 1, 1})
	if want := `Step(<<r, 2>>, d3, -4, "b\"c", TRUE)`; got != want {
		t.Errorf("FormatAction = %s, want %s", got, want)
	}
	if got := c.FormatAction("Tick", nil, nil); got != "Tick" {
		t.Errorf("FormatAction = %s", got)
	}
}

// FuzzReadState: whatever the bytes, reading a state of every shape (ITF
// or plain JSON) never panics; what reads back as a state prints, and
// writes and reads back the same.
func FuzzReadState(f *testing.F) {
	c, err := tState.Bind(newDomains().domain)
	if err != nil {
		f.Fatal(err)
	}
	s := sample()
	var b strings.Builder
	c.WriteITFState(&b, &s, 0)
	f.Add([]byte(b.String()), true)
	f.Add([]byte(`{"flag": true, "n": -3, "s": "b\"c", "r": 2, "q": 1, "set": [0, 2], "sset": ["a", "b\"c"],
		"fb": [true, false, true], "fi": [7, 8], "fs": ["a", "z", "b\"c"], "fe": [2, 0], "ft": [[], [1], [0, 1, 2]],
		"sq": [[{"a": 1, "b": ["a"]}], [], [{"a": 2, "b": []}, {"a": 3, "b": ["z", "b\"c"]}]],
		"ss": [["z"], []], "si": [4], "rec": {"a": 5, "b": ["b\"c"]}}`), false)
	f.Add([]byte(`{"fe": {"#map": [[{"#tup": ["r", {"#bigint": "9"}]}, "d1"]]}, "set": [64]}`), true)
	f.Fuzz(func(t *testing.T, data []byte, itf bool) {
		s, err := c.ReadState(data, itf)
		if err != nil {
			if !errors.Is(err, specrt.ErrDecode) {
				t.Fatalf("%s: an error that is not ErrDecode: %v", data, err)
			}
			return
		}
		c.FormatState(&s)
		c.Values(&s)
		var b strings.Builder
		c.WriteITFState(&b, &s, 0)
		back, err := c.ReadState([]byte(b.String()), true)
		if err != nil || !tState.Equal(&back, &s) || tState.Hash(&back) != tState.Hash(&s) {
			t.Fatalf("%s read as a state that does not read back (%v)", data, err)
		}
	})
}
