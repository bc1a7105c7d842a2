package judge

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/traces/observe"
)

// The log's fit to the capture (issue 25). A log is believed only as far
// as it fits the capture, which the Judge measures as both go on:
//
//   - its clock offset, from the rooms that show an event on both sides:
//     the TransferInfo that completes a room (the capture's time) and the
//     WaitingForInput status the bootstrap thread sets on receiving it
//     (the log's), a fraction of a millisecond apart on one node;
//   - its coverage: its first and last lines against the capture's span,
//     and whether it ended before the capture did (the capture shows a
//     room completing its TransferInfos after the log's last line, which
//     the log would have shown);
//   - its lines the reader doubted (eventlog.Event.Doubt: a line far
//     out of time order, or written after a step of the clock back);
//   - which prefill endpoint it belongs to, when rooms of the same ids are
//     on several.
//
// Before the first room is judged (logcheck.go waits for fitPairs rooms
// with an offset, fitHeld rooms held, or a deadline of capture), a log
// whose clock is off by more than fitTolerance, whose offsets scatter
// (another run's log shifted onto this capture) or whose endpoint is
// ambiguous is refused in one error. After it, a room whose verdict
// depends on a part of the log that does not fit (a doubtful line, an
// offset unlike the others, a log that ended or began within its life) is
// inconclusive with the reason, never violated or invalid (believe).

// ErrLogEndpoint is wrapped by Err when the log's rooms are on more than
// one prefill endpoint of the capture and its times do not say which is
// its own: Options.LogEndpoint (-log-endpoint) must.
var ErrLogEndpoint = errors.New("the event log's prefill endpoint is ambiguous")

const (
	// fitPairs is how many rooms with an offset the check of the log
	// waits for before it decides (unless fitHeld rooms are held, or
	// capture time went a deadline past the capture's first room).
	fitPairs = 5
	fitHeld  = 64
	// fitTolerance is how far the log's WaitingForInput line of a room may
	// be from the capture's TransferInfo that completes it, and how far
	// the offsets of one log may scatter: on one node they are a fraction
	// of a millisecond apart (the bundled captures: at most 2 ms, SGLang's
	// real code under load included).
	fitTolerance = 100 * time.Millisecond
	// maxFitSamples bounds the offsets kept for the median, and the room
	// ids kept per endpoint to match the log's endpoint.
	maxFitSamples = 4096
)

// LogFit is what a Judge measured of the log against the capture.
type LogFit struct {
	// Rooms counts the rooms with an offset (a completing TransferInfo and
	// a WaitingForInput line); Offset is their median (the log's time
	// minus the capture's: positive when the log's clock is ahead, or its
	// writer slow), MinOffset and MaxOffset bound them.
	Rooms                        int
	Offset, MinOffset, MaxOffset time.Duration
	// LogFirst and LogLast are the times of the log's first and last
	// lines of prefill (FirstLine, LastLine their numbers); WireFirst and
	// WireLast the capture's first and last messages of a room.
	LogFirst, LogLast   time.Time
	FirstLine, LastLine int
	WireFirst, WireLast time.Time
	// Ended says the log ends before the capture: the capture shows, at
	// frame EndFrame after the log's last line, a message of room EndRoom
	// that prefill logs its handling of and the log does not show (EndWhy
	// says which).
	Ended    bool
	EndRoom  int64
	EndFrame int
	EndWhy   string
	// Endpoint is the prefill endpoint the log was matched to (zero when
	// none was seen); Shared the other endpoints with rooms of the log's
	// ids, and Matched how the log was matched among them.
	Endpoint netip.AddrPort
	Shared   []netip.AddrPort
	Matched  string
	// Doubted counts the rooms held inconclusive for a part of the log
	// that does not fit them.
	Doubted int
	// Refused says why the log was refused (Judge.Err: it does not belong
	// to the capture, or its endpoint is ambiguous), "" when it was
	// believed.
	Refused string
}

// String says the fit in a line.
func (f *LogFit) String() string {
	var b strings.Builder
	if f.LastLine == 0 {
		return "the log shows no event of prefill"
	}

	fmt.Fprintf(&b, "lines %d to %d, %s to %s", f.FirstLine, f.LastLine, stamp(f.LogFirst), stamp(f.LogLast))
	if !f.WireFirst.IsZero() {
		fmt.Fprintf(&b, " (the capture's messages: %s to %s)", stamp(f.WireFirst), stamp(f.WireLast))
	}
	if f.Rooms > 0 {
		fmt.Fprintf(&b, "; clock offset %s (median of %d rooms, %s to %s)", signed(f.Offset), f.Rooms, signed(f.MinOffset), signed(f.MaxOffset))
	} else {
		b.WriteString("; clock offset unknown (no room shows a completing TransferInfo and a WaitingForInput line)")
	}
	if f.Ended {
		fmt.Fprintf(&b, "; it ends before the capture (%s, after its last line)", f.EndWhy)
	}
	if f.Matched != "" {
		b.WriteString("; " + f.Matched)
	}
	if f.Doubted > 0 {
		fmt.Fprintf(&b, "; %d rooms inconclusive for parts of the log that do not fit", f.Doubted)
	}
	if f.Refused != "" {
		b.WriteString("; refused: " + f.Refused)
	}
	return b.String()
}

func signed(d time.Duration) string {
	d = d.Round(10 * time.Microsecond)
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

// roomFit is what a room shows of the log's fit.
type roomFit struct {
	tis     int
	tiDone  int64
	tiFrame int
	wfi     int64
	wfiLine int
	// from is the status the room's first status line changed from;
	// status the last one's new status (line statusLine), and cleared
	// says a clear line came after it.
	from, status string
	statusLine   int
	cleared      bool
	sampled      bool
	// doubt says why the log cannot be believed about the room.
	doubt string
	// waitLog says the room's verdict waits for the log to reach its
	// deadline (believe).
	waitLog bool
}

// logFit is what the Judge measures of the log's fit.
type logFit struct {
	samples             []int64
	n                   int
	lo, hi              int64
	loRoom, hiRoom      int64
	median              int64 // at the decision
	decided             bool
	logFirst, logLast   int64
	firstLine, lastLine int
	wireFirst, wireLast int64
	wireSeen            bool
	// end is the first completion of a room's TransferInfos on the log's
	// endpoint more than fitTolerance after the log's last line (cleared
	// when a later line comes).
	end struct {
		at    int64
		room  int64
		frame int
		what  observe.Kind
	}
	// Until the decision: the completions of rooms' TransferInfos on other
	// endpoints, and the log's WaitingForInput lines, by room id.
	otherTI map[netip.AddrPort]map[int64]int64
	// ep0 is the log's endpoint as the capture shows it.
	ep0     netip.AddrPort
	logWFI  map[int64]int64
	matched string
	shared  []netip.AddrPort
	doubted int
	// ticked is the latest Tick: a live merge ticks capture time on once
	// the log was read through it (observe.Live), so the log covers it
	// even when it has no line there.
	ticked int64
}

// fitObserve records o (of room rm, at now) for the log's fit.
func (j *Judge) fitObserve(rm *room, o *observe.Observation, now int64) {
	f := &j.fit
	rf := &rm.Data.fit
	tol := int64(fitTolerance)
	if !o.Kind.Wire() {
		if f.lastLine == 0 {
			f.logFirst, f.firstLine = now, o.Line
		}
		if now >= f.logLast {
			f.logLast, f.lastLine = now, o.Line
		}
		if f.end.at != 0 && now >= f.end.at-tol {
			f.end.at = 0 // the log went on
		}
		if o.Doubt != "" && rf.doubt == "" {
			rf.doubt = fmt.Sprintf("its log line %d is doubtful: %s", o.Line, o.Doubt)
		}
		switch o.Kind {
		case observe.Status:
			if rf.from == "" {
				rf.from = o.From
			}
			rf.status, rf.statusLine, rf.cleared = o.To, o.Line, false
		case observe.Clear:
			rf.cleared = true
		}
		if o.Kind == observe.Status && o.To == "WaitingForInput" && rf.wfi == 0 && o.Doubt == "" {
			rf.wfi, rf.wfiLine = now, o.Line
			if !f.decided && len(f.logWFI) < maxFitSamples {
				if f.logWFI == nil {
					f.logWFI = map[int64]int64{}
				}
				if _, ok := f.logWFI[rm.ID]; !ok {
					f.logWFI[rm.ID] = now
				}
			}
			j.fitSample(rm)
		}
		return
	}
	if !f.wireSeen {
		f.wireFirst, f.wireSeen = now, true
	}
	if rm.OnLogEndpoint() && !f.ep0.IsValid() {
		f.ep0 = j.rooms.Endpoint(rm)
	}
	f.wireLast = max(f.wireLast, now)
	if o.Kind == observe.Abort && rm.OnLogEndpoint() && rf.status != "" && rf.status != "Absent" && rf.status != "Success" && rf.status != "Failed" && !rf.cleared {
		// Prefill fails a room present and not terminal on its ABORT, and
		// logs it.
		j.fitExpect(rm, o, now)
	}
	if o.Kind != observe.TransferInfo {
		return
	}
	if rf.tis++; rf.tis != o.Required {
		return
	}
	rf.tiDone, rf.tiFrame = now, o.Frame
	if !rm.OnLogEndpoint() {
		if !f.decided {
			p := j.rooms.Endpoint(rm)
			if f.otherTI == nil {
				f.otherTI = map[netip.AddrPort]map[int64]int64{}
			}
			m := f.otherTI[p]
			if m == nil {
				m = map[int64]int64{}
				f.otherTI[p] = m
			}
			if _, ok := m[rm.ID]; !ok && len(m) < maxFitSamples {
				m[rm.ID] = now
			}
		}
		return
	}
	j.fitExpect(rm, o, now)
	j.fitSample(rm)
}

// fitExpect notes that o (of room rm, on the log's endpoint) is a message
// prefill logs its handling of at once: the completion of a room's
// TransferInfos (WaitingForInput), an ABORT of a room present and not
// terminal (Failed). One that comes more than fitTolerance after the
// log's last line, with no line after it, says the log ended there.
func (j *Judge) fitExpect(rm *room, o *observe.Observation, now int64) {
	f := &j.fit
	if f.lastLine != 0 && now > f.logLast+int64(fitTolerance) && f.end.at == 0 {
		f.end.at, f.end.room, f.end.frame, f.end.what = now, rm.ID, o.Frame, o.Kind
	}
}

// fitSample takes the offset of room rm once it shows both sides.
func (j *Judge) fitSample(rm *room) {
	f := &j.fit
	rf := &rm.Data.fit
	if rf.sampled || rf.wfi == 0 || rf.tiDone == 0 || !rm.OnLogEndpoint() {
		return
	}
	rf.sampled = true
	d := rf.wfi - rf.tiDone
	if f.n == 0 || d < f.lo {
		f.lo, f.loRoom = d, rm.ID
	}
	if f.n == 0 || d > f.hi {
		f.hi, f.hiRoom = d, rm.ID
	}
	f.n++
	if len(f.samples) < maxFitSamples {
		f.samples = append(f.samples, d)
	}
	if f.decided {
		tol := int64(fitTolerance)
		if d < -int64(j.opt.Skew)-tol || d > tol || d-f.median > tol || f.median-d > tol {
			rf.doubt = fmt.Sprintf("its WaitingForInput (log line %d) is %s from the TransferInfo that completes it (frame %d), where the log's rooms are at a median %s: the log does not fit the capture here",
				rf.wfiLine, signed(time.Duration(d)), rf.tiFrame, signed(time.Duration(f.median)))
		}
	}
}

// fitReady reports whether the check of the log may be decided: enough
// rooms give an offset, enough rooms wait for it, or capture time went a
// deadline past the capture's first message.
func (j *Judge) fitReady(held int) bool {
	f := &j.fit
	return f.n >= fitPairs || held >= fitHeld || f.wireSeen && j.lastTime-f.wireFirst >= int64(j.opt.Deadline)
}

// checkFit decides whether the log fits the capture well enough to be
// believed: its endpoint, its clock offset, the scatter of its offsets.
func (j *Judge) checkFit() error {
	f := &j.fit
	f.decided = true
	if len(f.samples) > 0 {
		s := slices.Clone(f.samples)
		slices.Sort(s)
		f.median = s[len(s)/2]
	}
	defer func() { f.otherTI, f.logWFI = nil, nil }()
	if err := j.matchEndpoint(); err != nil {
		return err
	}
	if f.n < fitPairs {
		return nil // too few rooms to tell a log's scatter from its rooms'
	}
	tol := int64(fitTolerance)
	how := fmt.Sprintf("from the TransferInfo that completes a room to the log's WaitingForInput line of it: median %s over %d rooms, %s (room %d) to %s (room %d)",
		signed(time.Duration(f.median)), f.n, signed(time.Duration(f.lo)), f.loRoom, signed(time.Duration(f.hi)), f.hiRoom)
	if f.hi-f.lo > tol {
		return fmt.Errorf("%w: its times do not fit the capture's, as one run's log does within %v (%s): another run's log, or a clock that jumped?",
			ErrLogMismatch, fitTolerance, how)
	}
	return nil
}

// matchEndpoint checks, when rooms of the log's ids are on more than one
// prefill endpoint and none was given, that the log's times fit the
// endpoint it was matched to (the first seen) and no other.
func (j *Judge) matchEndpoint() error {
	f := &j.fit
	if j.opt.LogEndpoint.IsValid() || len(f.otherTI) == 0 || len(f.logWFI) == 0 {
		return nil
	}
	// A WaitingForInput line follows the TransferInfo that completes its
	// room within the tolerance, and never precedes it by more than the
	// skew.
	fits := func(d int64) bool { return d >= -int64(j.opt.Skew) && d <= int64(fitTolerance) }
	count := func(ti map[int64]int64) (common, fit int) {
		for id, t := range ti {
			w, ok := f.logWFI[id]
			if !ok {
				continue
			}
			common++
			if d := w - t; fits(d) {
				fit++
			}
		}
		return common, fit
	}
	own := 0
	if len(f.samples) > 0 {
		for _, d := range f.samples {
			if fits(d) {
				own++
			}
		}
	}
	ep0 := f.ep0
	var best netip.AddrPort
	bestFit := -1
	for p, ti := range f.otherTI {
		common, fit := count(ti)
		if common == 0 {
			continue
		}
		ep := p
		f.shared = append(f.shared, ep)
		if fit > bestFit {
			best, bestFit = ep, fit
		}
	}
	if len(f.shared) == 0 {
		return nil
	}
	slices.SortFunc(f.shared, func(a, b netip.AddrPort) int { return a.Compare(b) })
	if bestFit >= own {
		how := fmt.Sprintf("its times fit %s's rooms (%d) as well as %s's (%d), the first seen: give -log-endpoint with the log's own prefill endpoint", best, bestFit, ep0, own)
		if bestFit > own {
			how = fmt.Sprintf("its times fit %s's rooms (%d) better than %s's (%d), the first seen: give -log-endpoint %s if the log is its prefill's", best, bestFit, ep0, own, best)
		}
		return fmt.Errorf("%w: the log's room ids are on prefill endpoints %s and %v, and %s", ErrLogEndpoint, ep0, f.shared, how)
	}
	f.matched = fmt.Sprintf("matched to prefill endpoint %s by the times of %d rooms (its room ids are also on %v, whose times fit %d)", ep0, own, f.shared, max(bestFit, 0))
	return nil
}

// believe makes the verdict of a room judged with the log inconclusive
// when it depends on a part of the log that does not fit the capture:
// never violated (or invalid) on such a part.
func (j *Judge) believe(rm *room, out *Room, end int64) {
	rs := &rm.Data
	rs.fit.waitLog = false
	if !j.opt.Log || !rs.log || out.WireOnly || out.Verdict != Violated && out.Verdict != Invalid {
		return
	}
	f := &j.fit
	dl := int64(j.opt.Deadline)
	why := rs.fit.doubt
	// The log does not reach the room's deadline: it ended, or prefill
	// went quiet (a pinned room writes no more lines). Where the capture
	// shows that it ended, the room's release may be past its end; where
	// not, a room some completion of prefill's unseen steps pins may be
	// pinned (the log's silence is what a pin looks like), and one that
	// every completion lets go was let go where the log does not reach.
	// (A room judged again from another start is held to its first ABORT.)
	episode := rs.episode
	if episode == 0 {
		episode = rs.abortTime
	}
	unreleased := why == "" && out.Verdict == Violated && out.Latency < 0 && rs.inst != nil
	switch {
	case unreleased && f.ended(end) && f.logLast < episode+dl:
		why = fmt.Sprintf("the log ends at line %d (%s), before its deadline (%s): %s, after it, which prefill logs and the log does not show; its release may be past the log's end",
			f.lastLine, stamp(stamp64(f.logLast)), stamp(stamp64(episode+dl)), f.endWhat())
	case unreleased && rs.episode != 0 && max(f.logLast, f.ticked) < rs.episode+dl:
		if pin, complete := rs.inst.Pin(rs.set); pin == nil || !complete {
			rs.fit.waitLog = true
			why = fmt.Sprintf("the log's last line (%d, %s) is before its deadline (%s), and every completion of prefill's steps from what the log shows (%s) lets it go: its release is past the log's end",
				f.lastLine, stamp(stamp64(f.logLast)), stamp(stamp64(rs.episode+dl)), rs.fit.state())
		}
	}
	if rf := &rs.fit; why == "" && f.lastLine != 0 && rf.tiDone != 0 && rf.wfi == 0 && rf.tiDone < f.logFirst-int64(fitTolerance) &&
		rf.from != "Absent" && rf.from != "Bootstrapping" {
		// (A first status line from Absent or Bootstrapping says the log
		// saw the room before its WaitingForInput: it lacks nothing.)
		why = fmt.Sprintf("the log begins at line %d (%s), after this room's TransferInfos were complete (frame %d, %s): it lacks the room's WaitingForInput",
			f.firstLine, stamp(stamp64(f.logFirst)), rf.tiFrame, stamp(stamp64(rf.tiDone)))
	}
	if why == "" && out.Verdict == Violated && f.n > 0 && f.hi > 0 {
		// Its release may be stamped up to the log's largest offset late.
		margin := int64(out.Latency) - dl
		if out.Latency < 0 {
			margin = end - episode - dl
		}
		if margin <= f.hi {
			rs.fit.waitLog = out.Latency < 0 // (judged again as capture time goes on)
			why = fmt.Sprintf("it is past its deadline by %v, within the log's largest offset from the capture (%s)", time.Duration(margin), signed(time.Duration(f.hi)))
		}
	}
	if why == "" {
		return
	}
	f.doubted++
	out.Reason = fmt.Sprintf("would be %s (%s), but %s", out.Verdict, out.Reason, why)
	out.Verdict = Inconclusive
}

// state says the room's last logged status.
func (rf *roomFit) state() string {
	switch {
	case rf.status == "":
		return "no status logged"
	case rf.cleared:
		return rf.status + ", cleared"
	}
	return fmt.Sprintf("%s at line %d", rf.status, rf.statusLine)
}

// endWhat says what showed that the log ended.
func (f *logFit) endWhat() string {
	if f.end.what == observe.Abort {
		return fmt.Sprintf("the capture shows an ABORT of room %d at frame %d, which prefill fails the room on", f.end.room, f.end.frame)
	}
	return fmt.Sprintf("the capture shows room %d completing its TransferInfos at frame %d", f.end.room, f.end.frame)
}

// ended reports whether the log is known to have ended before the capture
// at capture time now.
func (f *logFit) ended(now int64) bool {
	return f.end.at != 0 && now >= f.end.at+int64(fitTolerance)
}

// endTime is the time verdicts are judged at: the capture's end once
// Finish was called.
func (j *Judge) endTime() int64 {
	if j.finished {
		return j.end
	}
	return j.lastTime
}

// LogFit returns what the Judge measured of the log against the capture
// (nil without a log).
func (j *Judge) LogFit() *LogFit {
	if !j.opt.Log {
		return nil
	}
	f := &j.fit
	out := &LogFit{Rooms: f.n, Offset: time.Duration(f.median), MinOffset: time.Duration(f.lo), MaxOffset: time.Duration(f.hi),
		LogFirst: stamp64(f.logFirst), LogLast: stamp64(f.logLast), FirstLine: f.firstLine, LastLine: f.lastLine,
		Ended: f.ended(j.endTime()), EndRoom: f.end.room, EndFrame: f.end.frame,
		Endpoint: f.ep0, Shared: f.shared, Matched: f.matched, Doubted: f.doubted}
	if j.err != nil {
		out.Refused = j.err.Error()
	}
	if !f.decided && len(f.samples) > 0 {
		s := slices.Clone(f.samples)
		slices.Sort(s)
		out.Offset = time.Duration(s[len(s)/2])
	}
	if f.wireSeen {
		out.WireFirst, out.WireLast = stamp64(f.wireFirst), stamp64(f.wireLast)
	}
	if out.Ended {
		out.EndWhy = f.endWhat()
	} else {
		out.EndRoom, out.EndFrame = 0, 0
	}
	return out
}
