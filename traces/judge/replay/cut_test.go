package replay_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/roomspec/roomspec/internal/pcapcut"
	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// TestCutScenarios is issue 22's criterion for rotated captures, on the
// judging side: every replay scenario's capture, cut into two or three
// files at every tenth of its packets and given in any order, gives the
// replay the same observations as the whole file, and every room the
// same verdict with the log; from the wire alone too, checked on the cut
// at the middle (the same observations give the same verdicts, and a
// wire-only search of reuse-upstream takes seconds).
func TestCutScenarios(t *testing.T) {
	all, err := scenarios.All(filepath.Join("..", "..", "testdata", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(22, 5))
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			data, err := os.ReadFile(sc.Capture())
			if err != nil {
				t.Fatal(err)
			}
			rd, err := capture.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			whole, end := wireOf(rd)
			judge := judgeScenario(t, sc, end)
			want := judge(whole, true)
			n, err := pcapcut.Count(data)
			if err != nil {
				t.Fatal(err)
			}
			opts := cmpopts.EquateComparable(netip.AddrPort{})
			for _, cut := range pcapcut.Tenths(n) {
				got := wireOfCut(t, data, r, cut...)
				if diff := cmp.Diff(whole, got, opts); diff != "" {
					t.Errorf("cut before packets %v: observations differ (-whole +cut):\n%s", cut, diff)
					continue
				}
				if diff := cmp.Diff(want, judge(got, true)); diff != "" {
					t.Errorf("cut before packets %v: verdicts with the log differ (-whole +cut):\n%s", cut, diff)
				}
			}
			got := wireOfCut(t, data, r, n/2)
			if diff := cmp.Diff(judge(whole, false), judge(got, false)); diff != "" {
				t.Errorf("cut at the middle: wire-only verdicts differ (-whole +cut):\n%s", diff)
			}
		})
	}
}

// wireOf decodes src into wire observations, and the capture's end.
func wireOf(src capture.Records) ([]observe.Observation, time.Time) {
	var obs []observe.Observation
	sum := decode.RunRecords(src, decode.Options{}, func(m *decode.Message) {
		if o, ok := observe.FromMessage(m); ok {
			obs = append(obs, o)
		}
	}, nil)
	return obs, sum.End
}

// wireOfCut decodes data cut before the packets at as one capture of
// files given in a shuffled order.
func wireOfCut(t *testing.T, data []byte, r *rand.Rand, at ...int) []observe.Observation {
	t.Helper()
	parts, err := pcapcut.Cut(data, at...)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := capture.OpenFiles(pcapcut.Inputs(parts, r))
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := wireOf(fs)
	return obs
}

// judgeScenario returns a function that replays a scenario's wire
// observations (with its log, or without) and returns each reported
// room's verdict and reason.
func judgeScenario(t *testing.T, sc scenarios.Scenario, end time.Time) func([]observe.Observation, bool) map[string]string {
	t.Helper()
	deadline, err := sc.DeadlineDuration()
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.Compiled(sc.Variant)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := os.Open(sc.Log())
	if err != nil {
		t.Fatal(err)
	}
	events, err := eventlog.ReadAll(lf)
	lf.Close()
	if err != nil {
		t.Fatal(err)
	}
	var logObs []observe.Observation
	for i := range events {
		if o, ok := observe.FromEvent(&events[i]); ok {
			logObs = append(logObs, o)
		}
	}
	return func(wire []observe.Observation, withLog bool) map[string]string {
		j, err := judge.New(c, judge.Options{Deadline: deadline, Log: withLog})
		if err != nil {
			t.Fatal(err)
		}
		obs := wire
		if withLog {
			obs = observe.Merge(wire, logObs)
		}
		for _, o := range obs {
			j.Step(o)
		}
		j.Finish(end)
		if err := j.Err(); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, ev := range j.Ready() {
			if ev.Kind == judge.EventVerdict {
				out[fmt.Sprintf("room %d", ev.Room.Room)] = string(ev.Room.Verdict) + ": " + ev.Room.Reason
			}
		}
		if len(out) == 0 {
			t.Fatal("no room reported: nothing to compare")
		}
		return out
	}
}
