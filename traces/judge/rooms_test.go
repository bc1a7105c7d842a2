package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/benchdata"
	"github.com/roomspec/roomspec/traces/decode"
)

// TestManyRoomsHeld: on captures of many distinct rooms made by
// `make_captures.py --rooms N` (paced at 250 rooms/s as in production;
// not committed, so the test runs where some were made), every room gets
// its verdict and the rooms held at once follow the rooms within the idle
// window, not the capture: with a 10 s deadline (20 s idle), about 5,000
// whatever N is, and each aborted room is reported once, as it goes idle.
// In an eager capture (ABORTs right after the TransferInfos) many rooms show
// one rank's ABORT before the other rank's TransferInfo: none is invalid.
func TestManyRoomsHeld(t *testing.T) {
	paths := benchdata.RoomsCaptures(t)
	cfg := variantConfig(t, "fixed-deferred")
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		reported, early := 0, 0
		r, err := New(cfg, Options{Deadline: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		take := func() {
			for range r.Ready() {
				reported++
				if r.Stats().Held > 0 {
					early++ // handed over while the replay ran
				}
			}
		}
		most, reordered := 0, 0
		aborted := map[int64]bool{} // rooms with an ABORT captured
		sum, err := decode.Run(f, decode.Options{Reuse: true}, func(m *decode.Message) {
			if o, ok := FromMessage(m); ok {
				switch {
				case o.Kind == Abort:
					aborted[o.Room] = true
				case o.Kind == TransferInfo && aborted[o.Room]:
					reordered++
				}
				r.Step(o)
				take()
				most = max(most, r.Stats().Held)
			}
		}, func(decode.Diagnostic) {})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		rep := r.Finish(sum.End)
		take()
		t.Logf("%s: %d rooms (%d aborted, %d reported, %d while running, %d with a TransferInfo after an ABORT), at most %d held at once",
			filepath.Base(path), rep.Total, rep.Aborted, reported, early, reordered, most)
		if strings.Contains(path, "_eager") && reordered == 0 {
			t.Errorf("%s: no room shows a TransferInfo after an ABORT", path)
		}
		if rep.Total < 10000 || rep.Count(Invalid) > 0 || rep.Count(Satisfied) != rep.Aborted || reported != rep.Aborted {
			t.Errorf("%s: %s; %d reported", path, rep.Summary(), reported)
		}
		if most > 6000 {
			t.Errorf("%s: %d rooms held at once: memory follows the capture, not the rooms in flight", path, most)
		}
	}
}
