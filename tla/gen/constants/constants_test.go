package constants_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/gen/constants"
)

type consts struct {
	Ranks []string `tla:"Ranks"`
	Inc   []int    `tla:"Inc"`
	N     int      `tla:"N"`
	Flag  bool     `tla:"Flag"`
	Other string   // not a constant: left alone
}

func parse(t *testing.T, text string) *cfg.Config {
	t.Helper()
	c, err := cfg.Parse("x.cfg", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDecode(t *testing.T) {
	k := consts{Other: "kept"}
	err := constants.Decode(parse(t, "CONSTANTS\n  Ranks = {d2, d1}\n  Inc = {}\n  N = -2\n  Flag = TRUE\n  Unused = 7\n"), &k)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Ranks, []string{"d2", "d1"}) || len(k.Inc) != 0 || k.N != -2 || !k.Flag || k.Other != "kept" {
		t.Errorf("Decode = %+v", k)
	}
	if err := constants.Decode(parse(t, "CONSTANTS Ranks = {d1} Inc = {1, 2} N = 0 Flag = FALSE"), &k); err != nil || !slices.Equal(k.Inc, []int{1, 2}) {
		t.Errorf("Decode = %+v, %v", k, err)
	}
}

// What does not fit is an error at its position in the file.
func TestDecodeErrors(t *testing.T) {
	base := map[string]string{"Ranks": "{d1}", "Inc": "{1}", "N": "1", "Flag": "TRUE"}
	for _, tc := range []struct {
		name, value, want string
	}{
		{"N", "{1}", "x.cfg:5:5: constant N: want an integer, got {1}"},
		{"Flag", "1", "x.cfg:4:8: constant Flag: want TRUE or FALSE, got 1"},
		{"Ranks", "{d1, 2}", "x.cfg:2:9: constant Ranks: want a set of model values, got {d1, 2}"},
		{"Inc", "{1, a}", "x.cfg:3:7: constant Inc: want a set of integers, got {1, a}"},
		{"Ranks", "d1", "want a set of model values, got d1"},
		{"N", "", "x.cfg: constant N is not given a value"},
		{"Inc", "[M] {1}", "constant Inc: only plain values are supported"},
	} {
		var b strings.Builder
		b.WriteString("CONSTANTS\n")
		for _, n := range []string{"Ranks", "Inc", "Flag", "N"} {
			v := base[n]
			if n == tc.name {
				if tc.value == "" {
					continue
				}
				v = tc.value
			}
			b.WriteString(n + " = " + v + "\n")
		}
		var k consts
		err := constants.Decode(parse(t, b.String()), &k)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %s: got %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
	var n int
	if err := constants.Decode(parse(t, ""), &n); err == nil {
		t.Error("Decode into an int")
	}
	var bad struct {
		F float64 `tla:"F"`
	}
	if err := constants.Decode(parse(t, "CONSTANT F = 1"), &bad); err == nil || !strings.Contains(err.Error(), "cannot hold") {
		t.Errorf("Decode into a float: %v", err)
	}
}
