package wire

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
)

// fmtSummary is how Summary rendered the kinds summary.go builds by hand
// before it did: the reference they must match byte for byte.
func fmtSummary(m Message) (string, bool) {
	switch m := m.(type) {
	case *TransferInfo:
		var b strings.Builder
		fmt.Fprintf(&b, "room=%d decode=%s agent=%s pages=%d%s aux=%d required=%d",
			m.RoomID, net.JoinHostPort(m.DecodeIP, strconv.Itoa(m.DecodePort)), m.AgentName,
			len(m.KVPageIndices), listPreview(m.KVPageIndices), m.AuxIndex, m.RequiredDstInfoNum)
		if m.DecodePrefixLen != nil {
			fmt.Fprintf(&b, " prefix=%d", *m.DecodePrefixLen)
		}
		if m.IsDummy {
			b.WriteString(" dummy")
		}
		fmt.Fprintf(&b, " frames=%d", m.Frames)
		return b.String(), true
	case *Abort:
		if m.Frames == 2 {
			return fmt.Sprintf("room=%d (legacy, no endpoint)", m.RoomID), true
		}
		return fmt.Sprintf("room=%d decode=%s", m.RoomID, net.JoinHostPort(m.DecodeIP, strconv.Itoa(m.DecodePort))), true
	case *AbortAck:
		if m.PrefillRank == nil {
			return fmt.Sprintf("room=%d", m.RoomID), true
		}
		return fmt.Sprintf("room=%d prefill_rank=%d", m.RoomID, *m.PrefillRank), true
	}
	return "", false
}

// TestSummaryMatchesFmt renders hand-built summaries of many shapes (IPv6
// hosts, negative numbers, short and long page lists, optional fields)
// and compares them with the fmt reference.
func TestSummaryMatchesFmt(t *testing.T) {
	prefix := int64(-3)
	rank := int64(2)
	var msgs []Message
	for _, ip := range []string{"10.0.0.1", "fe80::1", ""} {
		for _, pages := range [][]int32{{}, {5}, {-1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
			msgs = append(msgs,
				&TransferInfo{RoomID: -9223372036854775808, DecodeIP: ip, DecodePort: 65535, AgentName: "a b",
					KVPageIndices: pages, AuxIndex: 7, RequiredDstInfoNum: 1, Frames: 11},
				&TransferInfo{RoomID: 42, DecodeIP: ip, KVPageIndices: pages, DecodePrefixLen: &prefix, IsDummy: true, Frames: 8})
		}
		msgs = append(msgs, &Abort{RoomID: 1, DecodeIP: ip, DecodePort: 80, Frames: 4}, &Abort{RoomID: -1, Frames: 2},
			&AbortAck{RoomID: 3, Frames: 2}, &AbortAck{RoomID: 3, PrefillRank: &rank, Frames: 3})
	}
	for _, parts := range seedMessages() {
		msgs = append(msgs, Decode(parts))
	}
	checked := 0
	for _, m := range msgs {
		if want, ok := fmtSummary(m); ok {
			checked++
			if got := m.Summary(); got != want {
				t.Errorf("%T Summary:\n got %q\nwant %q", m, got, want)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d summaries checked", checked)
	}
}
