package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
)

// ErrOverwritten is wrapped by the error of a followed file that shrank,
// or whose first bytes changed, while it was read: its writer started it
// over (a rotation that came round to it, or a restart), and what the
// reader had not read is lost.
var ErrOverwritten = errors.New("source: capture file overwritten while read")

// headLen is how many of a followed file's first bytes are kept to notice
// that it was started over: the pcap header and the first record's
// header (or the pcapng section header's start).
const headLen = 40

// DefaultPoll is how often a followed file is looked at for growth.
const DefaultPoll = 50 * time.Millisecond

// growing reads a file that is still being written: at its end it waits
// for more, until finished says the writer is done with it (or ctx ends).
type growing struct {
	ctx  context.Context
	f    *os.File
	name string
	poll time.Duration
	off  int64
	// finished reports whether the file will not grow any more; it is
	// asked only at the file's end.
	finished func() bool
	// err is the last error Read returned: capture.Reader reports a
	// failed read as a truncated record, without the cause.
	err error
	// head holds the file's first bytes as read (up to headLen).
	head []byte
}

func (g *growing) Read(b []byte) (int, error) {
	n, err := g.read(b)
	if err != nil && err != io.EOF {
		g.err = err
	}
	return n, err
}

func (g *growing) read(b []byte) (int, error) {
	waited := false
	for {
		if waited {
			// It may have been started over while we waited, and
			// written past where we were since.
			if err := g.rewritten(); err != nil {
				return 0, err
			}
		}
		n, err := g.f.Read(b)
		if n > 0 {
			if len(g.head) < headLen && g.off < headLen {
				g.head = append(g.head, b[:min(n, headLen-int(g.off))]...)
			}
			g.off += int64(n)
			return n, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		fi, err := g.f.Stat()
		if err != nil {
			return 0, err
		}
		if fi.Size() < g.off {
			return 0, fmt.Errorf("%w: %s shrank to %d bytes, %d were read", ErrOverwritten, g.name, fi.Size(), g.off)
		}
		if fi.Size() > g.off {
			continue
		}
		if g.finished != nil && g.finished() {
			// Read once more: the writer may have written its last bytes
			// between the read above and the look at its state.
			n, err := g.f.Read(b)
			g.off += int64(n)
			if n > 0 || err != io.EOF {
				return n, err
			}
			return 0, io.EOF
		}
		select {
		case <-g.ctx.Done():
			return 0, io.EOF
		case <-time.After(g.poll):
		}
		waited = true
	}
}

// rewritten returns an ErrOverwritten error when the file's first bytes
// are no longer those read.
func (g *growing) rewritten() error {
	if len(g.head) == 0 {
		return nil
	}
	now := make([]byte, len(g.head))
	n, _ := g.f.ReadAt(now, 0)
	if n < len(now) || !bytes.Equal(now, g.head) {
		return fmt.Errorf("%w: %s was started over (its first bytes changed) after %d bytes were read", ErrOverwritten, g.name, g.off)
	}
	return nil
}

// File is a capture file that is still being written ("tcpdump -U -w
// FILE"), read as it grows until the context ends; a gzip file is
// decompressed as it grows.
type File struct {
	g  *growing
	rd *capture.Reader
}

// OpenFile opens the capture file at path and reads its header (waiting
// for it to be written); poll is how often it looks for growth (0:
// DefaultPoll).
func OpenFile(ctx context.Context, path string, poll time.Duration) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	g := &growing{ctx: ctx, f: f, name: path, poll: pollOr(poll)}
	in, err := Decompress(g)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rd, err := capture.NewReader(in)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &File{g: g, rd: rd}, nil
}

func pollOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultPoll
	}
	return d
}

// Next returns the file's next record, waiting for it to be written; io.EOF
// once the context has ended and the file holds no more.
func (f *File) Next() (capture.Record, error) {
	rec, err := f.rd.Next()
	switch {
	case err == nil || err == io.EOF:
	case f.g.err != nil:
		err = fmt.Errorf("%w (%w)", f.g.err, err)
	case f.g.ctx.Err() != nil && errors.Is(err, capture.ErrTruncated):
		// Stopped in the middle of a record the writer has not finished.
		err = io.EOF
	}
	return rec, err
}

// Close closes the file.
func (f *File) Close() error { return f.g.f.Close() }
