package conformance

import (
	"reflect"
	"testing"
)

func TestDiffEntries(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want [][3]string
	}{
		{`(r :> "Absent")`, `(r :> "Absent")`, nil},
		{`(r :> "Absent")`, `(r :> "Failed")`, [][3]string{{`v[r]`, `"Absent"`, `"Failed"`}}},
		{`(d1 :> <<>> @@ d2 :> <<[rank |-> d2, room |-> r, type |-> "ABORT"]>>)`,
			`(d1 :> <<[rank |-> d1, room |-> r, type |-> "ABORT"]>> @@ d2 :> <<[rank |-> d2, room |-> r, type |-> "ABORT"]>>)`,
			[][3]string{{`v[d1]`, `<<>>`, `<<[rank |-> d1, room |-> r, type |-> "ABORT"]>>`}}},
		{`(<<r, 1>> :> {} @@ <<r, 2>> :> {d1})`, `(<<r, 1>> :> {d1, d2} @@ <<r, 2>> :> {d1})`,
			[][3]string{{`v[<<r, 1>>]`, `{}`, `{d1, d2}`}}},
		{`(a :> "x @@ y :> z")`, `(a :> "w")`, [][3]string{{`v[a]`, `"x @@ y :> z"`, `"w"`}}},
		{`{}`, `{r}`, [][3]string{{`v`, `{}`, `{r}`}}},
		{`(a :> 1)`, `(b :> 1)`, [][3]string{{`v`, `(a :> 1)`, `(b :> 1)`}}},
	} {
		if got := diffEntries("v", tc.a, tc.b); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("diffEntries(%s, %s) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}
