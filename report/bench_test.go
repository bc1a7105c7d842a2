package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/internal/benchdata"
	"github.com/roomspec/roomspec/internal/browser"
	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// BenchmarkReportLoad opens, in headless Chromium, the report of a
// capture of many rooms, replayed under fixed-deferred with a 10 s
// deadline as TestManyRoomsHeld does: rooms-10000, make_captures.py
// --rooms 10000 (10,000 rooms, 2,500 aborted: 2,500 rows), and large, the
// large benchmark capture (make_captures.py --large 120000: 39,999 rooms,
// 9,999 aborted, so 9,999 rows). As the reference in the same run it opens
// the report of a bundled scenario (storm-fork, 8 rows). The browser's
// own clock times each load from navigation start: ready-ms until the
// page's script has drawn the table (its performance mark), load-ms until
// the load event ends. In the large report it also times opening a room's
// diagram and sorting the table by room id (the page staying responsive),
// and it reports the HTML's bytes per row.
func BenchmarkReportLoad(b *testing.B) {
	b.Run("rooms-10000", func(b *testing.B) {
		capture := ""
		for _, p := range benchdata.RoomsCaptures(b) {
			if filepath.Base(p) == "rooms_10000.pcap" || capture == "" && !strings.Contains(p, "eager") {
				capture = p
			}
		}
		data, err := os.ReadFile(capture)
		if err != nil {
			b.Fatal(err)
		}
		benchmarkLoad(b, data)
	})
	b.Run("large", func(b *testing.B) { benchmarkLoad(b, benchdata.LargeCapture(b)) })
}

func benchmarkLoad(b *testing.B, capture []byte) {
	dir := b.TempDir()
	large, rooms := largePage(b, capture)
	largeFile := filepath.Join(dir, "large.html")
	writeFile(b, largeFile, large)
	var ref *report.Page
	for _, sc := range allScenarios(b) {
		if sc.Name == "storm-fork" {
			ref = scenarioPage(b, sc, true)
		}
	}
	refFile := filepath.Join(dir, "ref.html")
	writeFile(b, refFile, ref)
	fi, err := os.Stat(largeFile)
	if err != nil {
		b.Fatal(err)
	}
	br := browser.Start(b)
	type times struct{ ready, load, open, sort float64 }
	measure := func(path string, interact bool) times {
		tab, err := br.Open("file://"+path, 1500, 1000, `document.body.dataset.ready === "true"`, 60*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		defer tab.Close()
		if err := tab.Wait(`performance.getEntriesByType("navigation")[0].loadEventEnd > 0`, 60*time.Second); err != nil {
			b.Fatal(err)
		}
		var t times
		if t.ready, err = browser.Eval[float64](tab, `performance.getEntriesByName("roomspec-ready")[0].startTime`); err != nil {
			b.Fatal(err)
		}
		if t.load, err = browser.Eval[float64](tab, `performance.getEntriesByType("navigation")[0].loadEventEnd`); err != nil {
			b.Fatal(err)
		}
		if interact {
			if t.open, err = browser.Eval[float64](tab, `(function () {
				var t = performance.now(); document.querySelector("#body tr.r:nth-child(40)").click(); return performance.now() - t; })()`); err != nil {
				b.Fatal(err)
			}
			if t.sort, err = browser.Eval[float64](tab, `(function () {
				var t = performance.now(); document.querySelector('th[data-k="room"]').click(); return performance.now() - t; })()`); err != nil {
				b.Fatal(err)
			}
		}
		if errs := tab.Errors(); len(errs) > 0 {
			b.Fatalf("%s: console errors: %q", path, errs)
		}
		return t
	}
	var sum, refSum times
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := measure(largeFile, true)
		r := measure(refFile, false)
		sum.ready, sum.load, sum.open, sum.sort = sum.ready+t.ready, sum.load+t.load, sum.open+t.open, sum.sort+t.sort
		refSum.ready, refSum.load = refSum.ready+r.ready, refSum.load+r.load
	}
	n := float64(b.N)
	b.ReportMetric(sum.ready/n, "ready-ms")
	b.ReportMetric(sum.load/n, "load-ms")
	b.ReportMetric(sum.open/n, "open-diagram-ms")
	b.ReportMetric(sum.sort/n, "sort-ms")
	b.ReportMetric(refSum.load/n, "ref-load-ms")
	b.ReportMetric(sum.load/refSum.load, "load-ratio")
	b.ReportMetric(float64(rooms), "rows")
	b.ReportMetric(float64(fi.Size())/float64(rooms), "bytes/row")
}

// largePage replays a capture of many rooms into a page.
func largePage(b *testing.B, capture []byte) (*report.Page, int) {
	cfg, err := conformance.LoadVariant("fixed-deferred")
	if err != nil {
		b.Fatal(err)
	}
	p := report.NewReplayPage(report.ReplayInfo{Variant: "fixed-deferred", Command: "roomspec replay -variant fixed-deferred -deadline 10s"})
	j, err := judge.New(cfg, judge.Options{Deadline: 10 * time.Second, Witness: true})
	if err != nil {
		b.Fatal(err)
	}
	in := replay.Input{Captures: []replay.Capture{replay.Reader("large", bytes.NewReader(capture))}}
	res, err := replay.Run(in, []*judge.Judge{j}, func(_ int, ev judge.Event) error {
		p.AddRoom(ev.Room)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	p.Finish(res.Reports[0], res.Start)
	return p, p.Rows()
}

func writeFile(b *testing.B, path string, p *report.Page) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := p.WriteHTML(f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
