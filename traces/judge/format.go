package judge

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Reported returns the rooms a report shows: the aborted rooms, the
// invalid ones and those only the log shows, in order of first
// observation.
func (r *Report) Reported() []*Room {
	var out []*Room
	for _, room := range r.Rooms {
		if room.Aborted || room.Verdict == Invalid || room.LogOnly {
			out = append(out, room)
		}
	}
	return out
}

// Summary is the report's one-line summary.
func (r *Report) Summary() string {
	return fmt.Sprintf("%d rooms, %d aborted: %d satisfied, %d predicted-released, %d violated, %d inconclusive, %d at-risk, %d invalid (deadline %v, capture end %s, search bound %d unseen steps, %d states)",
		r.Total, r.Aborted, r.Count(Satisfied), r.Count(PredictedReleased), r.Count(Violated), r.Count(Inconclusive), r.Count(AtRisk), r.Count(Invalid),
		r.Deadline, stamp(r.End), r.MaxHidden, r.MaxStates)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

func ints(xs []int, more int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	out := strings.Join(s, ",")
	if more > 0 {
		out += fmt.Sprintf(",+%d", more)
	}
	if out == "" {
		return "-"
	}
	return out
}

// WriteText writes the summary line, a table of the reported rooms (room,
// verdict, abort time, terminal time or the time the room was last seen,
// evidence frames and log lines), then each room's reason.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Summary())
	b.WriteString("\n")
	if r.Log != nil {
		b.WriteString("log: " + r.Log.String() + "\n")
	}
	if len(r.Damage) > 0 {
		b.WriteString("capture damage judged through: " + r.damage() + "\n")
	}
	rooms := r.Reported()
	if len(rooms) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ROOM\tVERDICT\tABORTED\tTERMINAL / LAST SEEN\tFRAMES\tLOG LINES")
		for _, room := range rooms {
			end := "last seen " + stamp(room.LastSeen)
			if !room.TerminalTime.IsZero() {
				end = "terminal " + stamp(room.TerminalTime)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", room.Room, room.Verdict, stamp(room.AbortTime), end, ints(room.Frames, 0), ints(room.Lines, 0))
		}
		tw.Flush()
		b.WriteString("\n")
		for _, room := range rooms {
			fmt.Fprintf(&b, "room %d: %s: %s\n", room.Room, room.Verdict, room.Reason)
			if room.Why != "" {
				fmt.Fprintf(&b, "  why: %s\n", room.Why)
			}
			if room.More > 0 {
				fmt.Fprintf(&b, "  (%d more observations not listed)\n", room.More)
			}
			if room.Verdict == Invalid && room.State != "" {
				b.WriteString("  checked from:\n")
				for _, l := range strings.Split(strings.TrimSpace(room.State), "\n") {
					b.WriteString("    " + l + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonRoom struct {
	Room         int64    `json:"room"`
	Verdict      Verdict  `json:"verdict"`
	Reason       string   `json:"reason"`
	Why          string   `json:"why,omitempty"`
	AbortTime    *string  `json:"abort_time"`
	AbortFrame   *int     `json:"abort_frame"`
	TerminalTime *string  `json:"terminal_time"`
	LatencyS     *float64 `json:"latency_s"`
	FirstSeen    string   `json:"first_seen"`
	LastSeen     string   `json:"last_seen"`
	Frames       []int    `json:"frames"`
	Lines        []int    `json:"log_lines"`
	More         int      `json:"more_evidence,omitempty"`
	Unexplained  string   `json:"unexplained,omitempty"`
	State        string   `json:"state,omitempty"`
	MaxHidden    int      `json:"max_unseen_steps"`
	BoundHit     bool     `json:"bound_hit"`
	Prefill      string   `json:"prefill,omitempty"`
	Start        string   `json:"start"`
	WireOnly     bool     `json:"wire_only,omitempty"`
	LogOnly      bool     `json:"log_only,omitempty"`
}

// WriteJSON writes one JSON object per reported room, one per line, then
// the summary's (WriteSummaryJSON): what roomspec replay -format json
// writes.
func (r *Report) WriteJSON(w io.Writer) error {
	for _, room := range r.Reported() {
		if err := WriteRoomJSON(w, room); err != nil {
			return err
		}
	}
	return r.WriteSummaryJSON(w)
}

// WriteRoomJSON writes room as one line of JSON (the objects of
// WriteJSON), for callers that stream rooms as they are judged.
func WriteRoomJSON(w io.Writer, room *Room) error {
	j := jsonRoom{Room: room.Room, Verdict: room.Verdict, Reason: room.Reason, Why: room.Why,
		FirstSeen: stamp(room.FirstSeen), LastSeen: stamp(room.LastSeen),
		Frames: append([]int{}, room.Frames...), Lines: append([]int{}, room.Lines...), More: room.More,
		State: room.State, MaxHidden: room.MaxHidden, BoundHit: room.BoundHit, Start: room.Start.String(), WireOnly: room.WireOnly, LogOnly: room.LogOnly}
	if room.Prefill.IsValid() {
		j.Prefill = room.Prefill.String()
	}
	if room.Aborted {
		s, f := stamp(room.AbortTime), room.AbortFrame
		j.AbortTime, j.AbortFrame = &s, &f
	}
	if !room.TerminalTime.IsZero() {
		s := stamp(room.TerminalTime)
		j.TerminalTime = &s
	}
	if room.Latency >= 0 {
		l := room.Latency.Seconds()
		j.LatencyS = &l
	}
	if room.Unexplained != nil {
		j.Unexplained = room.Unexplained.String()
	}
	if err := json.NewEncoder(w).Encode(&j); err != nil {
		return fmt.Errorf("judge: json: %w", err)
	}
	return nil
}

type junitSuites struct {
	XMLName xml.Name   `xml:"testsuites"`
	Suites  []junitSet `xml:"testsuite"`
}

type junitSet struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	List []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Failure *junitMessage `xml:"failure,omitempty"`
	Skipped *junitMessage `xml:"skipped,omitempty"`
	Output  string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes JUnit XML with one test case per reported room:
// violated, invalid and at-risk rooms (a possible pin) are failures,
// inconclusive ones skipped; satisfied and predicted-released rooms pass,
// the verdict and its reason in the case's output (a prediction stays
// named as one). suite names the test suite (e.g. the variant). The
// suite's properties are the report's Facts: the log's fit to the capture
// and the capture's damage.
func (r *Report) WriteJUnit(w io.Writer, suite string) error {
	set := junitSet{Name: "roomspec replay " + suite}
	if facts := r.Facts(); len(facts) > 0 {
		set.Properties = &junitProperties{}
		for _, f := range facts {
			set.Properties.List = append(set.Properties.List, junitProperty{f.Name, f.Value})
		}
	}
	for _, room := range r.Reported() {
		c := junitCase{Class: "replay." + suite, Name: fmt.Sprintf("room %d", room.Room),
			Output: fmt.Sprintf("frames %s; log lines %s", ints(room.Frames, room.More), ints(room.Lines, 0))}
		msg := &junitMessage{Message: room.Reason, Type: string(room.Verdict), Text: room.State}
		if room.Why != "" {
			msg.Message += ". Why: " + room.Why
		}
		switch room.Verdict {
		case Violated, Invalid, AtRisk:
			c.Failure = msg
			set.Failures++
		case Inconclusive:
			c.Skipped = msg
			set.Skipped++
		default:
			c.Output = fmt.Sprintf("%s: %s; %s", room.Verdict, room.Reason, c.Output)
		}
		set.Cases = append(set.Cases, c)
		set.Tests++
	}
	b, err := xml.MarshalIndent(junitSuites{Suites: []junitSet{set}}, "", "  ")
	if err != nil {
		return fmt.Errorf("judge: junit: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}

// Facts are what the report says of its inputs, as name/value pairs: the
// log's fit (LogFit.Facts, "log.*") and the capture's damage by kind
// ("capture.damage.KIND"); none for a clean capture without a log.
func (r *Report) Facts() []Fact {
	var out []Fact
	if r.Log != nil {
		out = r.Log.Facts()
	}
	for _, k := range slices.Sorted(maps.Keys(r.Damage)) {
		out = append(out, Fact{"capture.damage." + k, strconv.Itoa(r.Damage[k])})
	}
	return out
}

// damage lists the damage counts: "3 snaplen, 1 time-jump" (by kind).
func (r *Report) damage() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Damage)) {
		parts = append(parts, fmt.Sprintf("%d %s", r.Damage[k], k))
	}
	return strings.Join(parts, ", ")
}

// jsonSummary is the last line of replay -format json.
type jsonSummary struct {
	Summary struct {
		Rooms     int             `json:"rooms"`
		Aborted   int             `json:"aborted"`
		Verdicts  map[Verdict]int `json:"verdicts"`
		DeadlineS float64         `json:"deadline_s"`
		End       string          `json:"capture_end"`
		MaxHidden int             `json:"max_unseen_steps"`
		MaxStates int             `json:"max_states"`
		Log       *LogFit         `json:"log,omitempty"`
		Damage    map[string]int  `json:"damage,omitempty"`
	} `json:"summary"`
}

// WriteSummaryJSON writes the report's counts as one line of JSON, the
// last of roomspec replay -format json (after the rooms' objects, as
// roomspec decode's summary ends its messages):
//
//	{"summary":{"rooms":12,"aborted":8,"verdicts":{...},...,"log":{...},"damage":{...}}}
//
// with the log's fit to the capture (LogFit.MarshalJSON; absent without
// a log) and the capture's damage by kind (absent when none).
func (r *Report) WriteSummaryJSON(w io.Writer) error {
	var j jsonSummary
	s := &j.Summary
	s.Rooms, s.Aborted, s.Verdicts = r.Total, r.Aborted, map[Verdict]int{}
	for _, v := range Verdicts {
		s.Verdicts[v] = r.Count(v)
	}
	s.DeadlineS, s.End, s.MaxHidden, s.MaxStates = r.Deadline.Seconds(), stamp(r.End), r.MaxHidden, r.MaxStates
	s.Log, s.Damage = r.Log, r.Damage
	b, err := json.Marshal(&j)
	if err != nil {
		return fmt.Errorf("judge: json: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// jsonEvent is an Event's JSON line: the room is WriteRoomJSON's object.
type jsonEvent struct {
	Event string          `json:"event"`
	Time  string          `json:"time"`
	Alert uint64          `json:"alert,omitempty"`
	Room  json.RawMessage `json:"room"`
}

// WriteEventJSON writes ev as one line of JSON (roomspec watch's output):
//
//	{"event":"pinned","time":"2026-...Z","alert":1,"room":{...}}
//
// where room is the object roomspec replay -format json writes for the
// room (WriteRoomJSON).
func WriteEventJSON(w io.Writer, ev Event) error {
	var room bytes.Buffer
	if err := WriteRoomJSON(&room, ev.Room); err != nil {
		return err
	}
	j := jsonEvent{Event: ev.Kind.String(), Alert: ev.Alert, Room: bytes.TrimSpace(room.Bytes())}
	if !ev.At.IsZero() {
		j.Time = stamp(ev.At)
	}
	b, err := json.Marshal(&j)
	if err != nil {
		return fmt.Errorf("judge: json: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
