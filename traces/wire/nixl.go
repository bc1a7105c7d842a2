package wire

import (
	"fmt"
	"net"
	"strconv"
)

// Literal leading frames.
const (
	nixlGuard      = "NixlMsgGuard"
	noneLiteral    = "None"
	abortLiteral   = "ABORT"
	abortAckLit    = "ABORT_ACK"
	watermarkLit   = "WATERMARK"
	stagingReqLit  = "STAGING_REQ"
	stagingRspLit  = "STAGING_RSP"
	auxDataLit     = "AUX_DATA"
	chunkReadyLit  = "CHUNK_READY"
	maxSummaryList = 8
)

// Registration is NIXL's once-per-rank registration from a decode rank to a
// prefill rank: NixlMsgGuard, None, then the decode rank's endpoint, NIXL
// agent and memory layout. Frames 0-12 are required; SGLang appended
// frames 13-23 over time and reads each only if present, so a registration
// has 13 to 24 frames. Optional scalars are nil and optional lists nil when
// their frame is absent or empty.
type Registration struct {
	DecodeIP      string     `json:"decode_ip"`      // frame 2
	DecodePort    int        `json:"decode_port"`    // frame 3
	AgentName     string     `json:"agent_name"`     // frame 4
	AgentMetadata []byte     `json:"agent_metadata"` // frame 5, opaque NIXL blob
	KVPtrs        []uint64   `json:"kv_ptrs"`        // frame 6, u64 LE each
	AuxPtrs       []uint64   `json:"aux_ptrs"`       // frame 7, u64 LE each
	StatePtrs     [][]uint64 `json:"state_ptrs"`     // frame 8, pack_int_lists Q
	GPUID         int64      `json:"gpu_id"`         // frame 9
	AttnTPSize    int64      `json:"attn_tp_size"`   // frame 10
	EngineRank    int64      `json:"engine_rank"`    // frame 11
	KVItemLen     int64      `json:"kv_item_len"`    // frame 12

	StateItemLens  [][]uint32 `json:"state_item_lens"`  // frame 13, pack_int_lists I
	StateDims      [][]uint32 `json:"state_dims"`       // frame 14, pack_int_lists I
	StagingBasePtr *uint64    `json:"staging_base_ptr"` // frame 15, 8 bytes u64 LE or empty
	StagingSize    *int64     `json:"staging_size"`     // frame 16
	NumSlots       *int64     `json:"num_slots"`        // frame 17
	MemKinds       []string   `json:"mem_kinds"`        // frame 18, "VRAM,VRAM"
	KVItemLens     []uint64   `json:"kv_item_lens"`     // frame 19, u64 LE each
	StateLayerIDs  [][]uint32 `json:"state_layer_ids"`  // frame 20, pack_int_lists I
	KVLayerIDs     []uint32   `json:"kv_layer_ids"`     // frame 21, u32 LE each
	DCPSize        *int64     `json:"dcp_size"`         // frame 22
	DCPRank        *int64     `json:"dcp_rank"`         // frame 23

	Frames int `json:"frames"` // 13..24
}

// Registration frame counts.
const (
	registrationMinFrames = 13
	registrationMaxFrames = 24
)

func decodeRegistration(a *alloc, parts [][]byte) Message {
	if n := len(parts); n < registrationMinFrames || n > registrationMaxFrames {
		return wrongCount(KindRegistration, parts, "Registration", fmt.Sprintf("%d..%d", registrationMinFrames, registrationMaxFrames))
	}
	r := &reader{parts: parts, a: a}
	return r.done(KindRegistration, &Registration{
		Frames:         len(parts),
		DecodeIP:       r.str(2, "decode_ip"),
		DecodePort:     r.port(3, "decode_port"),
		AgentName:      r.str(4, "agent_name"),
		AgentMetadata:  r.bytes(5),
		KVPtrs:         array(r, 6, "kv_ptrs", 8, &r.a.u64),
		AuxPtrs:        array(r, 7, "aux_ptrs", 8, &r.a.u64),
		StatePtrs:      packed(r, 8, "state_ptrs", 8, &r.a.u64, &r.a.u64s),
		GPUID:          r.int(9, "gpu_id"),
		AttnTPSize:     r.int(10, "attn_tp_size"),
		EngineRank:     r.int(11, "engine_rank"),
		KVItemLen:      r.int(12, "kv_item_len"),
		StateItemLens:  optPacked(r, 13, "state_item_lens", 4, &r.a.u32, &r.a.u32s),
		StateDims:      optPacked(r, 14, "state_dims", 4, &r.a.u32, &r.a.u32s),
		StagingBasePtr: r.optPtr(15, "staging_base_ptr"),
		StagingSize:    r.optInt(16, "staging_size"),
		NumSlots:       r.optInt(17, "num_slots"),
		MemKinds:       r.optList(18, "mem_kinds"),
		KVItemLens:     optArray(r, 19, "kv_item_lens", 8, &r.a.u64),
		StateLayerIDs:  optPacked(r, 20, "state_layer_ids", 4, &r.a.u32, &r.a.u32s),
		KVLayerIDs:     optArray(r, 21, "kv_layer_ids", 4, &r.a.u32),
		DCPSize:        r.optInt(22, "dcp_size"),
		DCPRank:        r.optInt(23, "dcp_rank"),
	})
}

// Kind returns KindRegistration.
func (*Registration) Kind() Kind { return KindRegistration }

// Room reports none: a registration is per rank, not per room.
func (*Registration) Room() (int64, bool) { return 0, false }

// Summary renders the endpoint, agent and parallel layout.
func (m *Registration) Summary() string {
	return fmt.Sprintf("decode=%s agent=%s gpu=%d attn_tp=%d rank=%d kv_ptrs=%d aux_ptrs=%d frames=%d",
		net.JoinHostPort(m.DecodeIP, strconv.Itoa(m.DecodePort)), m.AgentName,
		m.GPUID, m.AttnTPSize, m.EngineRank, len(m.KVPtrs), len(m.AuxPtrs), m.Frames)
}

// TransferInfo is NIXL's per-room, per-decode-rank request: NixlMsgGuard,
// room, then where to write the room's KV. Today's senders use 11 frames;
// 2025 releases sent the first 8, and SGLang's receiver reads frames 8-10
// only if present, so 8 to 11 frames are accepted.
type TransferInfo struct {
	RoomID             int64     `json:"room"`                  // frame 1
	DecodeIP           string    `json:"decode_ip"`             // frame 2
	DecodePort         int       `json:"decode_port"`           // frame 3
	AgentName          string    `json:"agent_name"`            // frame 4
	KVPageIndices      []int32   `json:"kv_page_indices"`       // frame 5, i32 LE; empty if dummy
	AuxIndex           int64     `json:"aux_index"`             // frame 6
	RequiredDstInfoNum int64     `json:"required_dst_info_num"` // frame 7
	StateIndices       [][]int32 `json:"state_indices"`         // frame 8, pack_int_lists i; nil if absent
	DecodePrefixLen    *int64    `json:"decode_prefix_len"`     // frame 9; nil if absent or empty
	// IsDummy is frame 10 ("0"/"1"). Without it, it is what SGLang's
	// TransferInfo.is_dummy() computes: no page indices and no positive
	// decode prefix length.
	IsDummy bool `json:"is_dummy"`
	Frames  int  `json:"frames"` // 8..11
}

// TransferInfo frame counts.
const (
	transferInfoMinFrames = 8
	transferInfoMaxFrames = 11
)

func decodeTransferInfo(a *alloc, parts [][]byte) Message {
	if n := len(parts); n < transferInfoMinFrames || n > transferInfoMaxFrames {
		return unknown(KindTransferInfo, parts, fmt.Errorf("%w: TransferInfo has %d..%d frames (11, or 8 before 2026), got %d",
			ErrFrameCount, transferInfoMinFrames, transferInfoMaxFrames, n))
	}
	r := &reader{parts: parts, a: a}
	m := a.transferInfo.one()
	m.Frames = len(parts)
	m.RoomID = r.int(1, "room")
	m.DecodeIP = r.str(2, "decode_ip")
	m.DecodePort = r.port(3, "decode_port")
	m.AgentName = r.str(4, "agent_name")
	m.KVPageIndices = array(r, 5, "kv_page_indices", 4, &r.a.i32)
	m.AuxIndex = r.int(6, "aux_index")
	m.RequiredDstInfoNum = r.int(7, "required_dst_info_num")
	m.StateIndices = optPacked(r, 8, "state_indices", 4, &r.a.i32, &r.a.i32s)
	m.DecodePrefixLen = r.optInt(9, "decode_prefix_len")
	if len(parts) > 10 {
		m.IsDummy = r.flag(10, "is_dummy")
	} else {
		m.IsDummy = len(m.KVPageIndices) == 0 && (m.DecodePrefixLen == nil || *m.DecodePrefixLen == 0)
	}
	return r.done(KindTransferInfo, m)
}

// Kind returns KindTransferInfo.
func (*TransferInfo) Kind() Kind { return KindTransferInfo }

// Room returns the bootstrap room.
func (m *TransferInfo) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the room, decode endpoint and page count.
func (m *TransferInfo) Summary() string {
	b := make([]byte, 0, 128)
	b = append(b, "room="...)
	b = strconv.AppendInt(b, m.RoomID, 10)
	b = append(b, " decode="...)
	b = appendHostPort(b, m.DecodeIP, m.DecodePort)
	b = append(b, " agent="...)
	b = append(b, m.AgentName...)
	b = append(b, " pages="...)
	b = strconv.AppendInt(b, int64(len(m.KVPageIndices)), 10)
	b = appendPreview(b, m.KVPageIndices)
	b = append(b, " aux="...)
	b = strconv.AppendInt(b, m.AuxIndex, 10)
	b = append(b, " required="...)
	b = strconv.AppendInt(b, m.RequiredDstInfoNum, 10)
	if m.DecodePrefixLen != nil {
		b = append(b, " prefix="...)
		b = strconv.AppendInt(b, *m.DecodePrefixLen, 10)
	}
	if m.IsDummy {
		b = append(b, " dummy"...)
	}
	b = append(b, " frames="...)
	b = strconv.AppendInt(b, int64(m.Frames), 10)
	return string(b)
}

// listPreview shows short index lists in full and long ones not at all, to
// keep a summary on one readable line.
func listPreview[T elem](v []T) string {
	if len(v) == 0 || len(v) > maxSummaryList {
		return ""
	}
	return fmt.Sprint(v)
}

// Abort is the decode side giving up on a room: ABORT, room, decode ip,
// decode port. The legacy 2-frame form carries only the room, and then
// DecodeIP and DecodePort are empty. It has no guard frame (releases before
// PR #30352 asserted one, so an ABORT killed their bootstrap thread).
type Abort struct {
	RoomID     int64  `json:"room"`                  // frame 1
	DecodeIP   string `json:"decode_ip,omitempty"`   // frame 2
	DecodePort int    `json:"decode_port,omitempty"` // frame 3
	Frames     int    `json:"frames"`                // 4 or 2
}

func decodeAbort(a *alloc, parts [][]byte) Message {
	if n := len(parts); n != 4 && n != 2 {
		return wrongCount(KindAbort, parts, "ABORT", "4 or 2")
	}
	r := &reader{parts: parts, a: a}
	m := a.abort.one()
	m.Frames = len(parts)
	m.RoomID = r.int(1, "room")
	if len(parts) == 4 {
		m.DecodeIP = r.str(2, "decode_ip")
		m.DecodePort = r.port(3, "decode_port")
	}
	return r.done(KindAbort, m)
}

// Kind returns KindAbort.
func (*Abort) Kind() Kind { return KindAbort }

// Room returns the aborted room.
func (m *Abort) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the room and, in the 4-frame form, the decode endpoint.
func (m *Abort) Summary() string {
	b := make([]byte, 0, 64)
	b = append(b, "room="...)
	b = strconv.AppendInt(b, m.RoomID, 10)
	if m.Frames == 2 {
		b = append(b, " (legacy, no endpoint)"...)
	} else {
		b = append(b, " decode="...)
		b = appendHostPort(b, m.DecodeIP, m.DecodePort)
	}
	return string(b)
}

// AbortAck is prefill acknowledging an ABORT: ABORT_ACK, room, prefill rank
// (NIXL, deferred-release mode), or ABORT_ACK, room (legacy and Mooncake).
type AbortAck struct {
	RoomID      int64  `json:"room"`         // frame 1
	PrefillRank *int64 `json:"prefill_rank"` // frame 2; nil in the 2-frame form
	Frames      int    `json:"frames"`       // 3 or 2
}

func decodeAbortAck(a *alloc, parts [][]byte) Message {
	if n := len(parts); n != 3 && n != 2 {
		return wrongCount(KindAbortAck, parts, "ABORT_ACK", "3 or 2")
	}
	r := &reader{parts: parts, a: a}
	m := a.abortAck.one()
	m.Frames = len(parts)
	m.RoomID = r.int(1, "room")
	if len(parts) == 3 {
		rank := r.int(2, "prefill_rank")
		m.PrefillRank = a.i64.one()
		*m.PrefillRank = rank
	}
	return r.done(KindAbortAck, m)
}

// Kind returns KindAbortAck.
func (*AbortAck) Kind() Kind { return KindAbortAck }

// Room returns the acknowledged room.
func (m *AbortAck) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the room and the acknowledging rank.
func (m *AbortAck) Summary() string {
	b := make([]byte, 0, 48)
	b = append(b, "room="...)
	b = strconv.AppendInt(b, m.RoomID, 10)
	if m.PrefillRank != nil {
		b = append(b, " prefill_rank="...)
		b = strconv.AppendInt(b, *m.PrefillRank, 10)
	}
	return string(b)
}

// Watermark is decode's staging-ring progress (staging mode only):
// WATERMARK, round, tail, session.
type Watermark struct {
	Round   int64  `json:"round"`   // frame 1
	Tail    int64  `json:"tail"`    // frame 2
	Session string `json:"session"` // frame 3
}

func decodeWatermark(a *alloc, parts [][]byte) Message {
	if len(parts) != 4 {
		return wrongCount(KindWatermark, parts, "WATERMARK", "4")
	}
	r := &reader{parts: parts, a: a}
	return r.done(KindWatermark, &Watermark{Round: r.int(1, "round"), Tail: r.int(2, "tail"), Session: r.str(3, "session")})
}

// Kind returns KindWatermark.
func (*Watermark) Kind() Kind { return KindWatermark }

// Room reports none: a watermark is per staging ring, not per room.
func (*Watermark) Room() (int64, bool) { return 0, false }

// Summary renders the watermark.
func (m *Watermark) Summary() string {
	return fmt.Sprintf("round=%d tail=%d session=%s", m.Round, m.Tail, m.Session)
}

// StagingReq is prefill asking decode for staging space for one chunk
// before the forward pass (staging mode only): STAGING_REQ, room, chunk
// index, chunk pages, session. The layout is read from SGLang's
// prefetch_staging_reqs (common/staging_handler.py); ROOM-LIFECYCLE.md does
// not give it.
type StagingReq struct {
	RoomID     int64  `json:"room"`        // frame 1
	Chunk      int64  `json:"chunk"`       // frame 2
	ChunkPages int64  `json:"chunk_pages"` // frame 3
	Session    string `json:"session"`     // frame 4
}

func decodeStagingReq(a *alloc, parts [][]byte) Message {
	if len(parts) != 5 {
		return wrongCount(KindStagingReq, parts, "STAGING_REQ", "5")
	}
	r := &reader{parts: parts, a: a}
	return r.done(KindStagingReq, &StagingReq{RoomID: r.int(1, "room"), Chunk: r.int(2, "chunk"), ChunkPages: r.int(3, "chunk_pages"), Session: r.str(4, "session")})
}

// Kind returns KindStagingReq.
func (*StagingReq) Kind() Kind { return KindStagingReq }

// Room returns the room the staging space is for.
func (m *StagingReq) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the request.
func (m *StagingReq) Summary() string {
	return fmt.Sprintf("room=%d chunk=%d pages=%d session=%s", m.RoomID, m.Chunk, m.ChunkPages, m.Session)
}

// StagingRsp is decode's answer to a STAGING_REQ (staging mode only):
// STAGING_RSP, room, chunk, offset, round, end, session. A negative offset
// is SGLang's allocation-failure code.
type StagingRsp struct {
	RoomID  int64  `json:"room"`    // frame 1
	Chunk   int64  `json:"chunk"`   // frame 2
	Offset  int64  `json:"offset"`  // frame 3
	Round   int64  `json:"round"`   // frame 4
	End     int64  `json:"end"`     // frame 5
	Session string `json:"session"` // frame 6
}

func decodeStagingRsp(a *alloc, parts [][]byte) Message {
	if len(parts) != 7 {
		return wrongCount(KindStagingRsp, parts, "STAGING_RSP", "7")
	}
	r := &reader{parts: parts, a: a}
	return r.done(KindStagingRsp, &StagingRsp{RoomID: r.int(1, "room"), Chunk: r.int(2, "chunk"), Offset: r.int(3, "offset"),
		Round: r.int(4, "round"), End: r.int(5, "end"), Session: r.str(6, "session")})
}

// Kind returns KindStagingRsp.
func (*StagingRsp) Kind() Kind { return KindStagingRsp }

// Room returns the room the staging space is for.
func (m *StagingRsp) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the allocation.
func (m *StagingRsp) Summary() string {
	return fmt.Sprintf("room=%d chunk=%d offset=%d round=%d end=%d session=%s",
		m.RoomID, m.Chunk, m.Offset, m.Round, m.End, m.Session)
}
