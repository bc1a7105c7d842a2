package captured

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/internal/benchdata"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/observe"
)

// TestRoomStreamManyRooms: on a capture of many distinct rooms made by
// `make_captures.py --rooms N` (paced as in production; not committed, so
// the test runs where one was made), every room is handed over and the
// rooms held at once follow the rooms in flight, not the capture: at 250
// rooms/s and a 1 s idle window, a few hundred at most, whatever N is.
func TestRoomStreamManyRooms(t *testing.T) {
	paths := benchdata.RoomsCaptures(t)
	c, err := conformance.LoadVariant("fixed")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rooms := 0
		st := NewStream(c, path, time.Second, func(r *Room) {
			if r.Skip != "" {
				t.Errorf("room %d skipped: %s", r.Room, r.Skip)
			}
			rooms++
		})
		_, err = decode.Run(f, decode.Options{}, func(m *decode.Message) {
			if o, ok := observe.FromMessage(m); ok {
				st.Observe(&o)
			}
		}, func(decode.Diagnostic) {})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		st.Flush()
		t.Logf("%s: %d rooms, at most %d held at once", filepath.Base(path), rooms, st.MaxLive)
		if rooms < 1000 {
			t.Errorf("%s: only %d rooms", path, rooms)
		}
		if st.MaxLive > 1000 {
			t.Errorf("%s: %d rooms held at once: memory follows the capture, not the rooms in flight", path, st.MaxLive)
		}
	}
}
