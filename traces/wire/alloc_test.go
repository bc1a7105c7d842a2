package wire

import (
	"runtime"
	"testing"
)

// TestForgedLengthsAllocateLittle: declared lengths and counts inside a
// frame (pack_int_lists headers, AUX_DATA's length) are checked against the
// frame before anything is allocated, so a few forged bytes cost a few
// bytes, never gigabytes.
func TestForgedLengthsAllocateLittle(t *testing.T) {
	forged := map[string][][]byte{
		"pack header n=2^32-1": nixlTransferInfo(5, []int32{1}, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, "0", "0"),
		"pack inner length 2^32-4": nixlTransferInfo(5, []int32{1},
			[]byte{1, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff, 1, 2, 3, 4}, "0", "0"),
		"pack many empty lists": nixlTransferInfo(5, []int32{1},
			append([]byte{0xff, 0xff, 0, 0}, make([]byte, 4*0xffff)...), "0", "0"),
		"AUX_DATA length 2^32-1": msg("AUX_DATA", 1, 0, 0, []byte{0xff, 0xff, 0xff, 0xff}, []byte{1}),
	}
	for name, parts := range forged {
		in := 0
		for _, p := range parts {
			in += len(p)
		}
		const runs = 50
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			Decode(parts)
		}
		runtime.ReadMemStats(&after)
		perRun := (after.TotalAlloc - before.TotalAlloc) / runs
		// The legitimate output is bounded by the input (a list header per 4
		// bytes of header), plus the error text.
		if limit := uint64(8*in + 4096); perRun > limit {
			t.Errorf("%s: %d bytes allocated per Decode of %d input bytes, want at most %d", name, perRun, in, limit)
		}
		t.Logf("%s: %d bytes per Decode of %d input bytes", name, perRun, in)
	}
}
