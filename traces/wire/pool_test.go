package wire

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestDecoderMatchesDecode decodes every seed message with one Decoder,
// twice over so that later values are carved next to earlier ones, and
// requires each value to equal Decode's, still at the end: pooled values
// neither differ nor get overwritten, and they do not alias the input.
func TestDecoderMatchesDecode(t *testing.T) {
	var d Decoder
	seeds := seedMessages()
	seeds = append(seeds, nixlRegistration(), msg("ABORT_ACK", 7, 3), msg("ABORT", 7))
	var want, got []Message
	for range 2 {
		for _, parts := range seeds {
			want = append(want, Decode(parts))
			// A private copy, scribbled over once decoded.
			cp := make([][]byte, len(parts))
			for i, p := range parts {
				cp[i] = append([]byte(nil), p...)
			}
			got = append(got, d.Decode(cp))
			for _, p := range cp {
				for i := range p {
					p[i] = 'X'
				}
			}
		}
	}
	for i := range want {
		if u, ok := want[i].(*Unknown); ok {
			// Unknown keeps the caller's parts by design; compare the rest.
			g, ok := got[i].(*Unknown)
			if !ok || g.Form != u.Form || g.Reason != u.Reason {
				t.Errorf("message %d: got %#v, want %#v", i, got[i], want[i])
			}
			continue
		}
		if !reflect.DeepEqual(want[i], got[i]) {
			t.Errorf("message %d: got %#v, want %#v", i, got[i], want[i])
		}
	}
}

// reuseDirt fills every pool a Decoder has with non-zero values.
var reuseDirt = nixlTransferInfo(99, []int32{7, 8, 9}, []byte{1, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0}, "12", "1")

// TestDecoderReuse: a reusing Decoder gives every message Decode's value,
// valid until the next call, whatever it decoded before.
func TestDecoderReuse(t *testing.T) {
	d := Decoder{Reuse: true}
	seeds := append(seedMessages(), nixlRegistration(), msg("ABORT_ACK", 7, 3), msg("ABORT", 7), reuseDirt)
	for range 2 {
		for i, parts := range seeds {
			if got, want := d.Decode(parts), Decode(parts); !reflect.DeepEqual(got, want) {
				t.Errorf("message %d: got %#v, want %#v", i, got, want)
			}
		}
	}
}

// TestDecoderAllocations pins the point of Decoder: the common messages
// cost a small fraction of an allocation each.
func TestDecoderAllocations(t *testing.T) {
	pages := make([]int32, 32)
	parts := nixlTransferInfo(8815551612345678901, pages, []byte{1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}, "128", "0")
	abort := msg("ABORT", 8815551612345678901, "10.0.0.2", 41000)
	for _, d := range []*Decoder{{}, {Reuse: true}} {
		d.Decode(parts)
		allocs := testing.AllocsPerRun(1000, func() {
			d.Decode(parts)
			d.Decode(abort)
		})
		// AllocsPerRun rounds down: 0 means less than one per pair.
		if allocs > 0 {
			t.Errorf("Reuse %v: %.0f allocations per TransferInfo and Abort, want less than one", d.Reuse, allocs)
		}
	}
	d := Decoder{Reuse: true}
	d.Decode(parts)
	if n := testing.AllocsPerRun(100, func() { d.Decode(parts) }); n != 0 {
		t.Errorf("Reuse: %.0f allocations per TransferInfo, want 0", n)
	}
}

// TestParseIntMatchesStrconv: the short-number fast path of parseInt
// agrees with strconv (which, unlike SGLang's writer, also takes '+').
func TestParseIntMatchesStrconv(t *testing.T) {
	inputs := []string{"", "-", "0", "-0", "7", "-7", "42a", "4 2", "+1", "00012",
		"999999999999999999", "-999999999999999999", "1000000000000000000",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "12345678901234567890", "١٢", "1\x00"}
	for _, s := range inputs {
		got, err := parseInt([]byte(s))
		want, werr := strconv.ParseInt(s, 10, 64)
		if strings.HasPrefix(s, "+") {
			werr = strconv.ErrSyntax
		}
		if (err != nil) != (werr != nil) || (err == nil && got != want) {
			t.Errorf("parseInt(%q) = %d, %v; strconv: %d, %v", s, got, err, want, werr)
		}
	}
}
