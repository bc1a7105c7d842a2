package zmtp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/roomspec/roomspec/internal/truth"
	"github.com/roomspec/roomspec/traces/capture"
)

// The committed captures of real libzmq traffic (traces/testdata) are read
// with traces/capture, test-only: this package itself knows nothing of pcap.

type realEvent struct {
	kind     capture.EventKind
	data     []byte
	frame    int
	segStart bool
}

type realHalf struct {
	name      string
	midStream bool
	events    []realEvent
}

func readCapture(t *testing.T, path string) []*realHalf {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	halves := map[int]*realHalf{}
	var order []*realHalf
	_, err = capture.Run(f, capture.Options{}, func(e *capture.Event) {
		h := halves[e.Half.ID]
		if h == nil {
			h = &realHalf{name: e.Half.String(), midStream: e.Half.MidStream}
			halves[e.Half.ID] = h
			order = append(order, h)
		}
		h.events = append(h.events, realEvent{e.Kind, bytes.Clone(e.Data), e.Frame, e.SegmentStart})
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return order
}

// feedReal plays a half's events into d, skipping the first skip stream
// bytes (the capture then starts there, mid-segment if need be).
func feedReal(d *Decoder, h *realHalf, skip int) {
	for _, e := range h.events {
		m := Mark{Frame: e.frame}
		switch e.kind {
		case capture.EventData:
			data, seg := e.data, e.segStart
			if skip >= len(data) {
				skip -= len(data)
				continue
			}
			if skip > 0 {
				data, seg, skip = data[skip:], false, 0
			}
			d.Feed(data, m, seg)
		case capture.EventGap:
			if skip == 0 {
				d.Gap(m)
			}
		case capture.EventEnd:
			d.Close(m)
		}
	}
}

func truthCount(t *testing.T, capture string) (all, before int) {
	t.Helper()
	ms, err := truth.Of(capture)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Before {
			before++
		}
	}
	return len(ms), before
}

// TestRealStreams decodes every committed capture, then restarts each
// busy direction at many byte offsets as if the capture had begun there:
// what comes out must be exactly a suffix of the full decode.
func TestRealStreams(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/captures/*.pcap*")
	if len(paths) == 0 {
		t.Fatal("no captures in traces/testdata/captures: they are committed, so this is a broken checkout")
	}
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			halves := readCapture(t, path)
			total, resynced := 0, 0
			for hi, h := range halves {
				var rec recorder
				d := NewDecoder(&rec, Options{MidStream: h.midStream})
				feedReal(d, h, 0)
				total += len(rec.messages)
				for _, dg := range rec.diags {
					if h.midStream && dg.Kind == KindResynced {
						resynced++
						continue
					}
					t.Errorf("%s: %v", h.name, dg)
				}
				if !h.midStream && len(rec.messages) > 0 && (len(rec.greetings) != 1 || len(rec.commands) == 0 || d.PeerSocketType() == "") {
					t.Errorf("%s: greeting/READY missing: %d greetings, %d commands", h.name, len(rec.greetings), len(rec.commands))
				}
				if *writeCorpus && hi < 2 && len(rec.messages) > 0 {
					writeRealSeeds(t, name, hi, h)
				}
				if len(rec.messages) >= 20 && !h.midStream {
					checkRealResync(t, h, rec.messages)
				}
			}
			all, before := truthCount(t, path)
			if resynced == 0 && total != all {
				t.Errorf("%d messages decoded, ground truth has %d", total, all)
			}
			if resynced > 0 && (total > all-before || total < all-before-2*resynced) {
				t.Errorf("%d messages decoded after %d resyncs; ground truth has %d after the capture began", total, resynced, all-before)
			}
		})
	}
}

func checkRealResync(t *testing.T, h *realHalf, fullMsgs []Message) {
	t.Helper()
	var full [][][]byte
	for _, m := range fullMsgs {
		full = append(full, m.Parts)
	}
	size := 0
	for _, e := range h.events {
		size += len(e.data)
	}
	step := max(1, size/400)
	worst, sum, n := 0, 0, 0
	for off := 1; off < size*2/3; off += step {
		var rec recorder
		d := NewDecoder(&rec, Options{MidStream: true})
		feedReal(d, h, off)
		got := rec.parts()
		k := checkSuffix(t, got, full, fmt.Sprintf("%s from offset %d", h.name, off))
		if len(got) == 0 {
			t.Fatalf("%s from offset %d: nothing decoded: %v", h.name, off, rec.diags)
		}
		// Offsets restart at zero where the decoder began.
		if rd := rec.diags[0]; rd.Kind != KindResynced || rec.messages[0].Offset != rd.Offset || fullMsgs[k].Offset != rd.Offset+int64(off) {
			t.Fatalf("%s from offset %d: resync diagnostic %v, first message at %d (full decode: %d)", h.name, off, rd, rec.messages[0].Offset, fullMsgs[k].Offset)
		}
		first := sort.Search(len(fullMsgs), func(i int) bool { return fullMsgs[i].Offset >= int64(off) })
		worst = max(worst, k-first)
		sum += k - first
		n++
	}
	t.Logf("%s: %d bytes, %d messages; restarted at %d offsets: whole messages not emitted: at most %d, mean %.2f", h.name, size, len(full), n, worst, float64(sum)/float64(n))
	if worst > 10 {
		t.Errorf("%s: a resync skipped %d whole messages", h.name, worst)
	}
}

func writeRealSeeds(t *testing.T, capName string, hi int, h *realHalf) {
	var stream []byte
	for _, e := range h.events {
		stream = append(stream, e.data...)
		if len(stream) > 6000 {
			break
		}
	}
	stream = stream[:min(len(stream), 6000)]
	var mode byte
	if h.midStream {
		mode = 1
	}
	writeSeed(t, seed{name: fmt.Sprintf("real-%s-%d", capName, hi), data: stream, cuts: []byte{255, 200}, mode: mode})
	if len(stream) > 1000 {
		writeSeed(t, seed{name: fmt.Sprintf("real-%s-%d-mid", capName, hi), data: stream[777:], cuts: []byte{255}, mode: 1})
	}
}
