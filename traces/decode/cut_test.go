package decode_test

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/roomspec/roomspec/internal/pcapcut"
	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/observe"
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

// TestCutCaptures is issue 22's criterion for rotated captures, on the
// decoding side: every bundled capture, cut into two or three files at
// every tenth of its packets and given in any order, decodes to the same
// messages, diagnostics, counts and observations as the whole file. (The
// replay's verdicts on the cuts are compared in traces/judge/replay.)
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
			n, err := pcapcut.Count(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range pcapcut.Tenths(n) {
				parts, err := pcapcut.Cut(data, cut...)
				if err != nil {
					t.Fatal(err)
				}
				fs, err := capture.OpenFiles(pcapcut.Inputs(parts, r))
				if err != nil {
					t.Fatal(err)
				}
				got := decodeRecords(t, fs)
				opts := cmp.Options{cmp.AllowUnexported(decoded{}), cmpopts.IgnoreFields(decode.Summary{}, "Files"), cmpopts.EquateComparable(netip.AddrPort{})}
				if diff := cmp.Diff(whole, got, opts); diff != "" {
					t.Errorf("cut before packets %v: decoding differs (-whole +cut):\n%s", cut, diff)
				}
			}
		})
	}
}
