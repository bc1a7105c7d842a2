// Package pcapcut cuts a capture file into several at packet boundaries,
// as "tcpdump -C" rotates one: each part is a capture file of its own,
// with the original's file header (pcap) or the blocks before its first
// packet (pcapng: section header, interface descriptions) and a run of
// its packet records, byte for byte. The tests of rotated captures read
// the parts as one capture and compare.
package pcapcut

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/roomspec/roomspec/traces/capture"
)

// ends returns the file offset at which each packet record of data ends
// (with the non-packet blocks before it), and the length of the header.
func ends(data []byte) (head int, out []int, err error) {
	rd, err := capture.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, nil, err
	}
	head = 24
	if rd.Format() == capture.FormatPcapNG {
		if head, err = ngHead(data); err != nil {
			return 0, nil, err
		}
	}
	for {
		_, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return head, out, nil
		}
		if err != nil {
			return 0, nil, err
		}
		out = append(out, int(rd.Offset()))
	}
}

// ngHead returns the length of the pcapng blocks before the first packet
// block.
func ngHead(data []byte) (int, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if len(data) >= 12 && binary.BigEndian.Uint32(data[8:]) == 0x1a2b3c4d {
		order = binary.BigEndian
	}
	for off := 0; off+8 <= len(data); {
		typ, n := order.Uint32(data[off:]), int(order.Uint32(data[off+4:]))
		if typ == 2 || typ == 3 || typ == 6 {
			return off, nil
		}
		if n < 12 {
			return 0, fmt.Errorf("pcapcut: block of %d bytes at offset %d", n, off)
		}
		off += n
	}
	return 0, errors.New("pcapcut: no packet block")
}

// Count returns the number of packet records in data.
func Count(data []byte) (int, error) {
	_, e, err := ends(data)
	return len(e), err
}

// Cut splits data before each record index in at (0-based, ascending,
// each in 1..records-1): len(at)+1 capture files.
func Cut(data []byte, at ...int) ([][]byte, error) {
	head, e, err := ends(data)
	if err != nil {
		return nil, err
	}
	bounds := []int{head}
	for _, i := range at {
		if i <= 0 || i >= len(e) || e[i-1] <= bounds[len(bounds)-1] {
			return nil, fmt.Errorf("pcapcut: cut before record %d of %d", i, len(e))
		}
		bounds = append(bounds, e[i-1])
	}
	bounds = append(bounds, len(data))
	parts := make([][]byte, 0, len(bounds)-1)
	for k := 1; k < len(bounds); k++ {
		parts = append(parts, append(bytes.Clone(data[:head]), data[bounds[k-1]:bounds[k]]...))
	}
	return parts, nil
}

// Tenths returns where to cut a capture of n packets: at every tenth into
// two files, and from every tenth into three (the rest halved).
func Tenths(n int) [][]int {
	var out [][]int
	for tenth := 1; tenth < 10; tenth++ {
		at := n * tenth / 10
		if at < 1 || at >= n {
			continue
		}
		out = append(out, []int{at})
		if second := at + (n-at)/2; second > at && second < n {
			out = append(out, []int{at, second})
		}
	}
	return out
}

// Inputs returns the parts as the inputs of one capture, named part0,
// part1, ... in capture order, given in an order r shuffles, the first
// of them read once (as standard input is).
func Inputs(parts [][]byte, r *rand.Rand) []capture.Input {
	in := make([]capture.Input, len(parts))
	for i, p := range parts {
		in[i] = capture.Input{Name: "part" + strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(p)), nil
		}}
	}
	r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	in[0].Once = true
	return in
}
