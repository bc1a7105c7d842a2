package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"

	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// ITF writes a counterexample in the Informal Trace Format of Apalache and
// Quint (https://apalache-mc.org/docs/adr/015adr-trace.html): the spec's
// variables in every state, with "loop" the index of the state a lasso
// returns to (a liveness counterexample), and, as Quint's --mbt does, the
// action taken into each state in the variable mbt::actionTaken ("init" for
// the initial state). Integers are {"#bigint": "n"}, sets {"#set": [...]},
// sequences JSON arrays, records JSON objects, other functions
// {"#map": [[k, v], ...]}, model values strings.
func ITF(source, description string, vars []string, trace []Step, loop int) ([]byte, error) {
	var b bytes.Buffer
	meta := map[string]any{"format": "ITF", "source": source, "description": description}
	b.WriteString(`{"#meta":`)
	writeJSON(&b, meta)
	b.WriteString(`,"vars":`)
	writeJSON(&b, append(append([]string{}, vars...), actionVar))
	b.WriteString(`,"states":[`)
	for i, st := range trace {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"#meta":{"index":%d},`, i)
		for j, v := range vars {
			writeJSON(&b, v)
			b.WriteByte(':')
			if err := writeITFValue(&b, st.State[j]); err != nil {
				return nil, fmt.Errorf("state %d, variable %s: %w", i, v, err)
			}
			b.WriteByte(',')
		}
		action := "init"
		if st.Action != nil {
			action = st.Action.String()
		}
		writeJSON(&b, actionVar)
		b.WriteByte(':')
		writeJSON(&b, action)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if loop >= 0 {
		fmt.Fprintf(&b, `,"loop":%d`, loop)
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// actionVar is the variable that holds the action taken, as in Quint's
// --mbt traces.
const actionVar = "mbt::actionTaken"

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	b.Truncate(b.Len() - 1) // the newline Encode adds
}

func writeITFValue(b *bytes.Buffer, v value.Value) error {
	switch x := v.(type) {
	case value.Bool:
		b.WriteString(strconv.FormatBool(bool(x)))
	case value.Int:
		fmt.Fprintf(b, `{"#bigint":"%d"}`, int64(x))
	case value.String:
		writeJSON(b, string(x))
	case *value.Model:
		writeJSON(b, x.Name)
	case *value.Func:
		switch {
		case x.IsSeq() && x.Len() > 0:
			b.WriteByte('[')
			for i, e := range x.Vals() {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := writeITFValue(b, e); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		case x.IsRecord():
			b.WriteByte('{')
			for i, k := range x.Keys() {
				if i > 0 {
					b.WriteByte(',')
				}
				writeJSON(b, string(k.(value.String)))
				b.WriteByte(':')
				if err := writeITFValue(b, x.Vals()[i]); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		default:
			b.WriteString(`{"#map":[`)
			for i, k := range x.Keys() {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteByte('[')
				if err := writeITFValue(b, k); err != nil {
					return err
				}
				b.WriteByte(',')
				if err := writeITFValue(b, x.Vals()[i]); err != nil {
					return err
				}
				b.WriteByte(']')
			}
			b.WriteString("]}")
		}
	case value.SetValue:
		s, err := x.Enumerate()
		if err != nil {
			return err
		}
		b.WriteString(`{"#set":[`)
		for i, e := range s.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeITFValue(b, e); err != nil {
				return err
			}
		}
		b.WriteString("]}")
	default:
		return fmt.Errorf("no ITF form for %s", value.Format(v))
	}
	return nil
}

// ITFTrace is a trace read from ITF: the states (over Vars) and the index
// the trace loops back to (-1 for a finite trace).
type ITFTrace struct {
	Vars    []string
	States  []eval.State
	Actions []string // the action taken into each state, when the trace says
	Loop    int
}

// ReadITF reads an ITF trace, written by ITF or by another tool (Apalache,
// Quint). Strings that name a model value of models are read as that model
// value; a JSON array is a sequence; {"#tup": ...} a tuple.
func ReadITF(data []byte, models map[string]bool) (*ITFTrace, error) {
	var doc struct {
		Vars   []string                     `json:"vars"`
		States []map[string]json.RawMessage `json:"states"`
		Loop   *int                         `json:"loop"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("itf: %w", err)
	}
	tr := &ITFTrace{Loop: -1}
	for _, v := range doc.Vars {
		if v != actionVar {
			tr.Vars = append(tr.Vars, v)
		}
	}
	if doc.Loop != nil {
		if *doc.Loop < 0 || *doc.Loop >= len(doc.States) {
			return nil, fmt.Errorf("itf: loop %d is not the index of a state (%d states)", *doc.Loop, len(doc.States))
		}
		tr.Loop = *doc.Loop
	}
	for i, st := range doc.States {
		s := make(eval.State, len(tr.Vars))
		for j, v := range tr.Vars {
			raw, ok := st[v]
			if !ok {
				return nil, fmt.Errorf("itf: state %d has no variable %s", i, v)
			}
			x, err := readITFValue(raw, models)
			if err != nil {
				return nil, fmt.Errorf("itf: state %d, variable %s: %w", i, v, err)
			}
			s[j] = x
		}
		tr.States = append(tr.States, s)
		var a string
		if raw, ok := st[actionVar]; ok {
			_ = json.Unmarshal(raw, &a)
		}
		tr.Actions = append(tr.Actions, a)
	}
	return tr, nil
}

func readITFValue(raw json.RawMessage, models map[string]bool) (value.Value, error) {
	var x any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return itfValue(x, models)
}

func itfValue(x any, models map[string]bool) (value.Value, error) {
	switch v := x.(type) {
	case bool:
		return value.Bool(v), nil
	case string:
		if models[v] {
			return &value.Model{Name: v}, nil
		}
		return value.String(v), nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", v, err)
		}
		return value.Int(n), nil
	case []any:
		elems, err := itfValues(v, models)
		if err != nil {
			return nil, err
		}
		return value.NewTuple(elems...), nil
	case map[string]any:
		if n, ok := v["#bigint"].(string); ok && len(v) == 1 {
			i, ok := new(big.Int).SetString(n, 10)
			if !ok || !i.IsInt64() {
				return nil, fmt.Errorf("#bigint %q does not fit in 64 bits", n)
			}
			return value.Int(i.Int64()), nil
		}
		for _, tag := range []string{"#tup", "#set"} {
			if l, ok := v[tag].([]any); ok && len(v) == 1 {
				elems, err := itfValues(l, models)
				if err != nil {
					return nil, err
				}
				if tag == "#tup" {
					return value.NewTuple(elems...), nil
				}
				return value.NewSetOwned(elems), nil
			}
		}
		if l, ok := v["#map"].([]any); ok && len(v) == 1 {
			var keys, vals []value.Value
			for _, p := range l {
				pair, ok := p.([]any)
				if !ok || len(pair) != 2 {
					return nil, fmt.Errorf("#map entry %v is not a pair", p)
				}
				k, err := itfValue(pair[0], models)
				if err != nil {
					return nil, err
				}
				e, err := itfValue(pair[1], models)
				if err != nil {
					return nil, err
				}
				keys, vals = append(keys, k), append(vals, e)
			}
			return value.NewFunc(keys, vals), nil
		}
		if u, ok := v["#unserializable"]; ok {
			return nil, fmt.Errorf("unserializable value %v", u)
		}
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names)
		vals := make([]value.Value, len(names))
		for i, k := range names {
			e, err := itfValue(v[k], models)
			if err != nil {
				return nil, err
			}
			vals[i] = e
		}
		return value.NewRecord(names, vals), nil
	}
	return nil, fmt.Errorf("no TLA+ value for %v", x)
}

func itfValues(l []any, models map[string]bool) ([]value.Value, error) {
	out := make([]value.Value, len(l))
	for i, e := range l {
		v, err := itfValue(e, models)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// MatchITF replays a trace read from ITF against the model: its first state
// must be an initial state, each later one a successor of the one before
// (whatever action the trace names), and a lasso's last state must have its
// loop state as a successor. It returns the trace as steps with the
// model's actions, or an error that names the first state with no match.
// Traces written by other tools are accepted as long as their states are
// the model's: variables are matched by name, in any order.
func MatchITF(m *Model, tr *ITFTrace) ([]Step, error) {
	if len(tr.States) == 0 {
		return nil, fmt.Errorf("itf: the trace has no states")
	}
	if err := m.Spec.CheckAssumptions(); err != nil {
		return nil, err
	}
	idx := make([]int, len(m.Spec.Vars))
	for i, v := range m.Spec.Vars {
		idx[i] = -1
		for j, w := range tr.Vars {
			if w == v {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			return nil, fmt.Errorf("itf: the trace has no variable %s", v)
		}
	}
	states := make([]eval.State, len(tr.States))
	for k, s := range tr.States {
		states[k] = make(eval.State, len(idx))
		for i, j := range idx {
			states[k][i] = s[j]
		}
	}
	same := func(a, b eval.State) bool {
		for i := range a {
			if eq, err := value.EqualStrict(a[i], b[i]); err != nil || !eq {
				return false
			}
		}
		return true
	}
	found := false
	if err := m.Spec.Init(m.Init, func(s eval.State) { found = found || same(s, states[0]) }); err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("itf: state 0 of the trace is not an initial state of the spec:\n%s", m.Spec.Format(states[0]))
	}
	steps := []Step{{State: states[0]}}
	step := func(k int, from, to eval.State) (*eval.Action, error) {
		var act *eval.Action
		err := m.Spec.Next(m.Next, from, func(t eval.State, a *eval.Action) {
			if act == nil && same(t, to) {
				act = a
			}
		})
		if err != nil {
			return nil, err
		}
		if act == nil && m.Vars != nil && same(from, to) {
			act = &eval.Action{Name: "Stuttering"}
		}
		if act == nil {
			return nil, fmt.Errorf("itf: state %d of the trace is not a successor of state %d under %s:\n%s", k, k-1, m.Next, m.Spec.Format(to))
		}
		return act, nil
	}
	for k := 1; k < len(states); k++ {
		act, err := step(k, states[k-1], states[k])
		if err != nil {
			return nil, err
		}
		steps = append(steps, Step{Action: act, State: states[k]})
	}
	if tr.Loop >= 0 {
		if _, err := step(tr.Loop, states[len(states)-1], states[tr.Loop]); err != nil {
			return nil, fmt.Errorf("itf: the trace loops back to state %d, which is not a successor of its last state %d", tr.Loop, len(states)-1)
		}
	}
	return steps, nil
}
