package wire

// A test-only encoder that mirrors SGLang's senders (nixl/conn.py,
// mooncake/conn.py, common/utils.py): str(x).encode("ascii") for integers,
// numpy tobytes() / struct.pack("<nQ") for arrays, pack_int_lists for nested
// lists. It is deliberately written separately from the decoder (append-based
// rather than reader-based) so that a shared mistake is unlikely, and its own
// byte layout is pinned by TestEncoderByteLayout.

import (
	"encoding/binary"
	"strconv"
)

func asc(v int64) []byte { return []byte(strconv.FormatInt(v, 10)) }

func i32s(v ...int32) []byte {
	b := []byte{}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func u32s(v ...uint32) []byte {
	b := []byte{}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

func u64s(v ...uint64) []byte {
	b := []byte{}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

// packLists is pack_list_of_buffers: b"" for no buffers, else a header of
// n+1 u32 LE (n, each buffer's length) and the buffers.
func packLists(bufs ...[]byte) []byte {
	if len(bufs) == 0 {
		return []byte{}
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(bufs)))
	for _, x := range bufs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(x)))
	}
	for _, x := range bufs {
		b = append(b, x...)
	}
	return b
}

func packI32Lists(lists ...[]int32) []byte {
	bufs := make([][]byte, len(lists))
	for i, l := range lists {
		bufs[i] = i32s(l...)
	}
	return packLists(bufs...)
}

func packU32Lists(lists ...[]uint32) []byte {
	bufs := make([][]byte, len(lists))
	for i, l := range lists {
		bufs[i] = u32s(l...)
	}
	return packLists(bufs...)
}

func packU64Lists(lists ...[]uint64) []byte {
	bufs := make([][]byte, len(lists))
	for i, l := range lists {
		bufs[i] = u64s(l...)
	}
	return packLists(bufs...)
}

func msg(frames ...any) [][]byte {
	out := make([][]byte, len(frames))
	for i, f := range frames {
		switch v := f.(type) {
		case string:
			out[i] = []byte(v)
		case []byte:
			out[i] = v
		case int:
			out[i] = asc(int64(v))
		case int64:
			out[i] = asc(v)
		default:
			panic("msg: unsupported frame type")
		}
	}
	return out
}

// Message builders, in the senders' frame order.

// nixlRegistration is the full 24-frame registration of a4ffb996.
func nixlRegistration() [][]byte {
	return msg(
		"NixlMsgGuard", "None", "10.0.0.2", 41000, "agent-d0", []byte("\x00nixl-md\xff"),
		u64s(0x7f0000001000, 0x7f0000002000), u64s(0x7f0000003000), packU64Lists([]uint64{0x7f0000004000}, []uint64{}),
		3, 2, 1, 4096,
		packU32Lists([]uint32{16, 32}), packU32Lists([]uint32{4}), u64s(0x7f0000005000), 1<<20, 512,
		"VRAM,VRAM", u64s(4096, 4096), packU32Lists([]uint32{0, 1}), u32s(0, 1, 2), 2, 1,
	)
}

func nixlTransferInfo(room int64, pages []int32, state []byte, prefix string, dummy string) [][]byte {
	return msg("NixlMsgGuard", room, "10.0.0.2", 41000, "agent-d0", i32s(pages...), 7, 2, state, prefix, dummy)
}

func mooncakeRegistration() [][]byte {
	return msg(
		"None", "10.0.0.3", 42000, "10.0.0.3:17000",
		u64s(0x7f0000001000), u64s(0x7f0000003000), packU64Lists(),
		1, 2, 8192,
		packU32Lists([]uint32{8}), packU32Lists(), u32s(0, 1), packU32Lists([]uint32{3}),
		[]byte{}, "", 1, 0,
	)
}

func mooncakeTransferInfo(room int64) [][]byte {
	return msg(room, "10.0.0.3", 42000, "10.0.0.3:17000", i32s(4, 5, 6), 9, packI32Lists([]int32{11}), 1, 0, i32s(40, 50, 60))
}
