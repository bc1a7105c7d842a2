package tla

import (
	"os"
	"reflect"
	"testing"
)

// TestInspectReachesEveryNode checks that Inspect visits every node the
// parser builds, by counting the pointers reachable through reflection.
func TestInspectReachesEveryNode(t *testing.T) {
	src, err := os.ReadFile("testdata/Constructs.tla")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseFile("Constructs.tla", src)
	if err != nil {
		t.Fatal(err)
	}
	visited := map[Node]bool{}
	Inspect(m, func(n Node) bool {
		visited[n] = true
		return true
	})
	all := map[Node]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
			if n, ok := v.Interface().(Node); ok {
				all[n] = true
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(m))
	for n := range all {
		if !visited[n] {
			t.Errorf("Inspect skipped %T at %s", n, n.Pos())
		}
	}
	if len(all) < 300 {
		t.Errorf("only %d nodes in Constructs.tla", len(all))
	}
}
