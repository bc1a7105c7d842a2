package replay_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// TestDamagedInputsNeverViolate is issue 25's property: damaged variants
// of every bundled capture and its log (the log's clock shifted either
// way, one line in the future, a step of its clock back, the log cut
// short or cut mid-line, lines duplicated and reordered, another
// scenario's log shifted onto this capture, the capture cut short, the
// same room ids on a second prefill endpoint) never make a room
// violated that the scenario's truth says was released (aborted and not
// in NAME.expected.json's pinned). A variant may be refused (an error
// that says why: the log does not belong to the capture, its endpoint is
// ambiguous) or judge rooms inconclusive; it may not call a released
// room violated.
func TestDamagedInputsNeverViolate(t *testing.T) {
	all, err := scenarios.All(scenarios.Dir())
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string][]byte{}
	for _, sc := range all {
		b, err := os.ReadFile(sc.Log())
		if err != nil {
			t.Fatal(err)
		}
		logs[sc.Name] = b
	}
	var refused, judged, inconclusive, variants int
	for _, sc := range all {
		capture, err := os.ReadFile(sc.Capture())
		if err != nil {
			t.Fatal(err)
		}
		dl, err := sc.DeadlineDuration()
		if err != nil {
			t.Fatal(err)
		}
		cfg := config(t, sc.Variant)
		pinned := map[int64]bool{}
		for _, r := range sc.Pinned {
			pinned[r] = true
		}
		log := logs[sc.Name]
		for _, v := range damagedVariants(t, sc.Name, capture, log, logs, dl) {
			variants++
			j, err := judge.New(cfg, judge.Options{Deadline: dl, Log: v.log != nil})
			if err != nil {
				t.Fatal(err)
			}
			in := replay.Input{Captures: []replay.Capture{replay.Reader("capture", bytes.NewReader(v.capture))}, LogName: "log"}
			if v.log != nil {
				in.Log = bytes.NewReader(v.log)
			}
			var bad []string
			_, err = replay.Run(in, []*judge.Judge{j}, func(_ int, ev judge.Event) error {
				rm := ev.Room
				if rm.Aborted && !pinned[rm.Room] && rm.Verdict == judge.Violated {
					bad = append(bad, fmt.Sprintf("room %d violated: %s", rm.Room, rm.Reason))
				}
				if rm.Verdict == judge.Inconclusive {
					inconclusive++
				}
				return nil
			})
			switch {
			case err != nil && (errors.Is(err, judge.ErrLogMismatch) || errors.Is(err, judge.ErrLogEndpoint)):
				refused++
				t.Logf("%s, %s: refused: %v", sc.Name, v.name, err)
			case err != nil:
				t.Errorf("%s, %s: %v", sc.Name, v.name, err)
			default:
				judged++
			}
			for _, b := range bad {
				t.Errorf("%s, %s: a released room is %s (log fit: %v)", sc.Name, v.name, b, j.LogFit())
			}
		}
	}
	t.Logf("%d damaged variants of %d scenarios: %d refused, %d judged (%d inconclusive rooms)", variants, len(all), refused, judged, inconclusive)
}

func config(t *testing.T, variant string) *model.Config {
	t.Helper()
	c, err := spec.Compiled(variant)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// damaged is one damaged variant of a scenario's inputs.
type damaged struct {
	name         string
	capture, log []byte
}

var tsField = regexp.MustCompile(`"ts":"([^"]+)"`)

// retime rewrites the ts of the log's lines for which f says so.
func retime(t *testing.T, log []byte, f func(i int, ts time.Time) time.Time) []byte {
	t.Helper()
	lines := bytes.SplitAfter(log, []byte("\n"))
	var out []byte
	for i, l := range lines {
		m := tsField.FindSubmatchIndex(l)
		if m == nil {
			out = append(out, l...)
			continue
		}
		ts, err := time.Parse(time.RFC3339Nano, string(l[m[2]:m[3]]))
		if err != nil {
			t.Fatal(err)
		}
		nt := f(i, ts).UTC().Format("2006-01-02T15:04:05.000000000Z07:00")
		out = append(out, l[:m[2]]...)
		out = append(out, nt...)
		out = append(out, l[m[3]:]...)
	}
	return out
}

func firstTS(t *testing.T, log []byte) time.Time {
	m := tsField.FindSubmatch(log)
	if m == nil {
		t.Fatal("a log without ts")
	}
	ts, err := time.Parse(time.RFC3339Nano, string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// damagedVariants makes the damaged variants of one scenario's capture
// and log (others are the other scenarios' logs).
func damagedVariants(t *testing.T, name string, capture, log []byte, others map[string][]byte, dl time.Duration) []damaged {
	lines := bytes.SplitAfter(log, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	var out []damaged
	add := func(name string, c, l []byte) { out = append(out, damaged{name, c, l}) }
	for _, d := range []time.Duration{-3 * time.Second, -dl / 2, -5 * time.Millisecond, 5 * time.Millisecond, 300 * time.Millisecond, dl * 3 / 4, dl - time.Millisecond, 10 * time.Second} {
		add("log shifted "+d.String(), capture, retime(t, log, func(_ int, ts time.Time) time.Time { return ts.Add(d) }))
	}
	for _, k := range []int{n / 4, n / 2, 3 * n / 4} {
		add(fmt.Sprintf("line %d 10s in the future", k+1), capture, retime(t, log, func(i int, ts time.Time) time.Time {
			if i == k {
				return ts.Add(10 * time.Second)
			}
			return ts
		}))
		add(fmt.Sprintf("the log's clock steps back 5s at line %d", k+1), capture, retime(t, log, func(i int, ts time.Time) time.Time {
			if i >= k {
				return ts.Add(-5 * time.Second)
			}
			return ts
		}))
		add(fmt.Sprintf("the log cut after line %d", k), capture, join(lines[:k]))
		cut := join(lines[:k+1])
		add(fmt.Sprintf("the log cut in line %d", k+1), capture, cut[:len(cut)-len(lines[k])/2])
		block := append(append(slices.Clone(lines[:k+1]), lines[max(0, k-5):k+1]...), lines[k+1:]...)
		add(fmt.Sprintf("lines %d-%d written twice", max(0, k-5)+1, k+1), capture, join(block))
		rev := slices.Clone(lines)
		slices.Reverse(rev[k:min(n, k+5)])
		add(fmt.Sprintf("lines %d-%d reversed", k+1, min(n, k+5)), capture, join(rev))
	}
	dup := make([][]byte, 0, 2*n)
	for _, l := range lines {
		dup = append(dup, l, l)
	}
	add("every line twice", capture, join(dup))
	swapped := slices.Clone(lines)
	for i := 0; i+1 < n; i += 2 {
		swapped[i], swapped[i+1] = swapped[i+1], swapped[i]
	}
	add("lines swapped in pairs", capture, join(swapped))
	// Other runs' logs, shifted so that their first line is this log's.
	names := make([]string, 0, len(others))
	for o := range others {
		names = append(names, o)
	}
	sort.Strings(names)
	first := firstTS(t, log)
	for _, o := range names {
		if o == name {
			continue
		}
		shift := first.Sub(firstTS(t, others[o]))
		add("the log of "+o+" shifted onto it", capture, retime(t, others[o], func(_ int, ts time.Time) time.Time { return ts.Add(shift) }))
	}
	// The capture cut short, with the whole log.
	for _, pct := range []int{30, 60, 90} {
		add(fmt.Sprintf("the capture cut at %d%%", pct), cutPcap(t, capture, pct), log)
	}
	// The same room ids on a second prefill endpoint.
	for _, d := range []time.Duration{-37 * time.Millisecond, 37 * time.Millisecond, time.Second} {
		when := d.String() + " later"
		if d < 0 {
			when = (-d).String() + " earlier"
		}
		add("its rooms again on a second prefill endpoint, "+when, secondEndpoint(t, capture, d), log)
	}
	return out
}

// pcap records of a little-endian microsecond pcap (as the bundled
// captures are).
type record struct {
	sec, usec uint32
	data      []byte
	orig      uint32
}

func readPcap(t *testing.T, b []byte) (head []byte, recs []record) {
	t.Helper()
	if binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 {
		t.Fatal("not a little-endian microsecond pcap")
	}
	for off := 24; off+16 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		recs = append(recs, record{binary.LittleEndian.Uint32(b[off:]), binary.LittleEndian.Uint32(b[off+4:]), b[off+16 : off+16+n], binary.LittleEndian.Uint32(b[off+12:])})
		off += 16 + n
	}
	return b[:24], recs
}

func writePcap(head []byte, recs []record) []byte {
	out := slices.Clone(head)
	for _, r := range recs {
		out = binary.LittleEndian.AppendUint32(out, r.sec)
		out = binary.LittleEndian.AppendUint32(out, r.usec)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(r.data)))
		out = binary.LittleEndian.AppendUint32(out, r.orig)
		out = append(out, r.data...)
	}
	return out
}

func cutPcap(t *testing.T, b []byte, pct int) []byte {
	head, recs := readPcap(t, b)
	return writePcap(head, recs[:len(recs)*pct/100])
}

// secondEndpoint adds to the capture a copy of its TCP traffic, d later,
// on other ports (every port + 1000): the same room ids on a second
// prefill endpoint, whose prefill the log is not.
func secondEndpoint(t *testing.T, b []byte, d time.Duration) []byte {
	head, recs := readPcap(t, b)
	out := slices.Clone(recs)
	for _, r := range recs {
		p := slices.Clone(r.data)
		if len(p) < 34 || p[12] != 8 || p[13] != 0 || p[23] != 6 {
			continue
		}
		tcp := 14 + int(p[14]&0x0f)*4
		if len(p) < tcp+4 {
			continue
		}
		for _, off := range []int{tcp, tcp + 2} {
			port := binary.BigEndian.Uint16(p[off:])
			binary.BigEndian.PutUint16(p[off:], port+1000)
		}
		us := int64(r.sec)*1e6 + int64(r.usec) + d.Microseconds()
		out = append(out, record{uint32(us / 1e6), uint32(us % 1e6), p, r.orig})
	}
	slices.SortStableFunc(out, func(a, b record) int {
		if a.sec != b.sec {
			return int(a.sec) - int(b.sec)
		}
		return int(a.usec) - int(b.usec)
	})
	return writePcap(head, out)
}

// TestLogEndpointAmbiguous: the same room ids on two prefill endpoints,
// the copy's rooms seen first (37 ms before the originals): the log is
// not attached to whichever comes first; its times fit the originals', so
// the replay is refused in one error that names the endpoint and
// -log-endpoint, and with that endpoint given, every room is judged as in
// the capture alone.
func TestLogEndpointAmbiguous(t *testing.T) {
	sc, err := scenarios.Read(scenarios.Dir(), "storm-fixed")
	if err != nil {
		t.Fatal(err)
	}
	capture, err := os.ReadFile(sc.Capture())
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(sc.Log())
	if err != nil {
		t.Fatal(err)
	}
	dl, err := sc.DeadlineDuration()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(t, sc.Variant)
	run := func(capture []byte, opt judge.Options) (map[int64]string, *judge.LogFit, error) {
		opt.Deadline, opt.Log = dl, true
		j, err := judge.New(cfg, opt)
		if err != nil {
			t.Fatal(err)
		}
		in := replay.Input{Captures: []replay.Capture{replay.Reader("capture", bytes.NewReader(capture))}, Log: bytes.NewReader(log), LogName: "log"}
		out := map[int64]string{}
		_, err = replay.Run(in, []*judge.Judge{j}, func(_ int, ev judge.Event) error {
			if ev.Room.Prefill == j.LogFit().Endpoint {
				out[ev.Room.Room] = string(ev.Room.Verdict)
			}
			return nil
		})
		return out, j.LogFit(), err
	}
	want, fit, err := run(capture, judge.Options{})
	if err != nil || len(want) == 0 {
		t.Fatalf("the capture alone: %v, %v", want, err)
	}
	own := fit.Endpoint
	twice := secondEndpoint(t, capture, -37*time.Millisecond)
	_, _, err = run(twice, judge.Options{})
	if !errors.Is(err, judge.ErrLogEndpoint) || !strings.Contains(err.Error(), "-log-endpoint") || !strings.Contains(err.Error(), own.String()) {
		t.Fatalf("the rooms on two endpoints: %v; want ErrLogEndpoint naming %s and -log-endpoint", err, own)
	}
	t.Logf("refused: %v", err)
	got, fit, err := run(twice, judge.Options{LogEndpoint: own})
	if err != nil || fit.Endpoint != own {
		t.Fatalf("with -log-endpoint %s: %v (matched to %s)", own, err, fit.Endpoint)
	}
	if !maps.Equal(got, want) {
		t.Errorf("with -log-endpoint: %v, want %v", got, want)
	}
}
