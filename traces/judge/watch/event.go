package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/roomspec/roomspec/traces/judge/replay"
)

// Kind says what an Event reports.
type Kind int

// Event kinds.
const (
	// Pinned: an aborted room's deadline passed and the log shows prefill
	// still holding it (the room as judged then: violated).
	Pinned Kind = iota + 1
	// AtRisk: an aborted room's deadline passed, judged from the wire
	// alone: some completion of the unseen steps pins it (at-risk).
	AtRisk
	// Released: a room reported pinned was let go after its deadline
	// (violated, with its latency).
	Released
	// Verdict: a room's final verdict, as roomspec replay gives it.
	Verdict
)

var kindNames = [...]string{Pinned: "pinned", AtRisk: "at-risk", Released: "released", Verdict: "verdict"}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Event is what the Engine reports about a room.
type Event struct {
	Kind Kind
	// Room is the room as judged at At.
	Room *replay.Room
	// At is the capture time the event was decided at.
	At time.Time
	// Alert numbers the Pinned or AtRisk event this one raises or ends
	// (0: none).
	Alert uint64
}

// jsonEvent is an Event's JSON line: the room is replay's JSON object.
type jsonEvent struct {
	Event string          `json:"event"`
	Time  string          `json:"time"`
	Alert uint64          `json:"alert,omitempty"`
	Room  json.RawMessage `json:"room"`
}

// WriteJSON writes ev as one line of JSON:
//
//	{"event":"pinned","time":"2026-...Z","alert":1,"room":{...}}
//
// where room is the object roomspec replay -format json writes for the
// room (replay.WriteRoomJSON).
func WriteJSON(w io.Writer, ev Event) error {
	var room bytes.Buffer
	if err := replay.WriteRoomJSON(&room, ev.Room); err != nil {
		return err
	}
	j := jsonEvent{Event: ev.Kind.String(), Alert: ev.Alert, Room: bytes.TrimSpace(room.Bytes())}
	if !ev.At.IsZero() {
		j.Time = ev.At.UTC().Format("2006-01-02T15:04:05.000000000Z")
	}
	b, err := json.Marshal(&j)
	if err != nil {
		return fmt.Errorf("watch: json: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
