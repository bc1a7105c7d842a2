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
// while it is read (the rotation came round to it: the source fell a
// whole rotation behind) is reported to Problem and skipped; reading goes
// on with the next file, or the newest after an overwrite.
type Dir struct {
	ctx     context.Context
	dir     string
	pattern string
	poll    time.Duration
	// Problem, if set, receives what made the Dir skip a file.
	Problem func(error)
	// Files counts the files opened.
	Files int

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
	return &Dir{ctx: ctx, dir: dir, pattern: pattern, poll: pollOr(poll)}, nil
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
		if d.pattern == "" && name[0] == '.' {
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
	for _, f := range d.files() {
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
			return rec, nil
		}
		if d.ctx.Err() != nil {
			return capture.Record{}, io.EOF
		}
		if d.g.err != nil {
			err = fmt.Errorf("%w (%w)", d.g.err, err)
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
