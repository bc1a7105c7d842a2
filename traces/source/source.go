// Package source reads packet records from captures that are still being
// taken: a pcap or pcapng stream (a pipe from "tcpdump -w -"), a capture
// file still being written, a directory of rotating capture files
// ("tcpdump -C/-W" or "-G") and, on Linux, a network interface (AF_PACKET,
// pure Go). Every source yields traces/capture Records in capture order,
// with frame numbers counted over the whole source, so that a verdict's
// frame numbers point into the capture the source read.
//
// PcapReader turns any source into one pcap stream, the input of
// traces/decode, and says when each record is about to be decoded: the
// moment capture time has reached it.
package source

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/roomspec/roomspec/traces/capture"
)

// Source yields packet records.
type Source interface {
	// Next returns the next record, whose Data is valid until the next
	// call; io.EOF when the source has ended.
	Next() (capture.Record, error)
	// Close releases the source.
	Close() error
}

// Dropper is a Source that can tell how many packets the kernel dropped
// before the source read them.
type Dropper interface {
	// Dropped returns the packets dropped since the last call.
	Dropped() (uint64, error)
}

// ErrLink is wrapped by the error of a record whose link type differs from
// the first record's: one pcap stream has one link type.
var ErrLink = errors.New("source: a second link type")

// Stream reads a pcap or pcapng stream, e.g. standard input fed by
// "tcpdump -U -w -".
type Stream struct {
	rd *capture.Reader
	c  io.Closer
}

// NewStream reads the stream's file header from r (decompressed when it
// is gzip); it fails with an error wrapping capture.ErrNotCapture when r
// is not a capture.
func NewStream(r io.Reader) (*Stream, error) {
	in, err := Decompress(r)
	if err != nil {
		return nil, err
	}
	rd, err := capture.NewReader(in)
	if err != nil {
		return nil, err
	}
	s := &Stream{rd: rd}
	if c, ok := r.(io.Closer); ok {
		s.c = c
	}
	return s, nil
}

// Next returns the stream's next record. A stream that ends inside a
// record (its writer was killed mid-write) ends with a
// *capture.RecordError wrapping capture.ErrTruncated.
func (s *Stream) Next() (capture.Record, error) { return s.rd.Next() }

// Close closes the underlying reader if it is an io.Closer.
func (s *Stream) Close() error {
	if s.c != nil {
		return s.c.Close()
	}
	return nil
}

// Snaplen is the snapshot length PcapReader's stream declares: no record
// of a source is longer (capture.MaxRecord).
const Snaplen = capture.MaxRecord

// PcapReader is one pcap stream (nanosecond timestamps, the link type of
// the source's first record) of a source's records, renumbered from 1.
//
// It hands out one record per Read, and reads the next record from the
// source only when asked for more: a reader that decodes a record before
// it reads the next one (capture.Reader does) has decoded every earlier
// record when OnRecord sees the next. It writes the pcap format itself
// because gopacket's pcapgo.Writer cannot write link types above 255 (the
// LINUX_SLL2 of "tcpdump -i any" is 276).
type PcapReader struct {
	src Source
	// OnRecord, if set, is called with each record before its bytes are
	// returned; its Frame is the stream's frame number.
	OnRecord func(*capture.Record)
	link     capture.LinkType
	started  bool
	frames   int
	buf      []byte
	pending  []byte
	err      error
}

// NewPcapReader returns the pcap stream of src's records.
func NewPcapReader(src Source) *PcapReader { return &PcapReader{src: src} }

// Read implements io.Reader.
func (p *PcapReader) Read(b []byte) (int, error) {
	for len(p.pending) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		p.fill()
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

// Err returns why the stream ended: nil at the source's clean end.
func (p *PcapReader) Err() error {
	if p.err == io.EOF {
		return nil
	}
	return p.err
}

func (p *PcapReader) fill() {
	rec, err := p.src.Next()
	if err != nil {
		p.err = err
		if !p.started && err == io.EOF {
			// An empty source is still a capture: a header and no record.
			p.pending = pcapHeader(p.buf[:0], capture.LinkEthernet)
			p.started = true
		}
		return
	}
	b := p.buf[:0]
	if !p.started {
		p.started, p.link = true, rec.Link
		b = pcapHeader(b, rec.Link)
	} else if rec.Link != p.link {
		p.err = fmt.Errorf("%w: frame %d has link type %d, the stream %d", ErrLink, p.frames+1, rec.Link, p.link)
		return
	}
	p.frames++
	rec.Frame = p.frames
	if p.OnRecord != nil {
		p.OnRecord(&rec)
	}
	ns := rec.Time.UnixNano()
	b = binary.LittleEndian.AppendUint32(b, uint32(ns/1e9))
	b = binary.LittleEndian.AppendUint32(b, uint32(ns%1e9))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(rec.Data)))
	b = binary.LittleEndian.AppendUint32(b, uint32(max(rec.Length, len(rec.Data))))
	b = append(b, rec.Data...)
	p.buf, p.pending = b, b
}

func pcapHeader(b []byte, link capture.LinkType) []byte {
	b = binary.LittleEndian.AppendUint32(b, 0xa1b23c4d) // nanosecond pcap
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = binary.LittleEndian.AppendUint32(b, 0) // thiszone
	b = binary.LittleEndian.AppendUint32(b, 0) // sigfigs
	b = binary.LittleEndian.AppendUint32(b, Snaplen)
	return binary.LittleEndian.AppendUint32(b, uint32(link))
}
