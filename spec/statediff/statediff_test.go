package statediff_test

import (
	"testing"

	"github.com/roomspec/roomspec/spec/statediff"
	"github.com/roomspec/roomspec/spec/tla/value"
)

func TestValues(t *testing.T) {
	r1, r2 := &value.Model{Name: "r1"}, &value.Model{Name: "r2"}
	status := func(a, b string) value.Value {
		return value.NewFunc([]value.Value{r1, r2}, []value.Value{value.String(a), value.String(b)})
	}
	msg := func(typ string) value.Value {
		return value.NewRecord([]string{"room", "type"}, []value.Value{r1, value.String(typ)})
	}
	for _, tc := range []struct {
		name     string
		old, new value.Value
		want     []string
	}{
		{"equal", status("Absent", "Absent"), status("Absent", "Absent"), nil},
		{"one entry", status("Absent", "Absent"), status("Failed", "Absent"), []string{`x[r1] = "Failed"`}},
		{"record field in a sequence", value.NewTuple(msg("ABORT")), value.NewTuple(msg("TransferInfo")), []string{`x[1].type = "TransferInfo"`}},
		{"sequence grows", value.NewTuple(), value.NewTuple(msg("ABORT")), []string{`x = <<[room |-> r1, type |-> "ABORT"]>>`}},
		{"other domain", status("Absent", "Absent"), value.NewFunc([]value.Value{r1}, []value.Value{value.String("Absent")}), []string{`x = (r1 :> "Absent")`}},
		{"scalar", value.Int(1), value.Int(2), []string{"x = 2"}},
	} {
		var got []string
		for _, c := range statediff.Values(nil, "x", tc.old, tc.new) {
			got = append(got, c.String())
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
		}
	}
}
