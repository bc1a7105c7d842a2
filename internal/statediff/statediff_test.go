package statediff

import (
	"fmt"
	"slices"
	"testing"

	"github.com/roomspec/roomspec/tla/value"
)

func TestAppend(t *testing.T) {
	str := func(s string) value.Value { return value.String(s) }
	fn := func(kv ...value.Value) value.Value {
		var ks, vs []value.Value
		for i := 0; i < len(kv); i += 2 {
			ks, vs = append(ks, kv[i]), append(vs, kv[i+1])
		}
		return value.NewFunc(ks, vs)
	}
	r, q := &value.Model{Name: "r"}, &value.Model{Name: "q"}
	rec := func(a, b value.Value) value.Value { return value.NewRecord([]string{"a", "b"}, []value.Value{a, b}) }
	for _, tt := range []struct {
		name     string
		old, new value.Value
		want     []string
	}{
		{"equal", value.Int(1), value.Int(1), nil},
		{"scalar", value.Int(1), value.Int(2), []string{"x = 2"}},
		{"one entry", fn(r, str("Absent"), q, str("Failed")), fn(r, str("Failed"), q, str("Failed")),
			[]string{`x[r] = "Failed"`}},
		{"record field", rec(value.Int(0), value.True), rec(value.Int(0), value.False), []string{"x.b = FALSE"}},
		{"nested", fn(value.Int(1), rec(value.Int(0), value.True)), fn(value.Int(1), rec(value.Int(5), value.True)),
			[]string{"x[1].a = 5"}},
		{"domain grows", fn(value.Int(1), value.Int(0)), fn(value.Int(1), value.Int(0), value.Int(3), value.Int(0)),
			[]string{"x = (1 :> 0 @@ 3 :> 0)"}},
		{"shape changes", value.NewSet(value.Int(1)), value.Int(1), []string{"x = 1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Append(nil, "x", tt.old, tt.new); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func ExampleStates() {
	vars := []string{"status", "alive"}
	r := &value.Model{Name: "r"}
	before := []value.Value{
		value.NewFunc([]value.Value{r}, []value.Value{value.String("Bootstrapping")}),
		value.True,
	}
	after := []value.Value{
		value.NewFunc([]value.Value{r}, []value.Value{value.String("Failed")}),
		value.True,
	}
	fmt.Println(States(vars, nil, before))
	fmt.Println(States(vars, before, after))
	// Output:
	// [status = (r :> "Bootstrapping") alive = TRUE]
	// [status[r] = "Failed"]
}
