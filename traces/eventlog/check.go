package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"time"
	"unicode/utf8"
)

// ErrNotLog is wrapped by the error of a file that is not an event log at
// all (binary data, a capture, or lines none of which is an event): the
// reader stops at once rather than report every line.
var ErrNotLog = errors.New("not an event log")

// utf8BOM is the byte order mark some editors and shippers put first.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// notLogAfter is how many malformed lines, before any good one, make a
// file not an event log.
const notLogAfter = 5

// dupWindow is how many recent lines a duplicate is looked for among.
const dupWindow = 4096

// Stats counts what a reader did about a log that is not quite right.
type Stats struct {
	// BOM says the file began with a UTF-8 byte order mark (ignored).
	BOM bool
	// Duplicates counts lines identical to one of the 4096 before them
	// (a shipper that sent a batch twice); they are dropped.
	// FirstDuplicate is the first one's line number.
	Duplicates, FirstDuplicate int
	// Reordered counts lines whose ts is before an earlier line's by up
	// to ReorderWithin (threads that wrote in another order than they
	// read the clock); a Reader puts them back in time order, a Follower
	// only counts them.
	Reordered, FirstReordered int
	// ClockBack counts lines whose ts steps back by more than
	// ReorderWithin: the writer's clock was set back; they are left where
	// they are, and the lines after a step whose ts is still before the
	// last one before it are doubtful (Event.Doubt).
	ClockBack, FirstClockBack int
	// Outliers counts lines whose ts is ahead of the lines on both sides
	// of it by more than ReorderWithin while those agree (one line 10 s
	// in the future, the next back in line): a Reader gives such a line
	// the time of the line before it, and marks it doubtful.
	Outliers, FirstOutlier int
}

// Notes describes what Stats counted, one sentence each, or nothing.
func (s Stats) Notes() []string {
	var out []string
	if s.BOM {
		out = append(out, "a UTF-8 byte order mark at its start (ignored)")
	}
	if s.Duplicates > 0 {
		out = append(out, fmt.Sprintf("%d lines that repeat an earlier line (dropped; first at line %d)", s.Duplicates, s.FirstDuplicate))
	}
	if s.Reordered > 0 {
		out = append(out, fmt.Sprintf("%d lines out of time order by less than %v (first at line %d)", s.Reordered, ReorderWithin, s.FirstReordered))
	}
	if s.ClockBack > 0 {
		out = append(out, fmt.Sprintf("%d steps of its clock back by more than %v (first at line %d): left in file order, the rooms of the lines after a step judged on them inconclusive, never violated", s.ClockBack, ReorderWithin, s.FirstClockBack))
	}
	if s.Outliers > 0 {
		out = append(out, fmt.Sprintf("%d lines ahead of the lines around them by more than %v (first at line %d): given the time of the line before, their rooms judged on them inconclusive, never violated", s.Outliers, ReorderWithin, s.FirstOutlier))
	}
	return out
}

// ReorderWithin is how far back in time a line may be from the latest
// before it and still be taken for a reordering of writers (put back in
// order by a Reader) rather than a step of the clock.
const ReorderWithin = time.Second

// checker looks at every line of one log before it is parsed: the byte
// order mark, binary content, repeated lines, lines out of time order.
type checker struct {
	stats Stats
	good  int // lines parsed
	bad   int // malformed lines
	// recent holds the hashes of the last dupWindow lines, ring their
	// order.
	recent map[uint64]int
	ring   []uint64
	latest time.Time
	// lastLine is the line number of the last event parsed. ahead is the
	// line of that event when its ts was ahead of the latest before it
	// (before) by more than ReorderWithin: an outlier, if the next line
	// goes back to before.
	lastLine, ahead int
	before          time.Time
	// doubtUntil: lines before this time are doubtful, for doubt's reason
	// (after a step of the clock back, or an outlier a Follower could not
	// put back).
	doubtUntil time.Time
	doubt      string
	// outlier is the line found an outlier by the line just parsed (0 if
	// none), and outlierAt its ts.
	outlier   int
	outlierAt time.Time
}

// line parses line lineNo (trimmed, non-empty). skip says the line is
// dropped (a duplicate); an error wrapping ErrNotLog ends the log.
func (c *checker) line(b []byte, lineNo int) (e Event, err error, skip bool) {
	c.outlier = 0
	if lineNo == 1 && bytes.HasPrefix(b, utf8BOM) {
		c.stats.BOM = true
		b = bytes.TrimSpace(b[len(utf8BOM):])
		if len(b) == 0 {
			return Event{}, nil, true
		}
	}
	if err := binary(b, lineNo); err != nil {
		return Event{}, err, false
	}
	if c.duplicate(b) {
		c.stats.Duplicates++
		if c.stats.FirstDuplicate == 0 {
			c.stats.FirstDuplicate = lineNo
		}
		return Event{}, nil, true
	}
	e, err = Parse(b, lineNo)
	if err != nil {
		c.bad++
		if c.good == 0 && c.bad >= notLogAfter {
			return Event{}, fmt.Errorf("eventlog: %w: its first %d lines are not events (the last: %v)", ErrNotLog, c.bad, err), false
		}
		return Event{}, err, false
	}
	c.good++
	c.order(&e)
	return e, nil, false
}

// order counts e if it is out of time order, and marks it doubtful when
// it comes after a step of the clock back.
func (c *checker) order(e *Event) {
	ahead := c.ahead
	c.ahead = 0
	prev := c.lastLine
	c.lastLine = e.Line
	switch {
	case c.latest.IsZero() || !e.Time.Before(c.latest):
		if !c.latest.IsZero() && e.Time.Sub(c.latest) > ReorderWithin {
			c.ahead, c.before = e.Line, c.latest
		}
		c.latest = e.Time
	case c.latest.Sub(e.Time) <= ReorderWithin:
		c.stats.Reordered++
		if c.stats.FirstReordered == 0 {
			c.stats.FirstReordered = e.Line
		}
	case ahead != 0 && ahead == prev && e.Line == prev+1 && !e.Time.Before(c.before.Add(-ReorderWithin)):
		// The line before was the odd one out: ahead of this one and of
		// the one before it, which agree.
		c.stats.Outliers++
		if c.stats.FirstOutlier == 0 {
			c.stats.FirstOutlier = ahead
		}
		c.outlier, c.outlierAt = ahead, c.latest
		c.latest = latest(c.before, e.Time)
	default:
		c.stats.ClockBack++
		if c.stats.FirstClockBack == 0 {
			c.stats.FirstClockBack = e.Line
		}
		c.doubtUntil = latest(c.doubtUntil, c.latest)
		c.doubt = fmt.Sprintf("written after the log's clock stepped back %v at line %d", c.latest.Sub(e.Time).Round(time.Millisecond), e.Line)
		c.latest = e.Time
	}
	if e.Time.Before(c.doubtUntil) {
		e.Doubt = c.doubt
	}
}

// misplaced is called when the outlier line could not be given its
// place (it was already handed on): the lines after it that are before
// its time are doubtful.
func (c *checker) misplaced() {
	c.doubtUntil = latest(c.doubtUntil, c.outlierAt)
	c.doubt = fmt.Sprintf("written after line %d, whose time was %v ahead of the lines around it", c.outlier, c.outlierAt.Sub(c.before).Round(time.Millisecond))
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// duplicate reports whether b repeats one of the recent lines, and
// remembers it.
func (c *checker) duplicate(b []byte) bool {
	h := fnv.New64a()
	h.Write(b)
	sum := h.Sum64()
	if c.recent == nil {
		c.recent = map[uint64]int{}
	}
	if c.recent[sum] > 0 {
		return true
	}
	if len(c.ring) == dupWindow {
		old := c.ring[0]
		if c.recent[old]--; c.recent[old] <= 0 {
			delete(c.recent, old)
		}
		c.ring = c.ring[1:]
	}
	c.ring = append(c.ring, sum)
	c.recent[sum]++
	return false
}

// pcapMagics start capture files: a capture given as the log.
var pcapMagics = [][]byte{
	{0xd4, 0xc3, 0xb2, 0xa1}, {0xa1, 0xb2, 0xc3, 0xd4}, // pcap, µs
	{0x4d, 0x3c, 0xb2, 0xa1}, {0xa1, 0xb2, 0x3c, 0x4d}, // pcap, ns
	{0x0a, 0x0d, 0x0d, 0x0a}, // pcapng
}

// capture returns an ErrNotLog error when a file's first bytes are those
// of a capture (or a compressed file, which a log is not read as).
func capture(head []byte) error {
	for _, m := range pcapMagics {
		if bytes.HasPrefix(head, m) {
			return fmt.Errorf("eventlog: %w: it is a pcap or pcapng capture (give it as the capture, not the log)", ErrNotLog)
		}
	}
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		return fmt.Errorf("eventlog: %w: it is a gzip file (decompress it first)", ErrNotLog)
	}
	return nil
}

// Sniff returns an error wrapping ErrNotLog when a file's first bytes
// (head: as many as were read, 512 is plenty) cannot start an event log: a
// capture, a compressed file, binary data, or a first line that is not a
// JSON object. A caller that is given a log file checks it with Sniff
// before judging anything, so that a wrong file is one line of error
// rather than one per line it holds. An empty head passes (a live log not
// written yet).
func Sniff(head []byte) error {
	if err := capture(head); err != nil {
		return err
	}
	head = bytes.TrimPrefix(head, utf8BOM)
	for line := range bytes.Lines(head) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			return fmt.Errorf("eventlog: %w: its first line does not start with '{' (a log is JSON lines, one object per line)", ErrNotLog)
		}
		return nil
	}
	return nil
}

// binary returns an ErrNotLog error for a line that no text log has: a
// NUL, or bytes that are not UTF-8.
func binary(b []byte, lineNo int) error {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Errorf("eventlog: %w: line %d holds binary data (a NUL byte at column %d)", ErrNotLog, lineNo, i+1)
	}
	if !utf8.Valid(b) {
		return fmt.Errorf("eventlog: %w: line %d holds binary data (bytes that are not UTF-8 text)", ErrNotLog, lineNo)
	}
	return nil
}
