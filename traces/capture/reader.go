package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"time"
)

// LinkType is a capture file's link-layer header type (LINKTYPE_* of
// tcpdump.org). It is 32 bits wide because gopacket's layers.LinkType is a
// uint8 and cannot hold LINKTYPE_LINUX_SLL2 (276).
type LinkType uint32

// Link types this package decodes.
const (
	LinkNull     LinkType = 0   // BSD loopback: 4-byte address family in host order
	LinkEthernet LinkType = 1   // Ethernet II, with optional 802.1Q tags
	LinkRaw      LinkType = 101 // raw IPv4 or IPv6
	LinkLoop     LinkType = 108 // OpenBSD loopback: address family in network order
	LinkSLL      LinkType = 113 // Linux cooked capture v1 (tcpdump -i any, old)
	LinkIPv4     LinkType = 228 // raw IPv4
	LinkIPv6     LinkType = 229 // raw IPv6
	LinkSLL2     LinkType = 276 // Linux cooked capture v2 (tcpdump -i any)
	linkRawBSD   LinkType = 12  // DLT_RAW as some BSDs write it
	linkRawBSD14 LinkType = 14
)

// Errors a Reader returns; callers branch on them with errors.Is.
var (
	// ErrNotCapture means the input is not a pcap or pcapng file at all.
	ErrNotCapture = errors.New("not a pcap or pcapng file")
	// ErrTruncated means the file ends in the middle of a record.
	ErrTruncated = errors.New("file truncated in the middle of a record")
	// ErrCorrupt means a record header is impossible (garbage in the file);
	// nothing after it can be trusted, so reading stops.
	ErrCorrupt = errors.New("corrupt record")
)

// MaxRecord bounds the size of one record: a declared length above it is
// garbage, never an allocation. Real snap lengths are at most 256 KiB.
const MaxRecord = 4 << 20

// Record is one packet record of a capture file.
type Record struct {
	Frame  int       // 1-based, counting every packet record as Wireshark does
	Time   time.Time // UTC
	Link   LinkType
	Data   []byte // captured bytes; valid until the next call to Next
	Length int    // length of the packet on the wire (may exceed len(Data))
}

// RecordError reports why reading stopped at a record.
type RecordError struct {
	Frame  int   // the frame number the broken record would have had
	Offset int64 // byte offset of the record in the file
	Err    error // ErrTruncated or ErrCorrupt, wrapped with detail
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("frame %d (file offset %d): %v", e.Frame, e.Offset, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// Format names a capture file format.
type Format int

// Capture file formats.
const (
	FormatPcap Format = iota + 1
	FormatPcapNG
)

// MarshalText renders f as its name, "pcap" or "pcapng".
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

func (f Format) String() string {
	switch f {
	case FormatPcap:
		return "pcap"
	case FormatPcapNG:
		return "pcapng"
	}
	return "unknown"
}

// Reader reads the packet records of a pcap or pcapng file as a stream.
// It is written here rather than taken from gopacket/pcapgo because pcapgo
// truncates link types to 8 bits, allocates whatever length a corrupt header
// declares, and silently drops pcapng packets of a second link type (which
// would shift the frame numbers).
type Reader struct {
	br     *bufio.Reader
	format Format
	off    int64 // file offset of the next byte br returns
	frame  int
	buf    []byte
	hdr    [28]byte

	// pcap
	order   binary.ByteOrder
	nanoTS  bool
	link    LinkType
	snaplen uint32

	// pcapng
	ifaces []ngIface
}

type ngIface struct {
	link    LinkType
	snaplen uint32
	// Timestamp unit: 10^-dec seconds, or 2^-bin seconds when binary.
	pow    uint8
	binary bool
	offset int64 // if_tsoffset, seconds
}

const (
	pcapMagicMicro = 0xa1b2c3d4
	pcapMagicNano  = 0xa1b23c4d
	ngSHB          = 0x0a0d0d0a
	ngIDB          = 1
	ngPB           = 2 // obsolete Packet Block
	ngSPB          = 3
	ngEPB          = 6
	ngBOM          = 0x1a2b3c4d
)

// NewReader reads the file header from r. It fails with an error wrapping
// ErrNotCapture when r is not a pcap or pcapng file.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{br: bufio.NewReaderSize(r, 256<<10)}
	magic, err := rd.br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("capture: %w", err) // a directory, a read error
	}
	if err != nil {
		return nil, fmt.Errorf("capture: %w: %d bytes only", ErrNotCapture, len(magic))
	}
	switch {
	case binary.LittleEndian.Uint32(magic) == ngSHB:
		rd.format = FormatPcapNG
		// The first SHB is read like any block by Next; check it now so
		// that a file that merely starts with the magic is rejected here.
		if err := rd.peekSHB(); err != nil {
			return nil, err
		}
	default:
		if err := rd.readPcapHeader(); err != nil {
			return nil, err
		}
	}
	return rd, nil
}

// Format reports whether the file is pcap or pcapng.
func (r *Reader) Format() Format { return r.format }

// Offset returns how many bytes of the file have been consumed.
func (r *Reader) Offset() int64 { return r.off }

func (r *Reader) readPcapHeader() error {
	h := r.hdr[:24]
	if n, err := io.ReadFull(r.br, h); err != nil {
		return fmt.Errorf("capture: %w: header has %d of 24 bytes", ErrNotCapture, n)
	}
	r.off = 24
	switch {
	case binary.LittleEndian.Uint32(h) == pcapMagicMicro:
		r.order = binary.LittleEndian
	case binary.BigEndian.Uint32(h) == pcapMagicMicro:
		r.order = binary.BigEndian
	case binary.LittleEndian.Uint32(h) == pcapMagicNano:
		r.order, r.nanoTS = binary.LittleEndian, true
	case binary.BigEndian.Uint32(h) == pcapMagicNano:
		r.order, r.nanoTS = binary.BigEndian, true
	default:
		return fmt.Errorf("capture: %w: unknown magic %#08x", ErrNotCapture, binary.BigEndian.Uint32(h))
	}
	r.format = FormatPcap
	if major := r.order.Uint16(h[4:]); major != 2 {
		return fmt.Errorf("capture: %w: pcap version %d", ErrNotCapture, major)
	}
	r.snaplen = r.order.Uint32(h[16:])
	// The top bits of the link-type field carry FCS information (pcap-linktype(7)).
	r.link = LinkType(r.order.Uint32(h[20:]) & 0x0fffffff)
	return nil
}

func (r *Reader) peekSHB() error {
	h, err := r.br.Peek(12)
	if err != nil {
		return fmt.Errorf("capture: %w: pcapng section header has %d of 12 bytes", ErrNotCapture, len(h))
	}
	if binary.LittleEndian.Uint32(h[8:]) != ngBOM && binary.BigEndian.Uint32(h[8:]) != ngBOM {
		return fmt.Errorf("capture: %w: pcapng byte-order magic %#08x", ErrNotCapture, binary.BigEndian.Uint32(h[8:]))
	}
	return nil
}

// Next returns the next packet record. At the clean end of the file it
// returns io.EOF; a truncated or corrupt record gives a *RecordError, after
// which the Reader is done.
func (r *Reader) Next() (Record, error) {
	if r.format == FormatPcap {
		return r.nextPcap()
	}
	return r.nextNG()
}

func (r *Reader) fail(start int64, err error) (Record, error) {
	return Record{}, &RecordError{Frame: r.frame + 1, Offset: start, Err: err}
}

// read fills p from the file; a short read is ErrTruncated.
func (r *Reader) read(p []byte) error {
	n, err := io.ReadFull(r.br, p)
	r.off += int64(n)
	if err == io.ErrUnexpectedEOF || (err == io.EOF && len(p) > 0) {
		return fmt.Errorf("%w: %d of %d bytes", ErrTruncated, n, len(p))
	}
	return err
}

func (r *Reader) grow(n int) []byte {
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	return r.buf[:n]
}

func (r *Reader) nextPcap() (Record, error) {
	start := r.off
	h := r.hdr[:16]
	n, err := io.ReadFull(r.br, h)
	r.off += int64(n)
	if err == io.EOF {
		return Record{}, io.EOF
	}
	if err != nil {
		return r.fail(start, fmt.Errorf("%w: record header has %d of 16 bytes", ErrTruncated, n))
	}
	sec, frac := r.order.Uint32(h), r.order.Uint32(h[4:])
	capLen, origLen := r.order.Uint32(h[8:]), r.order.Uint32(h[12:])
	if capLen > MaxRecord {
		return r.fail(start, fmt.Errorf("%w: captured length %d exceeds %d", ErrCorrupt, capLen, MaxRecord))
	}
	limit := uint32(1_000_000)
	if r.nanoTS {
		limit = 1_000_000_000
	}
	if frac >= limit {
		return r.fail(start, fmt.Errorf("%w: sub-second timestamp %d out of range", ErrCorrupt, frac))
	}
	data := r.grow(int(capLen))
	if err := r.read(data); err != nil {
		return r.fail(start, err)
	}
	r.frame++
	ns := int64(frac)
	if !r.nanoTS {
		ns *= 1000
	}
	if origLen < capLen {
		origLen = capLen
	}
	return Record{Frame: r.frame, Time: time.Unix(int64(sec), ns).UTC(), Link: r.link, Data: data, Length: int(origLen)}, nil
}

func (r *Reader) nextNG() (Record, error) {
	for {
		start := r.off
		h := r.hdr[:8]
		n, err := io.ReadFull(r.br, h)
		r.off += int64(n)
		if err == io.EOF {
			return Record{}, io.EOF
		}
		if err != nil {
			return r.fail(start, fmt.Errorf("%w: block header has %d of 8 bytes", ErrTruncated, n))
		}
		typ := binary.LittleEndian.Uint32(h)
		if typ == ngSHB {
			// A section header may switch byte order: peek at its magic.
			bom, err := r.br.Peek(4)
			if err != nil {
				return r.fail(start, fmt.Errorf("%w: section header", ErrTruncated))
			}
			switch {
			case binary.LittleEndian.Uint32(bom) == ngBOM:
				r.order = binary.LittleEndian
			case binary.BigEndian.Uint32(bom) == ngBOM:
				r.order = binary.BigEndian
			default:
				return r.fail(start, fmt.Errorf("%w: pcapng byte-order magic %#08x", ErrCorrupt, binary.BigEndian.Uint32(bom)))
			}
		} else if r.order == nil {
			return r.fail(start, fmt.Errorf("%w: block before the section header", ErrCorrupt))
		} else {
			typ = r.order.Uint32(h)
		}
		total := r.order.Uint32(h[4:])
		if total < 12 || total%4 != 0 || total > MaxRecord {
			return r.fail(start, fmt.Errorf("%w: block type %#x has length %d", ErrCorrupt, typ, total))
		}
		body := r.grow(int(total) - 8)
		if err := r.read(body); err != nil {
			return r.fail(start, err)
		}
		if trailer := r.order.Uint32(body[len(body)-4:]); trailer != total {
			return r.fail(start, fmt.Errorf("%w: block length %d but trailer says %d", ErrCorrupt, total, trailer))
		}
		body = body[:len(body)-4]
		switch typ {
		case ngSHB:
			r.ifaces = r.ifaces[:0]
		case ngIDB:
			if err := r.readIDB(body); err != nil {
				return r.fail(start, err)
			}
		case ngEPB, ngPB:
			rec, err := r.packetBlock(typ, body)
			if err != nil {
				return r.fail(start, err)
			}
			return rec, nil
		case ngSPB:
			if len(r.ifaces) == 0 || len(body) < 4 {
				return r.fail(start, fmt.Errorf("%w: simple packet block without interface", ErrCorrupt))
			}
			orig := r.order.Uint32(body)
			data := body[4:]
			if uint32(len(data)) > orig {
				data = data[:orig]
			}
			r.frame++
			return Record{Frame: r.frame, Link: r.ifaces[0].link, Data: data, Length: int(orig)}, nil
		}
		// Other blocks (statistics, name resolution, custom) carry no packets.
	}
}

func (r *Reader) readIDB(body []byte) error {
	if len(body) < 8 {
		return fmt.Errorf("%w: interface description of %d bytes", ErrCorrupt, len(body))
	}
	ifc := ngIface{link: LinkType(r.order.Uint16(body)), snaplen: r.order.Uint32(body[4:]), pow: 6}
	for opts := body[8:]; len(opts) >= 4; {
		code, l := r.order.Uint16(opts), int(r.order.Uint16(opts[2:]))
		if code == 0 || 4+l > len(opts) {
			break
		}
		v := opts[4 : 4+l]
		switch {
		case code == 9 && l == 1: // if_tsresol
			ifc.binary = v[0]&0x80 != 0
			ifc.pow = v[0] & 0x7f
		case code == 14 && l == 8: // if_tsoffset
			ifc.offset = int64(r.order.Uint64(v))
		}
		opts = opts[4+(l+3)&^3:]
	}
	if (!ifc.binary && ifc.pow > 19) || (ifc.binary && ifc.pow > 63) {
		return fmt.Errorf("%w: timestamp resolution %#x", ErrCorrupt, ifc.pow)
	}
	r.ifaces = append(r.ifaces, ifc)
	return nil
}

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

func (r *Reader) packetBlock(typ uint32, body []byte) (Record, error) {
	if len(body) < 20 {
		return Record{}, fmt.Errorf("%w: packet block of %d bytes", ErrCorrupt, len(body))
	}
	var ifIdx uint32
	if typ == ngEPB {
		ifIdx = r.order.Uint32(body)
	} else {
		ifIdx = uint32(r.order.Uint16(body))
	}
	if int(ifIdx) >= len(r.ifaces) {
		return Record{}, fmt.Errorf("%w: interface %d not described (have %d)", ErrCorrupt, ifIdx, len(r.ifaces))
	}
	ifc := r.ifaces[ifIdx]
	ts := uint64(r.order.Uint32(body[4:]))<<32 | uint64(r.order.Uint32(body[8:]))
	capLen, origLen := r.order.Uint32(body[12:]), r.order.Uint32(body[16:])
	if uint64(capLen) > uint64(len(body)-20) {
		return Record{}, fmt.Errorf("%w: captured length %d exceeds block", ErrCorrupt, capLen)
	}
	var sec, nsec uint64
	if ifc.binary {
		sec = ts >> ifc.pow
		hi, lo := bits.Mul64(ts&(1<<ifc.pow-1), 1e9)
		// (hi:lo) >> pow; for pow 0 both are 0 and Go's oversized shift gives 0.
		nsec = lo>>ifc.pow | hi<<(64-ifc.pow)
	} else {
		unit := pow10[ifc.pow]
		sec = ts / unit
		frac := ts % unit
		if ifc.pow <= 9 {
			nsec = frac * pow10[9-ifc.pow]
		} else {
			nsec = frac / pow10[ifc.pow-9]
		}
	}
	r.frame++
	if origLen < capLen {
		origLen = capLen
	}
	return Record{
		Frame:  r.frame,
		Time:   time.Unix(int64(sec)+ifc.offset, int64(nsec)).UTC(),
		Link:   ifc.link,
		Data:   body[20 : 20+capLen],
		Length: int(origLen),
	}, nil
}
