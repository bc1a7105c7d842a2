package specrt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/tla/cfg"
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
		var w strings.Builder
		req.ITF(&w, i)
		v, err := specrt.ParseJSON([]byte(w.String()))
		if err != nil {
			t.Fatal(err)
		}
		if j, err := req.ReadITF(v, "x"); err != nil || j != i {
			t.Errorf("ReadITF(%s) = %d, %v", w.String(), j, err)
		}
	}
	if _, ok := req.IndexOf(value.Int(3)); ok {
		t.Error("IndexOf found an integer in a product")
	}
}

// Composite values print as the interpreter prints them and as ITF.
func TestFormat(t *testing.T) {
	ranks := specrt.NewModels("DecodeRanks", []string{"d1", "d2", "d3"})
	one := specrt.NewRange("One", 1, 2)
	elem := func(b *strings.Builder, i int) { ranks.Format(b, i) }
	for _, tc := range []struct {
		write func(*strings.Builder)
		want  string
	}{
		{func(b *strings.Builder) { specrt.FormatBits(b, 0b101, elem) }, "{d1, d3}"},
		{func(b *strings.Builder) { specrt.FormatBits(b, 0, elem) }, "{}"},
		{func(b *strings.Builder) { specrt.FormatSeq(b, []int{1, 2}, specrt.FormatInt) }, "<<1, 2>>"},
		{func(b *strings.Builder) { specrt.FormatFunc(b, ranks, []bool{true, false, true}, specrt.FormatBool) }, "(d1 :> TRUE @@ d2 :> FALSE @@ d3 :> TRUE)"},
		{func(b *strings.Builder) { specrt.FormatFunc(b, one, []int{5, 6}, specrt.FormatInt) }, "<<5, 6>>"},
		{func(b *strings.Builder) { specrt.FormatString(b, `a"b`) }, `"a\"b"`},
		{func(b *strings.Builder) {
			specrt.ITFBits(b, 0b110, func(b *strings.Builder, i int) { ranks.ITF(b, i) })
		}, `{"#set":["d2","d3"]}`},
		{func(b *strings.Builder) { specrt.ITFFunc(b, one, []int{5, 6}, specrt.ITFInt) }, `{"#map":[[{"#bigint":"1"},{"#bigint":"5"}],[{"#bigint":"2"},{"#bigint":"6"}]]}`},
		{func(b *strings.Builder) { specrt.ITFString(b, "<<r, 1>>") }, `"<<r, 1>>"`},
	} {
		var b strings.Builder
		tc.write(&b)
		if b.String() != tc.want {
			t.Errorf("got %s, want %s", b.String(), tc.want)
		}
	}
}

// Reading names the path of what does not fit.
func TestReadErrors(t *testing.T) {
	ranks := specrt.NewModels("DecodeRanks", []string{"d1", "d2"})
	for _, tc := range []struct {
		json string
		read func(v any) error
		want string
	}{
		{`[0, 5]`, func(v any) error {
			_, err := specrt.ReadBits(v, "s.set", false, ranks.ReadJSON)
			return err
		}, "s.set[1]: want an index into DecodeRanks, got 5"},
		{`{"#set": ["d3"]}`, func(v any) error {
			_, err := specrt.ReadBits(v, "s.set", true, ranks.ReadITF)
			return err
		}, `s.set[0]: want an element of DecodeRanks, got "d3"`},
		{`{"#map": [["d1", true]]}`, func(v any) error {
			_, err := specrt.ReadFunc(v, "s.f", ranks, true, specrt.ReadBool)
			return err
		}, "s.f: want 2 elements, got 1"},
		{`{"#map": [["d1", true], ["d1", false]]}`, func(v any) error {
			_, err := specrt.ReadFunc(v, "s.f", ranks, true, specrt.ReadBool)
			return err
		}, `s.f: want each key once, got "d1"`},
		{`{"a": 1, "b": 2}`, func(v any) error {
			_, err := specrt.ReadObject(v, "s.r", "a")
			return err
		}, `s.r: unknown field "b"`},
		{`1.5`, func(v any) error {
			_, err := specrt.ReadInt(v, "s.n")
			return err
		}, "s.n: want an integer, got 1.5"},
	} {
		v, err := specrt.ParseJSON([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		err = tc.read(v)
		if err == nil || !errors.Is(err, specrt.ErrDecode) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.json, err, tc.want)
		}
	}
	if _, err := specrt.ParseJSON([]byte(`{} {}`)); err == nil {
		t.Error("ParseJSON accepted two values")
	}
}

// With replaces the named constants of a configuration and nothing else.
func TestConstantsWith(t *testing.T) {
	conf, err := cfg.Parse("dir/upstream.cfg", []byte("CONSTANTS\n  Ranks = {d1, d2}\n  N = 2\n  Flag = TRUE\n"))
	if err != nil {
		t.Fatal(err)
	}
	k, err := specrt.ConstantsOf(conf)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name() != "upstream" {
		t.Errorf("Name = %q", k.Name())
	}
	other, err := k.With(map[string]*cfg.Value{"Ranks": specrt.ModelSet("d1", "d2", "d3"), "N": specrt.IntValue(3)})
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := specrt.ConstantsOf(other)
	ranks, _ := k2.Models("Ranks")
	n, _ := k2.Int("N")
	flag, _ := k2.Bool("Flag")
	if ranks.Size() != 3 || n != 3 || !flag {
		t.Errorf("With: %d ranks, N %d, Flag %v", ranks.Size(), n, flag)
	}
	if was, _ := k.Int("N"); was != 2 {
		t.Errorf("With changed the original: N = %d", was)
	}
	if _, err := k.With(map[string]*cfg.Value{"Missing": specrt.IntValue(1)}); err == nil {
		t.Error("With accepted an unknown constant")
	}
	if _, err := k.Bool("N"); err == nil {
		t.Error("Bool read an integer")
	}
}
