package eventlog_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/roomspec/roomspec/traces/eventlog"
)

func ExampleWriter() {
	w := eventlog.NewWriter(os.Stdout)
	w.Write(&eventlog.Event{Time: time.Date(2026, 11, 29, 15, 0, 0, 5, time.UTC), Host: "p0", Role: "prefill",
		Thread: "bootstrap", Event: eventlog.Status, Room: 42, From: eventlog.Absent, To: "WaitingForInput"})
	// Output:
	// {"ts":"2026-11-29T15:00:00.000000005Z","host":"p0","role":"prefill","rank":0,"thread":"bootstrap","event":"status","room":42,"from":"Absent","to":"WaitingForInput"}
}

func ExampleReader() {
	log := `{"ts":"2026-11-29T15:00:00Z","event":"sender_create","room":42}
{"ts":"2026-11-29T15:00:01Z","event":"gc","pause_ms":3}
{"ts":"2026-11-29T15:00:02Z","event":"poll","room":42,"status":"Bootstrapping","queue":"bootstrap"}
`
	r := eventlog.NewReader(strings.NewReader(log))
	for {
		e, err := r.Next()
		if err != nil {
			break
		}
		fmt.Println(e.Line, e.Event, e.Room, e.Known())
	}
	// Output:
	// 1 sender_create 42 true
	// 2 gc 0 false
	// 3 poll 42 true
}
