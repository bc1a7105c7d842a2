package judge

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strconv"
)

// The log's fit in the machine-readable outputs: one JSON object (replay's
// summary line), and the same facts as name/value pairs (JUnit's
// properties, the HTML page's summary), so that every output says what
// the text report's "log:" line says.

// jsonLogFit is LogFit's JSON object.
type jsonLogFit struct {
	FirstLine    int      `json:"first_line"`
	LastLine     int      `json:"last_line"`
	LogFirst     string   `json:"log_first"`
	LogLast      string   `json:"log_last"`
	CaptureFirst string   `json:"capture_first"`
	CaptureLast  string   `json:"capture_last"`
	OffsetRooms  int      `json:"offset_rooms"`
	OffsetS      *float64 `json:"offset_s"`
	MinOffsetS   *float64 `json:"min_offset_s,omitempty"`
	MaxOffsetS   *float64 `json:"max_offset_s,omitempty"`
	Ended        bool     `json:"ended_before_capture"`
	EndRoom      int64    `json:"end_room,omitempty"`
	EndFrame     int      `json:"end_frame,omitempty"`
	EndWhy       string   `json:"end_why,omitempty"`
	Endpoint     string   `json:"endpoint,omitempty"`
	Shared       []string `json:"shared_endpoints,omitempty"`
	Matched      string   `json:"matched,omitempty"`
	Doubted      int      `json:"inconclusive_rooms"`
	Refused      string   `json:"refused,omitempty"`
	Text         string   `json:"text"`
}

// MarshalJSON writes the fit as an object: the log's lines and span
// against the capture's, the clock offset (seconds, the log's minus the
// capture's; null when no room gives one) over offset_rooms rooms,
// whether the log ended before the capture, the endpoint it was matched
// to, how many rooms were held inconclusive for it, why it was refused
// (if it was), and the text report's line.
func (f *LogFit) MarshalJSON() ([]byte, error) {
	j := jsonLogFit{FirstLine: f.FirstLine, LastLine: f.LastLine, LogFirst: stamp(f.LogFirst), LogLast: stamp(f.LogLast),
		CaptureFirst: stamp(f.WireFirst), CaptureLast: stamp(f.WireLast), OffsetRooms: f.Rooms,
		Ended: f.Ended, EndRoom: f.EndRoom, EndFrame: f.EndFrame, EndWhy: f.EndWhy,
		Matched: f.Matched, Doubted: f.Doubted, Refused: f.Refused, Text: f.String()}
	if f.Rooms > 0 {
		o, lo, hi := f.Offset.Seconds(), f.MinOffset.Seconds(), f.MaxOffset.Seconds()
		j.OffsetS, j.MinOffsetS, j.MaxOffsetS = &o, &lo, &hi
	}
	if f.Endpoint.IsValid() {
		j.Endpoint = f.Endpoint.String()
	}
	j.Shared = addrs(f.Shared)
	return json.Marshal(&j)
}

func addrs(ps []netip.AddrPort) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// Fact is a named value of a report: a JUnit property, a fact of the
// HTML page's summary.
type Fact struct{ Name, Value string }

// Facts are the fit as name/value pairs, the names prefixed "log.":
// coverage (lines and span), offset (and its rooms and range), ended,
// endpoint, inconclusive rooms, refused.
func (f *LogFit) Facts() []Fact {
	out := []Fact{
		{"log.lines", fmt.Sprintf("%d to %d", f.FirstLine, f.LastLine)},
		{"log.span", fmt.Sprintf("%s to %s", stamp(f.LogFirst), stamp(f.LogLast))},
		{"log.capture_span", fmt.Sprintf("%s to %s", stamp(f.WireFirst), stamp(f.WireLast))},
		{"log.offset_rooms", strconv.Itoa(f.Rooms)},
	}
	if f.Rooms > 0 {
		out = append(out, Fact{"log.offset", signed(f.Offset)}, Fact{"log.offset_range", signed(f.MinOffset) + " to " + signed(f.MaxOffset)})
	} else {
		out = append(out, Fact{"log.offset", "unknown"})
	}
	out = append(out, Fact{"log.ended_before_capture", strconv.FormatBool(f.Ended)})
	if f.Ended {
		out = append(out, Fact{"log.ended_why", f.EndWhy})
	}
	if f.Endpoint.IsValid() {
		out = append(out, Fact{"log.endpoint", f.Endpoint.String()})
	}
	if f.Matched != "" {
		out = append(out, Fact{"log.matched", f.Matched})
	}
	out = append(out, Fact{"log.inconclusive_rooms", strconv.Itoa(f.Doubted)})
	if f.Refused != "" {
		out = append(out, Fact{"log.refused", f.Refused})
	}
	return out
}
