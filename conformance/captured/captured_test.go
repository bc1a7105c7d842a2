package captured

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/impl"
	"github.com/roomspec/roomspec/internal/golden"
	scen "github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge"
)

// scenario is a bundled capture with the variant it was recorded under.
type scenario struct {
	name, path, log, variant string
}

// scenarios lists the bundled scenarios, the captured suite's own too
// (internal/scenarios).
func scenarios(t *testing.T) []scenario {
	t.Helper()
	all, err := scen.WithCaptured(scen.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []scenario
	for _, s := range all {
		out = append(out, scenario{name: filepath.Base(s.Capture()), path: s.Capture(), log: s.Log(), variant: s.Variant})
	}
	return out
}

// builtinFor returns the Go port checked against variant.
func builtinFor(t *testing.T, variant string) (string, conformance.Implementation, *model.Config) {
	t.Helper()
	for _, b := range impl.Builtins {
		if b.Cfg == variant {
			c, err := conformance.LoadVariant(variant)
			if err != nil {
				t.Fatal(err)
			}
			return b.Name, conformance.NewPort(b.Variant), c
		}
	}
	t.Fatalf("no built-in port of %s", variant)
	return "", nil, nil
}

// rooms reads a scenario's rooms under c, with its log or not.
func rooms(t testing.TB, sc scenario, c *model.Config, withLog bool) []*Room {
	t.Helper()
	f, err := os.Open(sc.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var log *os.File
	if withLog {
		if log, err = os.Open(sc.log); err != nil {
			t.Fatal(err)
		}
		defer log.Close()
	}
	var rs []*Room
	if log != nil {
		rs, err = Rooms(c, sc.name, f, log, Options{})
	} else {
		rs, err = Rooms(c, sc.name, f, nil, Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// The two analyses of a capture agree: on every bundled scenario, the
// rooms replay calls at-risk from the wire alone are exactly the rooms
// the suite finds pinned by the variant's Go port, on its enumerated
// schedules (no seed is involved).
func TestAtRiskRoomsArePinned(t *testing.T) {
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			name, im, c := builtinFor(t, sc.variant)
			var atRisk, pinned []int64
			for _, room := range rooms(t, sc, c, false) {
				if room.Verdict == judge.AtRisk {
					atRisk = append(atRisk, room.Room)
				}
				if room.Skip != "" {
					t.Logf("room %d skipped: %s", room.Room, room.Skip)
					continue
				}
				res, err := Run(conformance.Target{Name: name, Impl: im, Config: c}, room, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Complete {
					t.Logf("room %d: more schedules than the bound (%d checked)", room.Room, res.Schedules)
				}
				if !res.Holds {
					if res.Property != conformance.Liveness {
						t.Errorf("room %d: %s fails, not liveness:\n%s", room.Room, res.Property, table(t, res))
					}
					pinned = append(pinned, room.Room)
				}
			}
			slices.Sort(atRisk)
			slices.Sort(pinned)
			if !slices.Equal(atRisk, pinned) {
				t.Errorf("replay: at-risk rooms %v; suite: pinned rooms %v", atRisk, pinned)
			}
			t.Logf("%s under %s: at-risk and pinned %v", sc.name, sc.variant, pinned)
		})
	}
}

func table(t *testing.T, res *Result) string {
	var b bytes.Buffer
	if err := WriteTable(&b, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The README's example: in healthy-pinnable, where every room concluded
// as recorded, the fork's port pins room 40 on some schedule, whatever
// the seed; the proposed fix's port holds on every schedule.
func TestHealthyPinnable(t *testing.T) {
	sc := scenario{name: "healthy-pinnable.pcap", path: filepath.Join(scen.Dir(), "healthy-pinnable.pcap")}
	for _, tc := range []struct {
		impl string
		pins bool
	}{{"fork-90a52f44a", true}, {"fixed", false}} {
		im, variant, err := conformance.Builtin(tc.impl)
		if err != nil {
			t.Fatal(err)
		}
		c, err := conformance.LoadVariant(variant)
		if err != nil {
			t.Fatal(err)
		}
		var room40 *Room
		for _, r := range rooms(t, sc, c, false) {
			if r.Room == 40 {
				room40 = r
			}
		}
		if room40 == nil {
			t.Fatal("no room 40")
		}
		for seed := int64(1); seed <= 50; seed++ {
			res, err := Run(conformance.Target{Name: tc.impl, Impl: im, Config: c}, room40, Options{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if res.Holds == tc.pins || !res.Complete {
				t.Fatalf("%s, seed %d: holds=%v over %d schedules (complete %v)", tc.impl, seed, res.Holds, res.Schedules, res.Complete)
			}
			if seed == 1 {
				t.Log(Summary(res))
				if !res.Holds {
					t.Logf("\n%s", table(t, res))
				}
			}
		}
	}
}

// A failing room's schedule is saved as ITF, loads back and still fails;
// so do the saved schedules of testdata.
func TestITFReplays(t *testing.T) {
	for _, sc := range scenarios(t) {
		if sc.variant != "fork-90a52f44a" || !strings.HasPrefix(sc.name, "storm-fork") {
			continue
		}
		name, im, c := builtinFor(t, sc.variant)
		for _, room := range rooms(t, sc, c, false) {
			if room.Room != 101 {
				continue
			}
			res, err := Run(conformance.Target{Name: name, Impl: im, Config: c}, room, Options{})
			if err != nil || res.Holds {
				t.Fatalf("%s room 101: holds=%v err=%v", sc.name, res.Holds, err)
			}
			data, err := ITF(res)
			if err != nil {
				t.Fatal(err)
			}
			if golden.Updating() {
				golden.Write(t, filepath.Join("testdata", strings.TrimSuffix(sc.name, ".pcap")+"-room101.itf.json"), append(data, '\n'))
			}
			checkSaved(t, data)
			if !bytes.Contains(data, []byte(`"room": 101`)) || !bytes.Contains(data, []byte(`"frames": [`)) {
				t.Errorf("%s: no capture metadata:\n%s", sc.name, data)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no testdata/*.itf.json")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkSaved(t, data)
	}
}

// checkSaved loads a saved schedule and replays it: it must still fail.
func checkSaved(t *testing.T, data []byte) {
	t.Helper()
	h, err := conformance.DecodeCaseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	im, _, err := conformance.Builtin(h.Impl)
	if err != nil {
		t.Fatal(err)
	}
	c, err := conformance.LoadVariant(h.Variant)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := conformance.LoadITF(c, data)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := conformance.Replay(im, c, cs, conformance.DefaultBound); err != nil || r.Holds {
		t.Errorf("replaying the saved schedule: holds=%v err=%v", r != nil && r.Holds, err)
	}
}

// With the prefill event log, the steps the log shows are taken where
// the log shows them: the aborted rooms the log never shows released are
// pinned, the others hold, and the failing schedules name log lines.
func TestWithLog(t *testing.T) {
	for _, sc := range scenarios(t) {
		if sc.name != "storm-fork.pcap" && sc.name != "healthy-pinnable.pcap" {
			continue
		}
		name, im, c := builtinFor(t, sc.variant)
		var violated, pinned []int64
		for _, room := range rooms(t, sc, c, true) {
			if !room.Log {
				t.Errorf("%s room %d: not explained with the log", sc.name, room.Room)
			}
			if room.Aborted && room.Verdict != judge.Satisfied {
				violated = append(violated, room.Room)
			}
			res, err := Run(conformance.Target{Name: name, Impl: im, Config: c}, room, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Holds {
				pinned = append(pinned, room.Room)
				tab := table(t, res)
				if !strings.Contains(tab, "log") {
					t.Errorf("%s room %d: the table names no log line:\n%s", sc.name, room.Room, tab)
				}
			}
		}
		slices.Sort(violated)
		slices.Sort(pinned)
		if !slices.Equal(violated, pinned) {
			t.Errorf("%s: violated with the log %v, pinned %v", sc.name, violated, pinned)
		}
	}
}
