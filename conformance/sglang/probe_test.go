package sglang

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla/cfg"
)

// probedSwitches are the Room.tla switches the harness's probe reports
// (probe.py); TestProbeMinitree checks the probe still reports exactly these.
var probedSwitches = []string{
	"AbortAckSent", "AbortKillsBootstrap", "AbortPopsTransferInfos", "AbortSparesSuccess",
	"AbsentReadsWaiting", "AckOnDrain", "CountsAtDequeue", "CountsOutstanding", "FailedSticky",
	"FailureClears", "HasBootstrapTimeout", "InflightBootstrappingRaises",
}

func parseBundled(t *testing.T, name string) ([]byte, *cfg.Config) {
	t.Helper()
	v, err := spec.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v.Text, v.Cfg
}

// switchesOf are the probed switches' values in c, as a probe of code
// that c models would report them.
func switchesOf(t *testing.T, c *cfg.Config) map[string]bool {
	t.Helper()
	sw := map[string]bool{}
	for _, k := range probedSwitches {
		d := constant(c, k)
		if d == nil || d.Value.Kind != cfg.Bool {
			t.Fatalf("%s: no boolean %s", c.File, k)
		}
		sw[k] = d.Value.Bool
	}
	return sw
}

func bundledFamily(t *testing.T) []string {
	var names []string
	for _, v := range spec.Variants() {
		if !strings.HasPrefix(v, "sglang-") {
			continue
		}
		if _, c := parseBundled(t, v); oneRequest(c) {
			names = append(names, v)
		}
	}
	if len(names) < 8 {
		t.Fatalf("only %d sglang-* configurations bundled: %v", len(names), names)
	}
	return names
}

// Each bundled sglang-* configuration is what Choose picks for code with
// its switches: the family is told apart by what the probe can see.
func TestChooseBundled(t *testing.T) {
	for _, name := range bundledFamily(t) {
		t.Run(name, func(t *testing.T) {
			text, c := parseBundled(t, name)
			got, gotText, err := Choose(Ingredients{Switches: switchesOf(t, c)})
			if err != nil {
				t.Fatal(err)
			}
			if got != name || !bytes.Equal(gotText, text) {
				t.Errorf("Choose = %s, want %s", got, name)
			}
		})
	}
}

// Switches no bundled configuration has: a configuration of the family's
// shape with exactly those values, named "probed", that the model accepts.
func TestChooseProbed(t *testing.T) {
	_, base := parseBundled(t, "sglang-35360")
	for _, tc := range []struct {
		name string
		flip []string
	}{
		{"absent room raises", []string{"AbsentReadsWaiting"}},
		{"ABORT pops transfer infos", []string{"AbortPopsTransferInfos"}},
		{"two differences", []string{"FailedSticky", "HasBootstrapTimeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := switchesOf(t, base)
			for _, k := range tc.flip {
				sw[k] = !sw[k]
			}
			name, text, err := Choose(Ingredients{Switches: sw})
			if err != nil {
				t.Fatal(err)
			}
			if name != "probed" {
				t.Fatalf("Choose = %s, want probed", name)
			}
			c, err := cfg.Parse("probed.cfg", text)
			if err != nil {
				t.Fatalf("rendered text does not parse: %v\n%s", err, text)
			}
			if !strings.HasPrefix(string(text), `\* probed: the switches roomspec's probe found`) {
				t.Errorf("no header:\n%s", text)
			}
			if got := switchesOf(t, c); !maps.Equal(got, sw) {
				t.Errorf("rendered switches %v, want %v", got, sw)
			}
			for _, k := range unprobed {
				if d := constant(c, k); d == nil || d.Value.Bool {
					t.Errorf("%s is not FALSE", k)
				}
			}
			for _, k := range []string{"Rooms", "DecodeRanks", "NumChunks", "RequiredDstInfoNum", "RoomReuse", "TimeoutsFair"} {
				if constant(c, k).String() != constant(base, k).String() {
					t.Errorf("%s = %s, want the family's %s", k, constant(c, k), constant(base, k))
				}
			}
			v, err := spec.Parse(name, text)
			if err != nil {
				t.Fatal(err)
			}
			m, err := v.Compiled()
			if err != nil {
				t.Fatalf("compiling %s: %v", name, err)
			}
			if m.AbsentReadsWaiting != sw["AbsentReadsWaiting"] || m.FailedSticky != sw["FailedSticky"] ||
				m.HasBootstrapTimeout != sw["HasBootstrapTimeout"] || m.AbortPopsTransferInfos != sw["AbortPopsTransferInfos"] {
				t.Errorf("the model's switches differ from the rendered ones")
			}
			if !slices.Equal(m.Properties, names(base.Properties)) || !slices.Equal(m.Invariants, names(base.Invariants)) {
				t.Errorf("checked %v %v, want the family's %v %v", m.Invariants, m.Properties, names(base.Invariants), names(base.Properties))
			}
		})
	}
}

// A switch the spec does not know cannot be modelled: an error, not a
// configuration that silently leaves it out.
func TestChooseUnknownSwitch(t *testing.T) {
	_, base := parseBundled(t, "sglang-35360")
	sw := switchesOf(t, base)
	sw["ProbeNewerThanSpec"] = true
	name, _, err := Choose(Ingredients{Switches: sw})
	if err == nil || !strings.Contains(err.Error(), "ProbeNewerThanSpec") {
		t.Fatalf("Choose = %s, %v; want an error naming the switch", name, err)
	}
}

func names(ns []*cfg.Name) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}

// Render with nothing set writes the configuration back as it was.
func TestRenderRoundTrip(t *testing.T) {
	for _, name := range bundledFamily(t) {
		t.Run(name, func(t *testing.T) {
			_, c := parseBundled(t, name)
			text := Render(c, "again", nil)
			back, err := cfg.Parse("again.cfg", text)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if describe(back) != describe(c) {
				t.Errorf("round trip differs:\n%s\nwant\n%s", describe(back), describe(c))
			}
		})
	}
}

func describe(c *cfg.Config) string {
	var b strings.Builder
	for _, d := range c.Constants {
		b.WriteString(d.String() + "\n")
	}
	b.WriteString("SPECIFICATION " + c.Specification.Name + "\n")
	b.WriteString("INVARIANTS " + strings.Join(names(c.Invariants), " ") + "\n")
	b.WriteString("PROPERTIES " + strings.Join(names(c.Properties), " ") + "\n")
	if c.CheckDeadlock != nil {
		b.WriteString(map[bool]string{true: "CHECK_DEADLOCK TRUE", false: "CHECK_DEADLOCK FALSE"}[*c.CheckDeadlock])
	}
	return b.String()
}

func TestPrompt(t *testing.T) {
	for _, name := range bundledFamily(t) {
		t.Run(name, func(t *testing.T) {
			text, c := parseBundled(t, name)
			pname, ptext, err := Prompt(name, text)
			if err != nil {
				t.Fatal(err)
			}
			if pname != name+"-prompt" {
				t.Errorf("name %s", pname)
			}
			p, err := cfg.Parse(pname+".cfg", ptext)
			if err != nil {
				t.Fatalf("%v\n%s", err, ptext)
			}
			want := slices.Clone(names(c.Properties))
			want[slices.Index(want, "AbortedRoomsTerminate")] = "PromptTermination"
			if got := names(p.Properties); !slices.Equal(got, want) {
				t.Errorf("properties %v, want %v", got, want)
			}
			for _, d := range c.Constants {
				wantDef := d.String()
				if d.Name == "TimeoutsFair" {
					wantDef = "TimeoutsFair = FALSE"
				}
				if got := constant(p, d.Name).String(); got != wantDef {
					t.Errorf("%s, want %s", got, wantDef)
				}
			}
			v, err := spec.Parse(pname, ptext)
			if err != nil {
				t.Fatal(err)
			}
			m, err := v.Compiled()
			if err != nil {
				t.Fatal(err)
			}
			if m.TimeoutsFair || !slices.Contains(m.Properties, "PromptTermination") {
				t.Errorf("the model reads TimeoutsFair %v, properties %v", m.TimeoutsFair, m.Properties)
			}
		})
	}
}

func TestPromptAddsTheProperty(t *testing.T) {
	text, _ := parseBundled(t, "sglang-35360")
	without := bytes.Replace(text, []byte("    AbortedRoomsTerminate\n"), nil, 1)
	_, ptext, err := Prompt("x", without)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := cfg.Parse("x.cfg", ptext)
	if got := names(p.Properties); got[len(got)-1] != "PromptTermination" || slices.Contains(got, "AbortedRoomsTerminate") {
		t.Errorf("properties %v", got)
	}
	if _, _, err := Prompt("bad", []byte("CONSTANTS = =")); err == nil {
		t.Error("Prompt of text that does not parse: no error")
	}
}

// The probe of SGLang's real code (ROOMSPEC_SGLANG) reports every probed
// switch and the modules that read the clock, and chooses a bundled
// configuration; with the deferred release switched on where the code has
// it, that configuration's -deferred form.
func TestProbeRealCode(t *testing.T) {
	needPython(t)
	given := realSource(t)
	cache := t.TempDir()
	dir, err := InstallHarness(cache)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := Resolve(ctx, given, cache)
	if err != nil {
		t.Fatal(err)
	}
	ing, err := Probe(ctx, dir, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(ing.Switches)); !slices.Equal(got, probedSwitches) {
		t.Errorf("the probe reports %v, want %v", got, probedSwitches)
	}
	for _, m := range []string{"sglang.srt.disaggregation.common.conn", "sglang.srt.disaggregation.nixl.conn"} {
		if !slices.Contains(ing.TimeReaders, m) {
			t.Errorf("time readers %v: %s is not among them", ing.TimeReaders, m)
		}
	}
	name, _, err := Choose(ing)
	if err != nil || !strings.HasPrefix(name, "sglang-") {
		t.Fatalf("Choose = %s, %v; want a bundled sglang-* configuration", name, err)
	}
	if !ing.DeferredAckAvailable {
		t.Logf("%s has no deferred release: %s", src.Label(), name)
		return
	}
	deferred, err := Probe(ctx, dir, src, Env{"SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := Choose(deferred); err != nil || got != name+"-deferred" {
		t.Errorf("with the deferred release, Choose = %s, %v; want %s-deferred", got, err, name)
	}
}

func TestProbeFailure(t *testing.T) {
	needPython(t)
	dir, err := InstallHarness(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Probe(context.Background(), dir, Source{Root: t.TempDir(), Given: "empty"}, nil)
	if err == nil || !strings.Contains(err.Error(), "probe empty") || !strings.Contains(err.Error(), "does not hold SGLang's Python sources") {
		t.Fatalf("Probe of a folder without SGLang: %v", err)
	}
}
