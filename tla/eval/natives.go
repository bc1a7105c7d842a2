package eval

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// native computes an operator of a library module (tla.LibraryModules)
// whose TLA+ definition cannot be evaluated, because it ranges over an
// infinite set, as TLC computes it in Java. args are the values of the
// ordinary parameters, ops the operators passed for operator parameters
// (nil elsewhere).
type native func(c *ctx, at tla.Pos, args []value.Value, ops []*closure) value.Value

// natives maps a library module and an operator name to its native; it is
// filled in init, since the natives call back into the evaluator.
var natives map[string]map[string]native

func init() {
	natives = nativeTable()
	for mod, ops := range communityNatives() {
		if natives[mod] == nil {
			natives[mod] = map[string]native{}
		}
		for name, f := range ops {
			natives[mod][name] = f
		}
	}
}

func nativeTable() map[string]map[string]native {
	return map[string]map[string]native{
		"SequencesExt": {
			"SetToSeq": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return value.NewTuple(append([]value.Value(nil), c.enumerateValue(at, c.asSet(a[0], at)).Elems()...)...)
			},
			"SetToSortSeq": func(c *ctx, at tla.Pos, a []value.Value, ops []*closure) value.Value {
				vals := append([]value.Value(nil), c.enumerateValue(at, c.asSet(a[0], at)).Elems()...)
				less := func(x, y value.Value) bool {
					b, ok := c.callClosure(ops[1], []value.Value{x, y}, at).(value.Bool)
					if !ok {
						c.fail(at, "the order of SetToSortSeq must be a boolean")
					}
					return bool(b)
				}
				sort.SliceStable(vals, func(i, j int) bool { return less(vals[i], vals[j]) })
				return value.NewTuple(vals...)
			},
		},
		"UndirectedGraphs": {
			"SimplePath": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return c.graphOf(a[0], at, false).simplePaths()
			},
			"AreConnectedIn": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return c.graphOf(a[2], at, false).connected(a[0], a[1])
			},
			"ConnectedComponents": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return c.graphOf(a[0], at, false).components()
			},
		},
		"Graphs": {
			"SimplePath": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return c.graphOf(a[0], at, true).simplePaths()
			},
			"AreConnectedIn": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return c.graphOf(a[2], at, true).connected(a[0], a[1])
			},
		},
		"Json": {
			"ToJson": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return value.String(c.toJSON(a[0], at))
			},
			"ToJsonArray": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return value.String(c.toJSON(a[0], at))
			},
			"ToJsonObject": func(c *ctx, at tla.Pos, a []value.Value, _ []*closure) value.Value {
				return value.String(c.toJSON(a[0], at))
			},
			"JsonSerialize":     noIO("JsonSerialize"),
			"JsonDeserialize":   noIO("JsonDeserialize"),
			"ndJsonSerialize":   noIO("ndJsonSerialize"),
			"ndJsonDeserialize": noIO("ndJsonDeserialize"),
		},
	}
}

func noIO(name string) native {
	return func(c *ctx, at tla.Pos, _ []value.Value, _ []*closure) value.Value {
		c.fail(at, "%s reads or writes a file, which roomspec's checker does not do", name)
		return nil
	}
}

// graph is a graph value [node |-> N, edge |-> E] as adjacency lists.
type graph struct {
	nodes []value.Value
	adj   map[int][]int
	index func(value.Value) int
}

// graphOf reads a graph record; directed graphs have pairs <<a, b>> as
// edges, undirected ones sets {a, b}.
func (c *ctx) graphOf(v value.Value, at tla.Pos, directed bool) *graph {
	r := c.asFunc(v, at)
	nv, ok1 := r.Field("node")
	ev, ok2 := r.Field("edge")
	if !ok1 || !ok2 {
		c.fail(at, "%s is not a graph [node |-> ..., edge |-> ...]", value.Format(v))
	}
	nodes := c.enumerateValue(at, c.asSet(nv, at))
	g := &graph{nodes: nodes.Elems(), adj: map[int][]int{}}
	g.index = func(x value.Value) int {
		for i, n := range g.nodes {
			if value.Equal(n, x) {
				return i
			}
		}
		return -1
	}
	for _, e := range c.enumerateValue(at, c.asSet(ev, at)).Elems() {
		var ends []value.Value
		if directed {
			ends = c.asSeq(e, at).Vals()
		} else {
			ends = c.enumerateValue(at, c.asSet(e, at)).Elems()
		}
		if len(ends) == 1 {
			ends = append(ends, ends[0])
		}
		if len(ends) != 2 {
			c.fail(at, "edge %s of %s has not two ends", value.Format(e), value.Format(v))
		}
		a, b := g.index(ends[0]), g.index(ends[1])
		if a < 0 || b < 0 {
			continue
		}
		g.adj[a] = append(g.adj[a], b)
		if !directed {
			g.adj[b] = append(g.adj[b], a)
		}
	}
	return g
}

func (g *graph) reach(from int) []bool {
	seen := make([]bool, len(g.nodes))
	stack := []int{from}
	seen[from] = true
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range g.adj[x] {
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
	}
	return seen
}

func (g *graph) connected(m, n value.Value) value.Value {
	a, b := g.index(m), g.index(n)
	if a < 0 || b < 0 {
		return value.False
	}
	return value.Bool(g.reach(a)[b])
}

func (g *graph) components() value.Value {
	done := make([]bool, len(g.nodes))
	var out []value.Value
	for i := range g.nodes {
		if done[i] {
			continue
		}
		var comp []value.Value
		for j, in := range g.reach(i) {
			if in {
				done[j] = true
				comp = append(comp, g.nodes[j])
			}
		}
		out = append(out, value.NewSetOwned(comp))
	}
	return value.NewSetOwned(out)
}

func (g *graph) simplePaths() value.Value {
	var out []value.Value
	on := make([]bool, len(g.nodes))
	var path []value.Value
	var walk func(x int)
	walk = func(x int) {
		on[x] = true
		path = append(path, g.nodes[x])
		out = append(out, value.NewTuple(append([]value.Value(nil), path...)...))
		for _, y := range g.adj[x] {
			if !on[y] {
				walk(y)
			}
		}
		path = path[:len(path)-1]
		on[x] = false
	}
	for i := range g.nodes {
		walk(i)
	}
	return value.NewSetOwned(out)
}

// toJSON renders a value as TLC's Json module does: sequences and sets as
// arrays, records as objects, strings as strings, model values as their
// names.
func (c *ctx) toJSON(v value.Value, at tla.Pos) string {
	var b strings.Builder
	var w func(v value.Value)
	w = func(v value.Value) {
		switch x := v.(type) {
		case value.Bool:
			b.WriteString(strconv.FormatBool(bool(x)))
		case value.Int:
			b.WriteString(strconv.FormatInt(int64(x), 10))
		case value.String:
			q, _ := json.Marshal(string(x))
			b.Write(q)
		case *value.Model:
			q, _ := json.Marshal(x.Name)
			b.Write(q)
		case *value.Func:
			if x.IsSeq() || !x.IsRecord() {
				b.WriteByte('[')
				for i, e := range x.Vals() {
					if i > 0 {
						b.WriteByte(',')
					}
					w(e)
				}
				b.WriteByte(']')
				return
			}
			b.WriteByte('{')
			for i, k := range x.Keys() {
				if i > 0 {
					b.WriteByte(',')
				}
				q, _ := json.Marshal(string(k.(value.String)))
				b.Write(q)
				b.WriteByte(':')
				w(x.Vals()[i])
			}
			b.WriteByte('}')
		case value.SetValue:
			b.WriteByte('[')
			for i, e := range c.enumerateValue(at, x).Elems() {
				if i > 0 {
					b.WriteByte(',')
				}
				w(e)
			}
			b.WriteByte(']')
		}
	}
	w(v)
	return b.String()
}
