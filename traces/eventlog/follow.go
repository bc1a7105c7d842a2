package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Follower reads the events of a log file that is still being written, as
// "tail -F" follows a file: what was appended since the last call, a line
// only once its newline is written, the file again from its start when it
// was truncated, and the new file when the path was rotated (renamed away
// and created anew; what was left of the old one is read first). The file
// need not exist yet. Line numbers count from 1 in each file.
//
// It does no waiting of its own: Next returns io.EOF when nothing more is
// written yet, and the caller decides when to look again.
//
// As a Reader, it skips a byte order mark and repeated lines and stops at
// a file that is not a log (ErrNotLog, returned once: then io.EOF, so
// that a caller that looks again says it once); lines out of time order
// it counts (Stats) but returns as written: it cannot wait for what
// comes next.
type Follower struct {
	path string
	f    *os.File
	fi   os.FileInfo
	off  int64
	buf  []byte // bytes read and not yet returned: a partial line at most
	line int
	// skipping drops the rest of a line longer than MaxLine.
	skipping bool
	chunk    []byte
	// Rotations and Truncations count what the follower noticed.
	Rotations, Truncations int
	chk                    checker
	fatal                  error
	fatalSaid              bool
}

// stopped returns what Next and Final return once the file was found not
// to be a log: ErrNotLog the first time, io.EOF after.
func (f *Follower) stopped() error {
	if f.fatalSaid {
		return io.EOF
	}
	f.fatalSaid = true
	return f.fatal
}

// Stats returns what the Follower did about the log so far.
func (f *Follower) Stats() Stats { return f.chk.stats }

// NewFollower returns a Follower of the file at path (opened when it
// first exists).
func NewFollower(path string) *Follower {
	return &Follower{path: path, chunk: make([]byte, 64<<10)}
}

// Open reports whether the file has been found.
func (f *Follower) Open() bool { return f.f != nil }

// Close closes the file.
func (f *Follower) Close() error {
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	f.f = nil
	return err
}

// Next returns the next event of a complete line. It returns io.EOF when
// no complete line follows what was read (call again later), an error
// wrapping ErrSyntax for a malformed line (call again to go on), and any
// other error when the file cannot be read.
func (f *Follower) Next() (Event, error) {
	if f.fatal != nil {
		return Event{}, f.stopped()
	}
	for {
		if e, err, ok := f.nextLine(false); ok {
			return e, err
		}
		n, err := f.read()
		if err != nil {
			return Event{}, err
		}
		if n == 0 {
			return Event{}, io.EOF
		}
	}
}

// Final returns the event of the last line when the writer stopped in the
// middle of it (no newline): what Reader would return last. It returns
// io.EOF when there is none.
func (f *Follower) Final() (Event, error) {
	if f.fatal != nil {
		return Event{}, f.stopped()
	}
	if e, err, ok := f.nextLine(true); ok {
		return e, err
	}
	return Event{}, io.EOF
}

// nextLine parses the next line held in buf (with final, also a last line
// without its newline); ok is false when there is none.
func (f *Follower) nextLine(final bool) (e Event, err error, ok bool) {
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			if !final || len(bytes.TrimSpace(f.buf)) == 0 || f.skipping {
				if len(f.buf) > MaxLine && !f.skipping {
					f.line++
					f.buf, f.skipping = f.buf[:0], true
					return Event{}, &SyntaxError{Line: f.line, Msg: fmt.Sprintf("longer than %d bytes", MaxLine)}, true
				}
				if f.skipping {
					f.buf = f.buf[:0]
				}
				return Event{}, nil, false
			}
			i = len(f.buf)
		}
		b := f.buf[:i]
		rest := f.buf[min(i+1, len(f.buf)):]
		if f.skipping {
			f.skipping = false
			f.buf = rest
			continue
		}
		if f.line == 0 {
			if f.fatal = capture(f.buf); f.fatal != nil {
				return Event{}, f.stopped(), true
			}
		}
		f.line++
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			f.buf = rest
			continue
		}
		e, err, skip := f.chk.line(b, f.line)
		if err == nil && f.chk.outlier != 0 {
			// The outlier was handed on already: what follows it before
			// its time is doubtful.
			f.chk.misplaced()
			e.Doubt = f.chk.doubt
		}
		// Keep the unread rest at the front of buf, so that it never grows
		// past a line and a chunk.
		f.buf = f.buf[:copy(f.buf, rest)]
		if skip {
			continue
		}
		if errors.Is(err, ErrNotLog) {
			f.fatal = err
			err = f.stopped()
		}
		return e, err, true
	}
}

// read appends what the file has past what was read to buf, switching to
// a new file where the path was rotated and starting over where it was
// truncated; it returns how many bytes it added.
func (f *Follower) read() (int, error) {
	if f.f == nil {
		file, err := os.Open(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("eventlog: %w", err)
		}
		fi, err := file.Stat()
		if err != nil {
			file.Close()
			return 0, fmt.Errorf("eventlog: %w", err)
		}
		f.f, f.fi, f.off, f.line = file, fi, 0, 0
	}
	n, err := f.f.Read(f.chunk)
	if n > 0 {
		f.off += int64(n)
		f.buf = append(f.buf, f.chunk[:n]...)
		return n, nil
	}
	if err != nil && err != io.EOF {
		return 0, fmt.Errorf("eventlog: %s: %w", f.path, err)
	}
	// At the end of the open file: has it been truncated or replaced?
	cur, err := f.f.Stat()
	if err == nil && cur.Size() < f.off {
		f.Truncations++
		if _, err := f.f.Seek(0, io.SeekStart); err != nil {
			return 0, fmt.Errorf("eventlog: %s: %w", f.path, err)
		}
		f.off, f.line, f.buf, f.skipping = 0, 0, f.buf[:0], false
		return f.read()
	}
	now, err := os.Stat(f.path)
	if err != nil || os.SameFile(now, f.fi) {
		return 0, nil // the same file, or none at the path yet: wait
	}
	// Rotated: the old file is read to its end; a partial last line of it
	// is a line (its writer has moved on).
	f.Rotations++
	if len(bytes.TrimSpace(f.buf)) > 0 && !bytes.HasSuffix(f.buf, []byte("\n")) {
		f.buf = append(f.buf, '\n')
	}
	f.f.Close()
	f.f = nil
	if len(f.buf) > 0 {
		return len(f.buf), nil
	}
	return f.read()
}
