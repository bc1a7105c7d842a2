package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// TestEncoderByteLayout pins the test encoder to literal bytes, so that the
// decoder tests below check real SGLang layouts rather than agreeing with a
// wrong encoder.
func TestEncoderByteLayout(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		// np.array([1, 2, 3], dtype=np.int32).tobytes()
		{"i32 [1 2 3]", i32s(1, 2, 3), []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}},
		{"i32 [-1]", i32s(-1), []byte{0xff, 0xff, 0xff, 0xff}},
		// struct.pack("2Q", 1, 0x0102030405060708)
		{"u64", u64s(1, 0x0102030405060708), []byte{1, 0, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1}},
		// pack_int_lists([], "i") == b""
		{"pack empty", packI32Lists(), []byte{}},
		// pack_int_lists([[5], []], "i"): n=2, lens 4 and 0, then 5.
		{"pack [[5] []]", packI32Lists([]int32{5}, []int32{}), []byte{2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0}},
		// pack_int_lists([[7]], "Q")
		{"pack Q [[7]]", packU64Lists([]uint64{7}), []byte{1, 0, 0, 0, 8, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("%s: encoder gives % x, want % x", tt.name, tt.got, tt.want)
		}
	}
}

func wantRegistration(frames int) *Registration {
	m := &Registration{
		DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
		AgentMetadata: []byte("\x00nixl-md\xff"),
		KVPtrs:        []uint64{0x7f0000001000, 0x7f0000002000},
		AuxPtrs:       []uint64{0x7f0000003000},
		StatePtrs:     [][]uint64{{0x7f0000004000}, {}},
		GPUID:         3, AttnTPSize: 2, EngineRank: 1, KVItemLen: 4096,
		StateItemLens:  [][]uint32{{16, 32}},
		StateDims:      [][]uint32{{4}},
		StagingBasePtr: ptr(uint64(0x7f0000005000)),
		StagingSize:    ptr(int64(1 << 20)),
		NumSlots:       ptr(int64(512)),
		MemKinds:       []string{"VRAM", "VRAM"},
		KVItemLens:     []uint64{4096, 4096},
		StateLayerIDs:  [][]uint32{{0, 1}},
		KVLayerIDs:     []uint32{0, 1, 2},
		DCPSize:        ptr(int64(2)),
		DCPRank:        ptr(int64(1)),
		Frames:         frames,
	}
	// Frames beyond the message are absent: clear them from the last one down.
	clear := []func(){
		13: func() { m.StateItemLens = nil },
		14: func() { m.StateDims = nil },
		15: func() { m.StagingBasePtr = nil },
		16: func() { m.StagingSize = nil },
		17: func() { m.NumSlots = nil },
		18: func() { m.MemKinds = nil },
		19: func() { m.KVItemLens = nil },
		20: func() { m.StateLayerIDs = nil },
		21: func() { m.KVLayerIDs = nil },
		22: func() { m.DCPSize = nil },
		23: func() { m.DCPRank = nil },
	}
	for i := frames; i < len(clear); i++ {
		clear[i]()
	}
	return m
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name  string
		parts [][]byte
		want  Message
	}{
		{
			name:  "TransferInfo 11 frames",
			parts: nixlTransferInfo(123456789, []int32{1, 2, 3}, packI32Lists([]int32{9, 10}), "16", "0"),
			want: &TransferInfo{RoomID: 123456789, DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
				KVPageIndices: []int32{1, 2, 3}, AuxIndex: 7, RequiredDstInfoNum: 2,
				StateIndices: [][]int32{{9, 10}}, DecodePrefixLen: ptr(int64(16)), IsDummy: false, Frames: 11},
		},
		{
			// The bytes of a real i32 LE array of [1, 2, 3], written out.
			name: "TransferInfo literal page bytes",
			parts: [][]byte{[]byte("NixlMsgGuard"), []byte("5"), []byte("::1"), []byte("80"), []byte("a"),
				{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, []byte("0"), []byte("1"), {}, {}, []byte("0")},
			want: &TransferInfo{RoomID: 5, DecodeIP: "::1", DecodePort: 80, AgentName: "a",
				KVPageIndices: []int32{1, 2, 3}, RequiredDstInfoNum: 1, StateIndices: [][]int32{}, Frames: 11},
		},
		{
			name:  "TransferInfo dummy",
			parts: nixlTransferInfo(42, nil, []byte{}, "", "1"),
			want: &TransferInfo{RoomID: 42, DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
				KVPageIndices: []int32{}, AuxIndex: 7, RequiredDstInfoNum: 2, StateIndices: [][]int32{},
				IsDummy: true, Frames: 11},
		},
		{
			name:  "TransferInfo 8 frames (2025)",
			parts: nixlTransferInfo(7, []int32{-1, 2147483647}, nil, "", "")[:8],
			want: &TransferInfo{RoomID: 7, DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
				KVPageIndices: []int32{-1, 2147483647}, AuxIndex: 7, RequiredDstInfoNum: 2, Frames: 8},
		},
		{
			name:  "TransferInfo 8 frames, no pages, is dummy by is_dummy()",
			parts: nixlTransferInfo(7, nil, nil, "", "")[:8],
			want: &TransferInfo{RoomID: 7, DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
				KVPageIndices: []int32{}, AuxIndex: 7, RequiredDstInfoNum: 2, IsDummy: true, Frames: 8},
		},
		{
			name:  "TransferInfo 10 frames, no pages but a prefix hit is not dummy",
			parts: nixlTransferInfo(7, nil, []byte{}, "32", "")[:10],
			want: &TransferInfo{RoomID: 7, DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
				KVPageIndices: []int32{}, AuxIndex: 7, RequiredDstInfoNum: 2, StateIndices: [][]int32{},
				DecodePrefixLen: ptr(int64(32)), Frames: 10},
		},
		{
			name:  "TransferInfo negative room",
			parts: nixlTransferInfo(-9223372036854775808, []int32{1}, []byte{}, "", "0"),
			want: &TransferInfo{RoomID: -9223372036854775808, DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
				KVPageIndices: []int32{1}, AuxIndex: 7, RequiredDstInfoNum: 2, StateIndices: [][]int32{}, Frames: 11},
		},
		{
			name:  "TransferInfo largest room",
			parts: nixlTransferInfo(9223372036854775807, []int32{1}, []byte{}, "", "0"),
			want: &TransferInfo{RoomID: 9223372036854775807, DecodeIP: "10.0.0.2", DecodePort: 41000, AgentName: "agent-d0",
				KVPageIndices: []int32{1}, AuxIndex: 7, RequiredDstInfoNum: 2, StateIndices: [][]int32{}, Frames: 11},
		},
		{
			name:  "Abort 4 frames",
			parts: msg("ABORT", 99, "10.0.0.2", 41000),
			want:  &Abort{RoomID: 99, DecodeIP: "10.0.0.2", DecodePort: 41000, Frames: 4},
		},
		{
			name:  "Abort legacy 2 frames",
			parts: msg("ABORT", 99),
			want:  &Abort{RoomID: 99, Frames: 2},
		},
		{
			name:  "AbortAck NIXL 3 frames",
			parts: msg("ABORT_ACK", 99, 3),
			want:  &AbortAck{RoomID: 99, PrefillRank: ptr(int64(3)), Frames: 3},
		},
		{
			name:  "AbortAck legacy 2 frames",
			parts: msg("ABORT_ACK", 99),
			want:  &AbortAck{RoomID: 99, Frames: 2},
		},
		{
			name:  "Watermark",
			parts: msg("WATERMARK", 3, 4096, "sess-a"),
			want:  &Watermark{Round: 3, Tail: 4096, Session: "sess-a"},
		},
		{
			name:  "StagingReq",
			parts: msg("STAGING_REQ", 11, 0, 4, "sess-a"),
			want:  &StagingReq{RoomID: 11, Chunk: 0, ChunkPages: 4, Session: "sess-a"},
		},
		{
			name:  "StagingRsp",
			parts: msg("STAGING_RSP", 11, 0, 128, 2, 640, "sess-a"),
			want:  &StagingRsp{RoomID: 11, Chunk: 0, Offset: 128, Round: 2, End: 640, Session: "sess-a"},
		},
		{
			name:  "StagingRsp allocation failure",
			parts: msg("STAGING_RSP", 11, 1, -2, 0, -1, "sess-a"),
			want:  &StagingRsp{RoomID: 11, Chunk: 1, Offset: -2, Round: 0, End: -1, Session: "sess-a"},
		},
		{
			name:  "MooncakeRegistration 18 frames",
			parts: mooncakeRegistration(),
			want: &MooncakeRegistration{DecodeIP: "10.0.0.3", DecodePort: 42000, Session: "10.0.0.3:17000",
				KVPtrs: []uint64{0x7f0000001000}, AuxPtrs: []uint64{0x7f0000003000}, StatePtrs: [][]uint64{},
				TPRank: 1, AttnTPSize: 2, KVItemLen: 8192,
				StateItemLens: [][]uint32{{8}}, StateDims: [][]uint32{}, KVLayerIDs: []uint32{0, 1},
				StateLayerIDs: [][]uint32{{3}}, DCPSize: ptr(int64(1)), DCPRank: ptr(int64(0)), Frames: 18},
		},
		{
			name:  "MooncakeRegistration 10 frames",
			parts: mooncakeRegistration()[:10],
			want: &MooncakeRegistration{DecodeIP: "10.0.0.3", DecodePort: 42000, Session: "10.0.0.3:17000",
				KVPtrs: []uint64{0x7f0000001000}, AuxPtrs: []uint64{0x7f0000003000}, StatePtrs: [][]uint64{},
				TPRank: 1, AttnTPSize: 2, KVItemLen: 8192, Frames: 10},
		},
		{
			name:  "MooncakeTransferInfo 10 frames",
			parts: mooncakeTransferInfo(77),
			want: &MooncakeTransferInfo{RoomID: 77, DecodeIP: "10.0.0.3", DecodePort: 42000, Session: "10.0.0.3:17000",
				KVPageIndices: []int32{4, 5, 6}, AuxIndex: ptr(int64(9)), StateIndices: [][]int32{{11}},
				RequiredDstInfoNum: 1, DecodePrefixLen: ptr(int64(0)), DeviceKVIndices: []int32{40, 50, 60}, Frames: 10},
		},
		{
			name:  "MooncakeTransferInfo 8 frames",
			parts: mooncakeTransferInfo(77)[:8],
			want: &MooncakeTransferInfo{RoomID: 77, DecodeIP: "10.0.0.3", DecodePort: 42000, Session: "10.0.0.3:17000",
				KVPageIndices: []int32{4, 5, 6}, AuxIndex: ptr(int64(9)), StateIndices: [][]int32{{11}},
				RequiredDstInfoNum: 1, Frames: 8},
		},
		{
			name:  "MooncakeTransferInfo with abort token",
			parts: append(mooncakeTransferInfo(77), []byte("tok\x00")),
			want: &MooncakeTransferInfo{RoomID: 77, DecodeIP: "10.0.0.3", DecodePort: 42000, Session: "10.0.0.3:17000",
				KVPageIndices: []int32{4, 5, 6}, AuxIndex: ptr(int64(9)), StateIndices: [][]int32{{11}},
				RequiredDstInfoNum: 1, DecodePrefixLen: ptr(int64(0)), DeviceKVIndices: []int32{40, 50, 60},
				AbortToken: []byte("tok\x00"), Frames: 11},
		},
		{
			// A dummy sends empty kv and aux frames; SGLang then ignores the
			// state frame, even a malformed one.
			name:  "MooncakeTransferInfo dummy",
			parts: msg(77, "10.0.0.3", 42000, "s", []byte{}, []byte{}, []byte{1}, 2, "", ""),
			want: &MooncakeTransferInfo{RoomID: 77, DecodeIP: "10.0.0.3", DecodePort: 42000, Session: "s",
				KVPageIndices: []int32{}, RequiredDstInfoNum: 2, IsDummy: true, Frames: 10},
		},
		{
			name:  "MooncakeStatus Success",
			parts: msg(77, 4, 1),
			want:  &MooncakeStatus{RoomID: 77, Status: 4, StatusName: "Success", PrefillRank: 1, Frames: 3},
		},
		{
			name:  "MooncakeStatus Failed with reason",
			parts: msg(77, 0, 3, "kv chunk send failed"),
			want:  &MooncakeStatus{RoomID: 77, Status: 0, StatusName: "Failed", PrefillRank: 3, Reason: "kv chunk send failed", Frames: 4},
		},
		{
			name:  "MooncakeStatus WaitingForInput",
			parts: msg(1, 2, 0),
			want:  &MooncakeStatus{RoomID: 1, Status: 2, StatusName: "WaitingForInput", PrefillRank: 0, Frames: 3},
		},
		{
			name:  "AuxData",
			parts: msg("AUX_DATA", 77, 0, 5, []byte{0, 0, 0, 3}, []byte{0xaa, 0xbb, 0xcc}),
			want:  &AuxData{RoomID: 77, BufferIndex: 0, AuxIndex: 5, Data: []byte{0xaa, 0xbb, 0xcc}},
		},
		{
			name:  "AuxData empty",
			parts: msg("AUX_DATA", 77, 0, 5, []byte{0, 0, 0, 0}, []byte{}),
			want:  &AuxData{RoomID: 77, BufferIndex: 0, AuxIndex: 5, Data: []byte{}},
		},
		{
			name:  "ChunkReady 7 frames",
			parts: msg("CHUNK_READY", 17, 2, 8, 4, "peer_name_with_underscores", 3),
			want:  &ChunkReady{RoomID: 17, Chunk: 2, PageStart: 8, NumPages: 4, Session: "peer_name_with_underscores", Writer: "3", Frames: 7},
		},
		{
			name:  "ChunkReady 6 frames",
			parts: msg("CHUNK_READY", 17, 2, 8, 4, "s"),
			want:  &ChunkReady{RoomID: 17, Chunk: 2, PageStart: 8, NumPages: 4, Session: "s", Frames: 6},
		},
	}
	for n := registrationMinFrames; n <= registrationMaxFrames; n++ {
		tests = append(tests, struct {
			name  string
			parts [][]byte
			want  Message
		}{name: "Registration " + itoa(n) + " frames", parts: nixlRegistration()[:n], want: wantRegistration(n)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decode(tt.parts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("Decode mismatch (-want +got):\n%s", diff)
			}
			room, ok := got.Room()
			wantRoom, wantOK := tt.want.Room()
			if room != wantRoom || ok != wantOK {
				t.Errorf("Room() = %d, %v; want %d, %v", room, ok, wantRoom, wantOK)
			}
			if got.Kind().Direction() == "" {
				t.Errorf("kind %s has no direction", got.Kind())
			}
			if s := got.Summary(); s == "" || strings.Contains(s, "\n") {
				t.Errorf("Summary() = %q, want one non-empty line", s)
			}
		})
	}
}

func itoa(n int) string { return string(asc(int64(n))) }

func TestDecodeUnknown(t *testing.T) {
	ti := func(edit func(p [][]byte)) [][]byte {
		p := nixlTransferInfo(5, []int32{1, 2}, packI32Lists([]int32{3}), "0", "0")
		edit(p)
		return p
	}
	const noFrame = -1
	tests := []struct {
		name     string
		parts    [][]byte
		form     Kind
		sentinel error
		frame    int    // FieldError frame, or noFrame
		field    string // FieldError field
		reason   string // substring of Reason
	}{
		{"nil parts", nil, "", ErrNoParts, noFrame, "", "no parts"},
		{"zero parts", [][]byte{}, "", ErrNoParts, noFrame, "", "no parts"},
		{"one empty part", [][]byte{{}}, "", ErrUnrecognized, noFrame, "", `leading frame ""`},
		{"empty parts", [][]byte{{}, {}, {}}, "", ErrUnrecognized, noFrame, "", "no SGLang literal"},
		{"garbage literal", msg("HELLO", 1), "", ErrUnrecognized, noFrame, "", `"HELLO"`},
		{"lower-case literal", msg("abort", 1), "", ErrUnrecognized, noFrame, "", `"abort"`},
		{"integer-led, 5 frames", msg(1, 2, 3, 4, 5), "", ErrUnrecognized, noFrame, "", "5 frames fit neither"},
		{"integer-led, 1 frame", msg(1), "", ErrUnrecognized, noFrame, "", "1 frames fit neither"},
		{"guard only", msg("NixlMsgGuard"), KindTransferInfo, ErrFrameCount, noFrame, "", "got 1"},
		{"TransferInfo 7 frames", nixlTransferInfo(5, nil, nil, "", "")[:7], KindTransferInfo, ErrFrameCount, noFrame, "", "8..11 frames"},
		{"TransferInfo 12 frames", append(ti(func([][]byte) {}), []byte("x")), KindTransferInfo, ErrFrameCount, noFrame, "", "got 12"},
		{"Registration 12 frames", nixlRegistration()[:12], KindRegistration, ErrFrameCount, noFrame, "", "13..24 frames, got 12"},
		{"Registration 25 frames", append(nixlRegistration(), []byte{}), KindRegistration, ErrFrameCount, noFrame, "", "got 25"},
		{"room non-numeric", ti(func(p [][]byte) { p[1] = []byte("12a") }), KindTransferInfo, ErrMalformed, 1, "room", `"12a"`},
		{"room empty", ti(func(p [][]byte) { p[1] = []byte{} }), KindTransferInfo, ErrMalformed, 1, "room", "empty"},
		{"room plus sign", ti(func(p [][]byte) { p[1] = []byte("+5") }), KindTransferInfo, ErrMalformed, 1, "room", "not an ASCII decimal"},
		{"room lone minus", ti(func(p [][]byte) { p[1] = []byte("-") }), KindTransferInfo, ErrMalformed, 1, "room", "not an ASCII decimal"},
		{"room space", ti(func(p [][]byte) { p[1] = []byte(" 5") }), KindTransferInfo, ErrMalformed, 1, "room", "not an ASCII decimal"},
		{"room 2^63", ti(func(p [][]byte) { p[1] = []byte("9223372036854775808") }), KindTransferInfo, ErrMalformed, 1, "room", "out of int64 range"},
		{"room -2^63-1", ti(func(p [][]byte) { p[1] = []byte("-9223372036854775809") }), KindTransferInfo, ErrMalformed, 1, "room", "out of int64 range"},
		{"room huge", ti(func(p [][]byte) { p[1] = bytes.Repeat([]byte("9"), 1000) }), KindTransferInfo, ErrMalformed, 1, "room", "(1000 bytes)"},
		{"ip not ASCII", ti(func(p [][]byte) { p[2] = []byte("10.0.0.\xc3\xa9") }), KindTransferInfo, ErrMalformed, 2, "decode_ip", "not ASCII"},
		{"port out of range", ti(func(p [][]byte) { p[3] = []byte("65536") }), KindTransferInfo, ErrMalformed, 3, "decode_port", "out of range"},
		{"port negative", ti(func(p [][]byte) { p[3] = []byte("-1") }), KindTransferInfo, ErrMalformed, 3, "decode_port", "out of range"},
		{"odd-length i32 pages", ti(func(p [][]byte) { p[5] = []byte{1, 0, 0, 0, 2, 0, 0} }), KindTransferInfo, ErrMalformed, 5, "kv_page_indices", "7 bytes is not a whole number of 4-byte"},
		{"aux index empty", ti(func(p [][]byte) { p[6] = []byte{} }), KindTransferInfo, ErrMalformed, 6, "aux_index", "empty"},
		{"is_dummy 2", ti(func(p [][]byte) { p[10] = []byte("2") }), KindTransferInfo, ErrMalformed, 10, "is_dummy", `want "0" or "1"`},
		{"is_dummy empty", ti(func(p [][]byte) { p[10] = []byte{} }), KindTransferInfo, ErrMalformed, 10, "is_dummy", `want "0" or "1"`},
		{"pack: short count", ti(func(p [][]byte) { p[8] = []byte{1, 0} }), KindTransferInfo, ErrMalformed, 8, "state_indices", "too short for the list count"},
		{"pack: header beyond frame", ti(func(p [][]byte) { p[8] = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0} }), KindTransferInfo, ErrMalformed, 8, "state_indices", "a header for 4294967295 lists needs 17179869184 bytes, frame has 8"},
		{"pack: list overruns", ti(func(p [][]byte) { p[8] = []byte{1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0} }), KindTransferInfo, ErrMalformed, 8, "state_indices", "header accounts for 16 bytes, frame has 12"},
		{"pack: trailing bytes", ti(func(p [][]byte) { p[8] = append(packI32Lists([]int32{1}), 0) }), KindTransferInfo, ErrMalformed, 8, "state_indices", "header accounts for 12 bytes, frame has 13"},
		{"pack: odd inner length", ti(func(p [][]byte) { p[8] = []byte{1, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3} }), KindTransferInfo, ErrMalformed, 8, "state_indices", "list 0 has 3 bytes"},
		{"pack: huge inner length", ti(func(p [][]byte) { p[8] = []byte{1, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff} }), KindTransferInfo, ErrMalformed, 8, "state_indices", "header accounts for 4294967300 bytes, frame has 8"},
		{"prefix len junk", ti(func(p [][]byte) { p[9] = []byte("x") }), KindTransferInfo, ErrMalformed, 9, "decode_prefix_len", `"x"`},
		{"first bad field wins", ti(func(p [][]byte) { p[3] = []byte("x"); p[1] = []byte("y") }), KindTransferInfo, ErrMalformed, 1, "room", `"y"`},
		{"Abort 3 frames", msg("ABORT", 1, "ip"), KindAbort, ErrFrameCount, noFrame, "", "4 or 2 frames, got 3"},
		{"Abort 1 frame", msg("ABORT"), KindAbort, ErrFrameCount, noFrame, "", "got 1"},
		{"Abort bad room", msg("ABORT", "r", "ip", 1), KindAbort, ErrMalformed, 1, "room", `"r"`},
		{"Abort bad port", msg("ABORT", 1, "ip", "p"), KindAbort, ErrMalformed, 3, "decode_port", `"p"`},
		{"AbortAck 4 frames", msg("ABORT_ACK", 1, 2, 3), KindAbortAck, ErrFrameCount, noFrame, "", "3 or 2 frames, got 4"},
		{"AbortAck bad rank", msg("ABORT_ACK", 1, "r"), KindAbortAck, ErrMalformed, 2, "prefill_rank", `"r"`},
		{"Watermark 3 frames", msg("WATERMARK", 1, 2), KindWatermark, ErrFrameCount, noFrame, "", "got 3"},
		{"Watermark bad tail", msg("WATERMARK", 1, "t", "s"), KindWatermark, ErrMalformed, 2, "tail", `"t"`},
		{"StagingReq 7 frames", msg("STAGING_REQ", 1, 0, 4, "s", 16384, 0), KindStagingReq, ErrFrameCount, noFrame, "", "5 frames, got 7"},
		{"StagingReq bad pages", msg("STAGING_REQ", 1, 0, "p", "s"), KindStagingReq, ErrMalformed, 3, "chunk_pages", `"p"`},
		{"StagingRsp 8 frames", msg("STAGING_RSP", 1, 0, 1, 1, 1, "s", 2), KindStagingRsp, ErrFrameCount, noFrame, "", "7 frames, got 8"},
		{"StagingRsp bad end", msg("STAGING_RSP", 1, 0, 1, 1, "e", "s"), KindStagingRsp, ErrMalformed, 5, "end", `"e"`},
		{"Registration bad kv ptrs", func() [][]byte { p := nixlRegistration(); p[6] = p[6][:12]; return p }(), KindRegistration, ErrMalformed, 6, "kv_ptrs", "12 bytes is not a whole number of 8-byte"},
		{"Registration bad state ptrs", func() [][]byte { p := nixlRegistration(); p[8] = []byte{9}; return p }(), KindRegistration, ErrMalformed, 8, "state_ptrs", "too short"},
		{"Registration staging ptr 5 bytes", func() [][]byte { p := nixlRegistration(); p[15] = []byte{1, 2, 3, 4, 5}; return p }(), KindRegistration, ErrMalformed, 15, "staging_base_ptr", "5 bytes, want 8"},
		{"Registration odd kv layer ids", func() [][]byte { p := nixlRegistration(); p[21] = []byte{1, 2}; return p }(), KindRegistration, ErrMalformed, 21, "kv_layer_ids", "2 bytes"},
		{"Registration bad dcp rank", func() [][]byte { p := nixlRegistration(); p[23] = []byte("r"); return p }(), KindRegistration, ErrMalformed, 23, "dcp_rank", `"r"`},
		{"MooncakeRegistration 9 frames", mooncakeRegistration()[:9], KindMooncakeRegistration, ErrFrameCount, noFrame, "", "10..18 frames, got 9"},
		{"MooncakeRegistration bad port", func() [][]byte { p := mooncakeRegistration(); p[2] = []byte("x"); return p }(), KindMooncakeRegistration, ErrMalformed, 2, "decode_port", `"x"`},
		{"MooncakeTransferInfo bad aux", func() [][]byte { p := mooncakeTransferInfo(1); p[5] = []byte("a"); return p }(), KindMooncakeTransferInfo, ErrMalformed, 5, "aux_index", `"a"`},
		{"MooncakeTransferInfo aux without pages is no dummy", func() [][]byte { p := mooncakeTransferInfo(1); p[4] = []byte{}; p[6] = []byte{1}; return p }(), KindMooncakeTransferInfo, ErrMalformed, 6, "state_indices", "too short"},
		{"MooncakeTransferInfo odd device idx", func() [][]byte { p := mooncakeTransferInfo(1); p[9] = []byte{1}; return p }(), KindMooncakeTransferInfo, ErrMalformed, 9, "device_kv_indices", "1 bytes"},
		{"MooncakeTransferInfo ip is a number", msg(1, 2, 3, 4, 5, 6, 7, 8), KindMooncakeTransferInfo, ErrMalformed, 4, "kv_page_indices", "1 bytes"},
		{"MooncakeStatus out of range", msg(1, 5, 0), KindMooncakeStatus, ErrMalformed, 1, "status", "5 is not a KVPoll value"},
		{"MooncakeStatus negative", msg(1, -1, 0), KindMooncakeStatus, ErrMalformed, 1, "status", "-1 is not a KVPoll value"},
		{"MooncakeStatus non-numeric", msg(1, "Success", 0), KindMooncakeStatus, ErrMalformed, 1, "status", `"Success"`},
		{"MooncakeStatus bad rank", msg(1, 4, "r"), KindMooncakeStatus, ErrMalformed, 2, "prefill_rank", `"r"`},
		{"AuxData 5 frames", msg("AUX_DATA", 1, 0, 0, []byte{0, 0, 0, 0}), KindAuxData, ErrFrameCount, noFrame, "", "6 frames, got 5"},
		{"AuxData length mismatch", msg("AUX_DATA", 1, 0, 0, []byte{0, 0, 0, 4}, []byte{1}), KindAuxData, ErrMalformed, 4, "data_length", "says 4 bytes, data frame has 1"},
		{"AuxData little-endian length", msg("AUX_DATA", 1, 0, 0, []byte{1, 0, 0, 0}, []byte{1}), KindAuxData, ErrMalformed, 4, "data_length", "says 16777216 bytes"},
		{"AuxData short length", msg("AUX_DATA", 1, 0, 0, []byte{1}, []byte{1}), KindAuxData, ErrMalformed, 4, "data_length", "1 bytes, want 4"},
		{"ChunkReady 5 frames", msg("CHUNK_READY", 1, 0, 0, 1), KindChunkReady, ErrFrameCount, noFrame, "", "6 or 7 frames, got 5"},
		{"ChunkReady bad chunk", msg("CHUNK_READY", 1, "c", 0, 1, "s"), KindChunkReady, ErrMalformed, 2, "chunk", `"c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decode(tt.parts)
			u, ok := got.(*Unknown)
			if !ok {
				t.Fatalf("Decode = %T %+v, want *Unknown", got, got)
			}
			if u.Form != tt.form {
				t.Errorf("Form = %q, want %q", u.Form, tt.form)
			}
			if !errors.Is(u.Err, tt.sentinel) {
				t.Errorf("Err = %v, want errors.Is %v", u.Err, tt.sentinel)
			}
			var fe *FieldError
			if errors.As(u.Err, &fe) {
				if tt.frame == noFrame || fe.Frame != tt.frame || fe.Field != tt.field {
					t.Errorf("FieldError at frame %d (%s), want frame %d (%s)", fe.Frame, fe.Field, tt.frame, tt.field)
				}
			} else if tt.frame != noFrame {
				t.Errorf("Err = %v, want a FieldError at frame %d", u.Err, tt.frame)
			}
			if u.Reason != u.Err.Error() || !strings.Contains(u.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", u.Reason, tt.reason)
			}
			if len(u.Parts) != len(tt.parts) {
				t.Errorf("Parts has %d frames, want the %d given", len(u.Parts), len(tt.parts))
			}
			if k := u.Kind(); k != KindUnknown {
				t.Errorf("Kind() = %s", k)
			}
			if _, ok := u.Room(); ok {
				t.Errorf("Unknown has a room")
			}
			if len(u.Reason) > 400 {
				t.Errorf("Reason is %d bytes: a frame was not clipped", len(u.Reason))
			}
		})
	}
}

// TestDecodeDoesNotAlias checks that decoded values survive the caller
// reusing its frame buffers.
func TestDecodeDoesNotAlias(t *testing.T) {
	parts := nixlRegistration()
	m := Decode(parts).(*Registration)
	want := wantRegistration(24)
	for _, p := range parts {
		for i := range p {
			p[i] = 'X'
		}
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Fatalf("decoded value changed with its input (-want +got):\n%s", diff)
	}
}

// TestJSON pins the field names the CLI prints.
func TestJSON(t *testing.T) {
	tests := []struct {
		m    Message
		want string
	}{
		{Decode(nixlTransferInfo(5, []int32{1, 2, 3}, []byte{}, "", "0")),
			`{"room":5,"decode_ip":"10.0.0.2","decode_port":41000,"agent_name":"agent-d0","kv_page_indices":[1,2,3],"aux_index":7,"required_dst_info_num":2,"state_indices":[],"decode_prefix_len":null,"is_dummy":false,"frames":11}`},
		{Decode(msg("ABORT", 5)), `{"room":5,"frames":2}`},
		{Decode(msg("ABORT_ACK", 5)), `{"room":5,"prefill_rank":null,"frames":2}`},
		{Decode(msg(5, 1, 0)), `{"room":5,"status":1,"status_name":"Bootstrapping","prefill_rank":0,"frames":3}`},
		{Decode(msg("ABORT", "x")), `{"form":"Abort","reason":"frame 1 (room): not an ASCII decimal integer: \"x\""}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.m)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("json.Marshal(%T) =\n%s\nwant\n%s", tt.m, b, tt.want)
		}
	}
}

func TestDirection(t *testing.T) {
	for k, want := range map[Kind]Direction{
		KindTransferInfo: DecodeToPrefill, KindAbort: DecodeToPrefill, KindRegistration: DecodeToPrefill,
		KindAbortAck: PrefillToDecode, KindMooncakeStatus: PrefillToDecode, KindStagingReq: PrefillToDecode,
		KindUnknown: "",
	} {
		if got := k.Direction(); got != want {
			t.Errorf("%s.Direction() = %q, want %q", k, got, want)
		}
	}
}
