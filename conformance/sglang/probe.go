package sglang

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla/cfg"
)

// Ingredients are the switches of spec/Room.tla the probe found, by
// running the loaded code on small situations.
type Ingredients struct {
	// Switches maps each probed switch (a Room.tla constant) to its value.
	Switches map[string]bool `json:"switches"`
	// DeferredAckAvailable: the code has PR #35360's deferred release,
	// whether or not its environment variable turned it on.
	DeferredAckAvailable bool `json:"deferred_ack_available"`
	// TimeReaders are the loaded modules whose time.time() the harness's
	// clock replaces.
	TimeReaders []string `json:"time_readers"`
	// BootstrapTimeout is the code's bootstrap timeout in seconds (its
	// manager's, SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT or environ.py's
	// default); 0 for code without one.
	BootstrapTimeout float64 `json:"bootstrap_timeout,omitempty"`
	// Backend is the backend probed ("" for NIXL).
	Backend string `json:"-"`
}

// Probe runs the harness's probe on src: which ingredients the code has.
func Probe(ctx context.Context, harnessDir string, src Source, env Env) (Ingredients, error) {
	argv := append([]string{Python()}, args(src, env)...)
	argv = append(argv, "--probe")
	out, err := subprocess.Output(ctx, argv, subprocess.OutputOptions{
		Timeout: 2 * time.Minute,
		Env:     append(os.Environ(), "PYTHONPATH="+harnessDir),
	})
	if err != nil {
		return Ingredients{}, fmt.Errorf("sglang: probe %s: %w", src.Label(), err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(out, &raw); err != nil {
		return Ingredients{}, fmt.Errorf("sglang: probe %s: not JSON: %w", src.Label(), err)
	}
	ing := Ingredients{Switches: map[string]bool{}, Backend: src.Backend}
	for k, v := range raw {
		switch k {
		case "deferred_ack_available":
			json.Unmarshal(v, &ing.DeferredAckAvailable)
		case "time_readers":
			json.Unmarshal(v, &ing.TimeReaders)
		case "bootstrap_timeout":
			json.Unmarshal(v, &ing.BootstrapTimeout) // null: none
		default:
			var b bool
			if err := json.Unmarshal(v, &b); err != nil {
				return Ingredients{}, fmt.Errorf("sglang: probe %s: %s is not a boolean", src.Label(), k)
			}
			ing.Switches[k] = b
		}
	}
	return ing, nil
}

// Label names the source for messages: its commit, else what was given.
func (s Source) Label() string {
	l := s.Given
	if s.Commit != "" {
		l = s.Commit[:min(len(s.Commit), 12)]
	}
	if s.Fix != "" {
		l += " (fix " + s.Fix + ")"
	}
	return l
}

// BackendName is the backend whose conn.py the harness drives for s.
func (s Source) BackendName() string { return cmp.Or(s.Backend, NIXL) }

// unprobed are the switches no shipped SGLang commit has: the proposed
// fixes and the fork's. Real code reads them FALSE.
var unprobed = []string{"AbsentLiveSenderFails", "AckWaitsForWrites", "AckOnDrainFixed", "RecordTombstones", "FailureTombstones", "WorkerSkipsMissing"}

// familyPrefix names the bundled configurations Choose picks from:
// SGLang's commit ranges, two chunks per request, one room id per request.
const familyPrefix = "sglang-"

// Choose returns the bundled configuration that models the ingredients
// (the sglang-* family: the one whose switches all agree), or, where none
// does, a configuration of the family's shape with those switches, named
// "probed". It is the code choosing its own configuration: what runs
// where no expectation exists (Expectation says what code must refine).
func Choose(ing Ingredients) (name string, src []byte, err error) {
	return configFor(familyOf(ing.Backend), ing.Switches, "probed", "probed: the switches roomspec's probe found in the loaded code")
}

// configFor returns the bundled configuration of the family (a name
// prefix: familyPrefix, or a backend's) whose switches agree with sw (the
// unprobed ones FALSE where sw does not give them), or else one of the
// family's shape with those switches, named name under header.
func configFor(prefix string, sw map[string]bool, name, header string) (string, []byte, error) {
	want := maps.Clone(sw)
	for _, k := range unprobed {
		if _, probed := sw[k]; !probed {
			want[k] = false
		}
	}
	candidates, err := family(prefix)
	if err != nil {
		return "", nil, err
	}
	var template *cfg.Config
	for _, v := range candidates {
		template = v.Cfg
		if agrees(v.Cfg, want) {
			return v.Name, v.Text, nil
		}
	}
	if template == nil {
		return "", nil, fmt.Errorf("sglang: no bundled %s* configuration", prefix)
	}
	// A switch the spec does not have would be left out of the rendered
	// configuration, and the code checked against a model of other code.
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if d := constant(template, k); d == nil || d.Value == nil || d.Value.Kind != cfg.Bool {
			return "", nil, fmt.Errorf("sglang: %s is not a switch of spec/Room.tla's %s* configurations", k, prefix)
		}
	}
	return name, Render(template, header, want), nil
}

// family returns the bundled configurations whose names start with
// prefix, in name order.
func family(prefix string) ([]*spec.Variant, error) {
	var out []*spec.Variant
	for _, name := range slices.Sorted(slices.Values(spec.Variants())) {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		v, err := spec.Load(name)
		if err != nil {
			return nil, fmt.Errorf("sglang: bundled %s.cfg: %w", name, err)
		}
		if !oneRequest(v.Cfg) || unfair(v.Cfg) {
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

// oneRequest reports whether c has the family's shape: one room, no reuse
// (one request). The other sglang-* configurations (two rooms, a reused
// room) run a member's code under more requests; they are chosen with
// -variant, never told apart by a probe of the code.
func oneRequest(c *cfg.Config) bool {
	rooms, reuse := constant(c, "Rooms"), constant(c, "RoomReuse")
	return rooms != nil && rooms.Value != nil && rooms.Value.Kind == cfg.Set && len(rooms.Value.Elem) == 1 &&
		(reuse == nil || reuse.Value == nil || reuse.Value.Kind != cfg.Bool || !reuse.Value.Bool)
}

// unfair reports whether c leaves timeouts out of fairness (a bundled
// *-prompt form: the suite derives those with Prompt).
func unfair(c *cfg.Config) bool {
	d := constant(c, "TimeoutsFair")
	return d != nil && d.Value != nil && d.Value.Kind == cfg.Bool && !d.Value.Bool
}

// bundled loads the bundled configuration name with its switches: the
// boolean constants that the probe reports (Behaviour's keys).
func bundled(name string) (*spec.Variant, map[string]bool, error) {
	v, err := spec.Load(name)
	if err != nil {
		return nil, nil, fmt.Errorf("sglang: %w", err)
	}
	sw := map[string]bool{}
	for k := range Behaviour {
		if d := constant(v.Cfg, k); d != nil && d.Value != nil && d.Value.Kind == cfg.Bool {
			sw[k] = d.Value.Bool
		}
	}
	return v, sw, nil
}

// bundledSwitches are the switches of the bundled configuration name.
func bundledSwitches(name string) (map[string]bool, error) {
	_, sw, err := bundled(name)
	return sw, err
}

// agrees reports whether every switch of want has that value in c.
func agrees(c *cfg.Config, want map[string]bool) bool {
	for k, v := range want {
		d := constant(c, k)
		if d == nil || d.Value == nil || d.Value.Kind != cfg.Bool || d.Value.Bool != v {
			return false
		}
	}
	return true
}

func constant(c *cfg.Config, name string) *cfg.ConstantDef {
	for _, d := range c.Constants {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Render writes c as cfg text with the boolean constants of set given
// those values, under a header comment.
func Render(c *cfg.Config, header string, set map[string]bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "\\* %s\n\nCONSTANTS\n", header)
	for _, d := range c.Constants {
		if v, ok := set[d.Name]; ok && d.Value != nil && d.Value.Kind == cfg.Bool {
			fmt.Fprintf(&b, "    %s = %s\n", d.Name, map[bool]string{true: "TRUE", false: "FALSE"}[v])
			continue
		}
		fmt.Fprintf(&b, "    %s\n", d)
	}
	if c.Specification != nil {
		fmt.Fprintf(&b, "\nSPECIFICATION %s\n", c.Specification.Name)
	}
	names := func(kw string, ns []*cfg.Name) {
		if len(ns) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s\n", kw)
		for _, n := range ns {
			fmt.Fprintf(&b, "    %s\n", n.Name)
		}
	}
	names("INVARIANTS", c.Invariants)
	names("PROPERTIES", c.Properties)
	if c.CheckDeadlock != nil {
		fmt.Fprintf(&b, "\nCHECK_DEADLOCK %s\n", map[bool]string{true: "TRUE", false: "FALSE"}[*c.CheckDeadlock])
	}
	return []byte(b.String())
}

// Prompt returns the PromptTermination form of a configuration: timeouts
// not fair, and PromptTermination checked instead of
// AbortedRoomsTerminate.
func Prompt(name string, text []byte) (string, []byte, error) {
	c, err := cfg.Parse(name+".cfg", text)
	if err != nil {
		return "", nil, err
	}
	for i, p := range c.Properties {
		if p.Name == "AbortedRoomsTerminate" {
			c.Properties[i] = &cfg.Name{Pos: p.Pos, Name: "PromptTermination"}
		}
	}
	if !slices.ContainsFunc(c.Properties, func(n *cfg.Name) bool { return n.Name == "PromptTermination" }) {
		c.Properties = append(c.Properties, &cfg.Name{Name: "PromptTermination"})
	}
	return name + "-prompt", Render(c, name+" with timeouts not fair (PromptTermination)", map[string]bool{"TimeoutsFair": false}), nil
}
