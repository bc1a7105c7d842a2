package scenarios

import (
	"os"
	"slices"
	"testing"
)

func TestAll(t *testing.T) {
	all, err := All(Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.CapturedOnly {
			t.Errorf("%s: the captured suite's own, among replay's", s.Name)
		}
		if _, err := s.DeadlineDuration(); err != nil {
			t.Error(err)
		}
		for _, f := range []string{s.Capture(), s.Log()} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
		}
	}
	with, err := WithCaptured(Dir())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(with, func(s Scenario) bool { return s.CapturedOnly })
	if len(with) <= len(all) || i < 0 || with[i].Variant == "" {
		t.Errorf("%d scenarios with the captured suite's, %d without; want more, with a variant", len(with), len(all))
	}
	if _, err := All(t.TempDir()); err == nil {
		t.Error("a folder without scenarios: no error")
	}
	bad := t.TempDir()
	if err := os.WriteFile(bad+"/x.expected.json", []byte(`{"deadline": "1s"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bad, "x"); err == nil {
		t.Error("a scenario without a variant: no error")
	}
}

func TestObservations(t *testing.T) {
	s, err := Read(Dir(), "storm-fork")
	if err != nil {
		t.Fatal(err)
	}
	wire, log, end, err := s.Observations()
	if err != nil {
		t.Fatal(err)
	}
	if len(wire) == 0 || len(log) == 0 || end.IsZero() {
		t.Fatalf("%d wire and %d log observations, end %v", len(wire), len(log), end)
	}
	for _, o := range wire {
		if !o.Kind.Wire() || o.Time.After(end) {
			t.Fatalf("wire observation %v at %v (end %v)", o.Kind, o.Time, end)
		}
	}
	for _, o := range log {
		if o.Kind.Wire() {
			t.Fatalf("log observation of kind %v", o.Kind)
		}
	}
}
