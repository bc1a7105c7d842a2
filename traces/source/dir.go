package source

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
)

// Dir reads the capture files a capture tool writes into a directory and
// rotates ("tcpdump -C SIZE -W COUNT -w DIR/NAME" or "-G SECONDS"), as they
// are written: it starts with the newest file, reads it as it grows, and
// goes on to the next file when one newer than it appears (the tool
// finishes a file before it starts the next). Records are numbered over
// all the files read.
//
// A file that is not a capture, ends inside a record, or is overwritten
// while it is read (truncated, or started over by a rotation that came
// round to it: its first bytes change) is reported to Problem and skipped;
// reading goes on with the next file, or, after an overwrite, with the
// newest (the overwritten one again, read from its start, if it is).
// Compressed files (gzip, as "tcpdump -z gzip" leaves finished rotations)
// are not read: their packets were read before they were compressed.
//
// A stall (no record for StallAfter while files of the directory are
// written) is reported to Problem, as is its end, and Stalled says how
// long it has lasted.
type Dir struct {
	ctx     context.Context
	dir     string
	pattern string
	poll    time.Duration
	// Problem, if set, receives what made the Dir skip a file, and the
	// beginning and end of a stall (ErrStalled). It is called from Next.
	Problem func(error)
	// StallAfter is how long without a record, while files of the
	// directory are written, makes a stall (0: DefaultStallAfter).
	StallAfter time.Duration
	// Files counts the files opened.
	Files int

	// progress is when Next last returned a record or opened a file (wall
	// time); stallStart, when a stall began (Unix nanoseconds, 0 if none):
	// Stalled may read it from another goroutine.
	progress   time.Time
	stallStart atomic.Int64

	cur    *os.File
	curFI  os.FileInfo
	g      *growing
	rd     *capture.Reader
	frames int
	// after is the modification time the next file must not be older
	// than: that of the last file finished.
	after   time.Time
	started bool
}

// OpenDir returns the source of the capture files in dir whose names match
// pattern (filepath.Match; "" matches every name not starting with a dot);
// poll is how often it looks for growth and new files (0: DefaultPoll).
func OpenDir(ctx context.Context, dir, pattern string, poll time.Duration) (*Dir, error) {
	if pattern != "" {
		if _, err := filepath.Match(pattern, ""); err != nil {
			return nil, fmt.Errorf("source: pattern %q: %w", pattern, err)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("source: %s is not a directory", dir)
	}
	return &Dir{ctx: ctx, dir: dir, pattern: pattern, poll: pollOr(poll), progress: time.Now()}, nil
}

// ErrStalled is wrapped by the problem a Dir reports when it stalls.
var ErrStalled = errors.New("source: stalled")

// DefaultStallAfter is Dir.StallAfter's default.
const DefaultStallAfter = 30 * time.Second

// Stalled returns how long the Dir has been stalled (0 when it is not).
// It is safe to call from any goroutine (a metrics handler).
func (d *Dir) Stalled() time.Duration {
	if ns := d.stallStart.Load(); ns != 0 {
		return time.Since(time.Unix(0, ns))
	}
	return 0
}

// progressed records that the Dir went forward, ending a stall.
func (d *Dir) progressed() {
	d.progress = time.Now()
	if ns := d.stallStart.Swap(0); ns != 0 {
		d.problem(fmt.Errorf("source: %s: reading again after a stall of %v", d.dir, time.Since(time.Unix(0, ns)).Round(time.Millisecond)))
	}
}

// checkStall looks, while the Dir waits, for files written since it last
// went forward: if it has waited StallAfter with such files there, it is
// stalled.
func (d *Dir) checkStall(fs []dirFile) {
	after := d.StallAfter
	if after <= 0 {
		after = DefaultStallAfter
	}
	if d.stallStart.Load() != 0 || time.Since(d.progress) < after {
		return
	}
	for _, f := range fs {
		if f.fi.ModTime().After(d.progress) {
			d.stallStart.Store(d.progress.UnixNano())
			cur := "no file"
			if d.cur != nil {
				cur = d.cur.Name()
			}
			d.problem(fmt.Errorf("%w: no packet read for %v (reading %s) while %s was written at %s",
				ErrStalled, time.Since(d.progress).Round(time.Millisecond), cur, f.name, f.fi.ModTime().Format(time.RFC3339)))
			return
		}
	}
}

type dirFile struct {
	name string
	fi   os.FileInfo
}

// files lists the directory's capture files, oldest first.
func (d *Dir) files() []dirFile {
	ents, err := os.ReadDir(d.dir)
	if err != nil {
		return nil
	}
	var out []dirFile
	for _, e := range ents {
		name := e.Name()
		if d.pattern == "" && name[0] == '.' || strings.HasSuffix(name, ".gz") {
			continue
		}
		if d.pattern != "" {
			if ok, _ := filepath.Match(d.pattern, name); !ok {
				continue
			}
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, dirFile{name, fi})
	}
	slices.SortFunc(out, func(a, b dirFile) int {
		if c := a.fi.ModTime().Compare(b.fi.ModTime()); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	return out
}

// next returns the file to read next: the newest at the start, else the
// oldest one, other than the current, not older than the last finished.
func (d *Dir) next() (dirFile, bool) {
	fs := d.files()
	if !d.started {
		if len(fs) == 0 {
			return dirFile{}, false
		}
		return fs[len(fs)-1], true
	}
	for _, f := range fs {
		if d.curFI != nil && os.SameFile(f.fi, d.curFI) {
			continue
		}
		if !f.fi.ModTime().Before(d.after) {
			return f, true
		}
	}
	return dirFile{}, false
}

// newer reports whether a file newer than the current one is there: the
// tool has moved on, and the current file will not grow any more.
func (d *Dir) newer() bool {
	cur, err := d.cur.Stat()
	if err != nil {
		return true
	}
	fs := d.files()
	d.checkStall(fs)
	for _, f := range fs {
		if !os.SameFile(f.fi, cur) && !f.fi.ModTime().Before(cur.ModTime()) {
			return true
		}
	}
	return false
}

func (d *Dir) problem(err error) {
	if d.Problem != nil {
		d.Problem(err)
	}
}

// Next returns the next record, waiting for it to be written; io.EOF once
// the context has ended.
func (d *Dir) Next() (capture.Record, error) {
	for {
		if d.ctx.Err() != nil {
			return capture.Record{}, io.EOF
		}
		if d.rd == nil {
			if !d.open() {
				d.checkStall(d.files())
				select {
				case <-d.ctx.Done():
				case <-time.After(d.poll):
				}
			}
			continue
		}
		rec, err := d.rd.Next()
		if err == nil {
			d.frames++
			rec.Frame = d.frames
			d.progressed()
			return rec, nil
		}
		if d.ctx.Err() != nil {
			return capture.Record{}, io.EOF
		}
		if d.g.err != nil {
			err = fmt.Errorf("%w (%w)", d.g.err, err)
		} else if err != io.EOF {
			// Damage, or the file was started over under us and what
			// we read past the point it was truncated at is its new
			// content: then read it again from its start.
			if rw := d.g.rewritten(); rw != nil {
				err = fmt.Errorf("%w (%w)", rw, err)
			}
		}
		if err != io.EOF {
			d.problem(fmt.Errorf("%s: %w", d.cur.Name(), err))
		}
		d.finish(errors.Is(err, ErrOverwritten))
	}
}

// open opens the next file and reads its header; it reports whether there
// was a file to open.
func (d *Dir) open() bool {
	f, ok := d.next()
	if !ok {
		return false
	}
	file, err := os.Open(filepath.Join(d.dir, f.name))
	if err != nil {
		d.problem(err)
		d.after = f.fi.ModTime()
		d.started = true
		return true
	}
	d.cur, d.curFI, d.started = file, f.fi, true
	d.Files++
	d.progressed()
	d.g = &growing{ctx: d.ctx, f: file, name: file.Name(), poll: d.poll, finished: d.newer}
	d.rd, err = capture.NewReader(d.g)
	if err != nil {
		if d.g.err != nil {
			err = fmt.Errorf("%w (%w)", d.g.err, err)
		}
		if d.ctx.Err() == nil {
			d.problem(fmt.Errorf("%s: %w", file.Name(), err))
		}
		d.finish(errors.Is(err, ErrOverwritten))
	}
	return true
}

// finish closes the current file; after an overwrite, reading starts over
// with the newest file.
func (d *Dir) finish(overwritten bool) {
	if fi, err := d.cur.Stat(); err == nil {
		d.after = fi.ModTime()
	}
	d.cur.Close()
	d.rd, d.g = nil, nil
	if overwritten {
		d.started, d.curFI = false, nil
	}
}

// Close closes the current file.
func (d *Dir) Close() error {
	if d.cur != nil {
		return d.cur.Close()
	}
	return nil
}
