package wire

import "testing"

// BenchmarkDecodeTransferInfo decodes the commonest message of a capture: an
// 11-frame NIXL TransferInfo with 32 page indices and no state.
func BenchmarkDecodeTransferInfo(b *testing.B) {
	pages := make([]int32, 32)
	for i := range pages {
		pages[i] = int32(1000 + 3*i)
	}
	parts := nixlTransferInfo(8815551612345678901, pages, []byte{}, "128", "0")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Decode(parts).(*TransferInfo); !ok {
			b.Fatal("not a TransferInfo")
		}
	}
}

// BenchmarkDecodeAbort decodes the smallest common message.
func BenchmarkDecodeAbort(b *testing.B) {
	parts := msg("ABORT", 8815551612345678901, "10.0.0.2", 41000)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Decode(parts).(*Abort); !ok {
			b.Fatal("not an Abort")
		}
	}
}

// BenchmarkDecodeRegistration decodes a full 24-frame registration.
func BenchmarkDecodeRegistration(b *testing.B) {
	parts := nixlRegistration()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Decode(parts).(*Registration); !ok {
			b.Fatal("not a Registration")
		}
	}
}

// BenchmarkDecoderTransferInfo is BenchmarkDecodeTransferInfo with a
// Decoder, as traces/decode uses it.
func BenchmarkDecoderTransferInfo(b *testing.B) {
	pages := make([]int32, 32)
	for i := range pages {
		pages[i] = int32(1000 + 3*i)
	}
	parts := nixlTransferInfo(8815551612345678901, pages, []byte{}, "128", "0")
	var d Decoder
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := d.Decode(parts).(*TransferInfo); !ok {
			b.Fatal("not a TransferInfo")
		}
	}
}

// BenchmarkDecoderAbort is BenchmarkDecodeAbort with a Decoder.
func BenchmarkDecoderAbort(b *testing.B) {
	parts := msg("ABORT", 8815551612345678901, "10.0.0.2", 41000)
	var d Decoder
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := d.Decode(parts).(*Abort); !ok {
			b.Fatal("not an Abort")
		}
	}
}
