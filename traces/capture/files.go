package capture

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Records is a source of packet records in capture order: a *Reader (one
// file) or a *Files (a capture cut into several).
type Records interface {
	// Next returns the next record, whose Data is valid until the next
	// call; io.EOF at the end.
	Next() (Record, error)
}

// Input is one file of a capture cut into several.
type Input struct {
	// Name is how positions name the file ("-" for standard input).
	Name string
	// Open opens the file from its first byte. It is called once to look
	// at the file's first packet and once more to read it, unless Once.
	Open func() (io.ReadCloser, error)
	// Once says the file can be read only once (standard input, a pipe):
	// it is kept open from the look at its first packet on.
	Once bool
}

// Files reads the files of one capture (the rotations of "tcpdump -C" or
// "-G", or any cut) as a single capture: in the order of their first
// packets, whatever their names, one file after the other, with frame
// numbers counted over all of them so that TCP and ZeroMQ state carry
// across the cuts. Position names a frame by its file and its number
// there, as Wireshark shows it.
//
// A file that ends inside a record or is corrupt ends early: Next returns
// its *RecordError (with the capture's frame number, and the file's name
// in its Err when there are several) once, and the next call goes on with
// the next file.
type Files struct {
	files []*inputFile
	cur   int // index in files of the file being read
	rd    *Reader
	rc    io.ReadCloser
	// first is the first record of the current file when it was kept
	// from the look (a file read Once); its Data is a copy.
	first *Record
	// pending is the error the current file gives next, instead of a
	// record: its damage seen at the look, or why it failed to reopen.
	pending error
	base    int // frames of the files before the current one
	frame   int // frames so far
	// spans holds the first frame of each file opened, for Position;
	// read describes them.
	spans []span
	read  []FileSpan
}

type inputFile struct {
	Input
	t time.Time // timestamp of the first packet; zero when it has none
	// What the look kept of a file read Once.
	rd       *Reader
	rc       io.ReadCloser
	first    *Record
	firstErr error
}

type span struct {
	first int // capture frame number of the file's first frame
	name  string
}

// FileSpan is one file of a capture read as a *Files: its name, the
// capture frame number of its first frame, and how many frames it had.
type FileSpan struct {
	Name   string `json:"name"`
	First  int    `json:"first_frame"`
	Frames int    `json:"frames"`
	// First and last packet timestamps (zero when it had none).
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
}

// OpenFiles looks at the first packet of every input and orders them by
// its timestamp (files without packets first, ties in the order given).
// An input that cannot be opened or is not a capture is an error naming
// it; nothing is kept open then.
func OpenFiles(inputs []Input) (*Files, error) {
	fs := &Files{cur: -1}
	for _, in := range inputs {
		f := &inputFile{Input: in}
		if err := f.look(); err != nil {
			fs.Close()
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		fs.files = append(fs.files, f)
	}
	slices.SortStableFunc(fs.files, func(a, b *inputFile) int { return a.t.Compare(b.t) })
	return fs, nil
}

// look reads f's first packet record.
func (f *inputFile) look() error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	rd, err := NewReader(rc)
	if err != nil {
		rc.Close()
		return err
	}
	rec, err := rd.Next()
	if err == nil {
		f.t = rec.Time
	}
	if !f.Once {
		return rc.Close()
	}
	f.rd, f.rc = rd, rc
	switch {
	case err == nil:
		rec.Data = slices.Clone(rec.Data)
		f.first = &rec
	case !errors.Is(err, io.EOF):
		f.firstErr = err // damage: reported when the file's turn comes
	}
	return nil
}

// Spans describes the files read so far, in the order they were read.
func (fs *Files) Spans() []FileSpan { return slices.Clone(fs.read) }

// Names returns the files' names in the order they are read.
func (fs *Files) Names() []string {
	names := make([]string, len(fs.files))
	for i, f := range fs.files {
		names[i] = f.Name
	}
	return names
}

// Format returns the format of the file being read (or of the first).
func (fs *Files) Format() Format {
	if fs.rd != nil {
		return fs.rd.Format()
	}
	return 0
}

// Next returns the capture's next record; its Frame counts over all the
// files read so far.
func (fs *Files) Next() (Record, error) {
	for {
		if fs.rd == nil && fs.pending == nil {
			if err := fs.openNext(); err != nil {
				return Record{}, err
			}
			continue
		}
		var rec Record
		var err error
		switch {
		case fs.first != nil:
			rec, fs.first = *fs.first, nil
		case fs.pending != nil:
			err = fs.pending
		default:
			rec, err = fs.rd.Next()
		}
		if err == nil {
			fs.frame = fs.base + rec.Frame
			rec.Frame = fs.frame
			r := &fs.read[len(fs.read)-1]
			r.Frames = rec.Frame - r.First + 1
			if r.Start.IsZero() || rec.Time.Before(r.Start) {
				r.Start = rec.Time
			}
			if rec.Time.After(r.End) {
				r.End = rec.Time
			}
			return rec, nil
		}
		fs.closeCur()
		if errors.Is(err, io.EOF) {
			continue
		}
		name := fs.files[fs.cur].Name
		var re *RecordError
		if errors.As(err, &re) {
			// The broken record keeps its number: the next file's
			// frames do not take it.
			fs.frame = fs.base + re.Frame
			if len(fs.files) > 1 {
				re = &RecordError{Frame: fs.frame, Offset: re.Offset, Err: fmt.Errorf("%s: %w", name, re.Err)}
			}
			return Record{}, re
		}
		return Record{}, fmt.Errorf("%s: %w", name, err)
	}
}

// More reports whether files remain after the current one: after a
// damaged file, Next goes on with them.
func (fs *Files) More() bool { return fs.cur+1 < len(fs.files) }

// openNext opens the next file, or returns io.EOF after the last.
func (fs *Files) openNext() error {
	if !fs.More() {
		return io.EOF
	}
	fs.cur++
	f := fs.files[fs.cur]
	fs.base = fs.frame
	fs.spans = append(fs.spans, span{first: fs.base + 1, name: f.Name})
	fs.read = append(fs.read, FileSpan{Name: f.Name, First: fs.base + 1})
	if f.Once {
		fs.rd, fs.rc, fs.first, fs.pending = f.rd, f.rc, f.first, f.firstErr
		f.rd, f.rc, f.first = nil, nil, nil
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		fs.pending = err // it was there a moment ago
		return nil
	}
	if fs.rd, err = NewReader(rc); err != nil {
		rc.Close()
		fs.rd, fs.pending = nil, err // it changed under us
		return nil
	}
	fs.rc = rc
	return nil
}

func (fs *Files) closeCur() {
	if fs.rc != nil {
		fs.rc.Close()
	}
	fs.rd, fs.rc, fs.first, fs.pending = nil, nil, nil, nil
}

// Close closes the files still open.
func (fs *Files) Close() error {
	fs.closeCur()
	for _, f := range fs.files {
		if f.rc != nil {
			f.rc.Close()
			f.rc = nil
		}
	}
	return nil
}

// Position names a packet of a capture: its file and its frame number in
// that file. File is "" for a capture of one file.
type Position struct {
	File  string
	Frame int
}

// String returns "FILE:FRAME", or the bare frame number without a file.
func (p Position) String() string {
	if p.File == "" {
		return strconv.Itoa(p.Frame)
	}
	return p.File + ":" + strconv.Itoa(p.Frame)
}

// Position returns where the capture's frame number frame is: in which
// file, and which frame of it. For a capture of one file it is the frame
// number with no file name.
func (fs *Files) Position(frame int) Position {
	if fs == nil || len(fs.files) < 2 {
		return Position{Frame: frame}
	}
	i := sort.Search(len(fs.spans), func(i int) bool { return fs.spans[i].first > frame }) - 1
	if i < 0 {
		return Position{Frame: frame}
	}
	return Position{File: fs.spans[i].name, Frame: frame - fs.spans[i].first + 1}
}
