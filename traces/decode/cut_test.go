package decode_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/roomspec/roomspec/internal/pcapcut"
	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/observe"
	"github.com/roomspec/roomspec/traces/replay"
)

// decoded is what a decoding run gave: each message rendered (with the
// capture's frame numbers), each diagnostic, the summary and the wire
// observations.
type decoded struct {
	msgs  []string
	diags []string
	sum   decode.Summary
	obs   []observe.Observation
}

func decodeRecords(t *testing.T, src capture.Records) decoded {
	t.Helper()
	var d decoded
	d.sum = decode.RunRecords(src, decode.Options{}, func(m *decode.Message) {
		d.msgs = append(d.msgs, m.Text(nil))
		if o, ok := observe.FromMessage(m); ok {
			d.obs = append(d.obs, o)
		}
	}, func(g decode.Diagnostic) { d.diags = append(d.diags, g.String()) })
	return d
}

// cuts returns where to cut a capture of n packets: at every tenth into
// two files, and from every tenth into three.
func cuts(n int) [][]int {
	var out [][]int
	for tenth := 1; tenth < 10; tenth++ {
		at := n * tenth / 10
		if at < 1 || at >= n {
			continue
		}
		out = append(out, []int{at})
		if second := at + (n-at)/2; second > at && second < n {
			out = append(out, []int{at, second})
		}
	}
	return out
}

// openCut opens the parts of a cut capture as one, given in a shuffled
// order, the first of them read as standard input is (once).
func openCut(t *testing.T, parts [][]byte, r *rand.Rand) *capture.Files {
	t.Helper()
	in := make([]capture.Input, len(parts))
	for i, p := range parts {
		in[i] = capture.Input{Name: "part" + strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(p)), nil
		}}
	}
	r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	in[0].Once = true
	fs, err := capture.OpenFiles(in)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestCutCaptures is issue 22's criterion for rotated captures: every
// bundled capture, cut into two or three files at every tenth of its
// packets and given in any order, decodes to the same messages,
// diagnostics and counts as the whole file, and (for the replay
// scenarios) gives the replay the same observations, on which every room
// gets the same verdict with its log; from the wire alone too, checked on
// the cut at the middle (the same observations give the same verdicts,
// and a wire-only search of reuse-upstream takes seconds).
func TestCutCaptures(t *testing.T) {
	files, _ := filepath.Glob("../testdata/captures/*.pcap*")
	scen, _ := filepath.Glob("../testdata/scenarios/*.pcap")
	files = append(files, scen...)
	r := rand.New(rand.NewPCG(22, 4))
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := capture.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			whole := decodeRecords(t, rd)
			judge := scenarioJudge(t, path, whole.sum.End)
			var wholeVerdicts map[string]string
			if judge != nil {
				wholeVerdicts = judge(whole.obs, true)
			}
			n, err := pcapcut.Count(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range cuts(n) {
				parts, err := pcapcut.Cut(data, cut...)
				if err != nil {
					t.Fatal(err)
				}
				got := decodeRecords(t, openCut(t, parts, r))
				opts := cmp.Options{cmp.AllowUnexported(decoded{}), cmpopts.IgnoreFields(decode.Summary{}, "Files"), cmpopts.EquateComparable(netip.AddrPort{})}
				if diff := cmp.Diff(whole, got, opts); diff != "" {
					t.Errorf("cut before packets %v: decoding differs (-whole +cut):\n%s", cut, diff)
					continue
				}
				if judge == nil {
					continue
				}
				if diff := cmp.Diff(wholeVerdicts, judge(got.obs, true)); diff != "" {
					t.Errorf("cut before packets %v: verdicts with the log differ (-whole +cut):\n%s", cut, diff)
				}
			}
			if judge == nil {
				return
			}
			parts, err := pcapcut.Cut(data, n/2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(judge(whole.obs, false), judge(decodeRecords(t, openCut(t, parts, r)).obs, false)); diff != "" {
				t.Errorf("cut at the middle: wire-only verdicts differ (-whole +cut):\n%s", diff)
			}
		})
	}
}

// scenarioJudge returns, for a replay scenario's capture, a function
// that replays its wire observations (with its log, or without) and
// returns each reported room's verdict; nil for other captures.
func scenarioJudge(t *testing.T, path string, end time.Time) func([]observe.Observation, bool) map[string]string {
	t.Helper()
	name := filepath.Base(path)
	name = name[:len(name)-len(filepath.Ext(name))]
	sc, err := scenarios.Read(filepath.Dir(path), name)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	deadline, err := sc.DeadlineDuration()
	if err != nil {
		t.Fatal(err)
	}
	text, err := spec.Config(sc.Variant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadConfig(text)
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
		r, err := replay.New(c, replay.Options{Deadline: deadline, Log: withLog})
		if err != nil {
			t.Fatal(err)
		}
		obs := wire
		if withLog {
			obs = observe.Merge(wire, logObs)
		}
		for _, o := range obs {
			r.Observe(o)
		}
		out := map[string]string{}
		for _, room := range r.Finish(end).Reported() {
			out[fmt.Sprintf("room %d", room.Room)] = string(room.Verdict) + ": " + room.Reason
		}
		if len(out) == 0 {
			t.Fatal("no room reported: nothing to compare")
		}
		return out
	}
}
