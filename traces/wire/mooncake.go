package wire

import (
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// MooncakeRegistration is Mooncake's once-per-rank registration. It has no
// guard: the leading frame None marks it. ROOM-LIFECYCLE.md gives no more
// than that; the layout below is the one SGLang's Mooncake
// KVArgsRegisterInfo.from_zmq reads (mooncake/conn.py). Frames 0-9 are
// required and 10-17 optional, so it has 10 to 18 frames.
type MooncakeRegistration struct {
	DecodeIP   string     `json:"decode_ip"`    // frame 1
	DecodePort int        `json:"decode_port"`  // frame 2
	Session    string     `json:"session"`      // frame 3, Mooncake session id
	KVPtrs     []uint64   `json:"kv_ptrs"`      // frame 4, u64 LE each
	AuxPtrs    []uint64   `json:"aux_ptrs"`     // frame 5, u64 LE each
	StatePtrs  [][]uint64 `json:"state_ptrs"`   // frame 6, pack_int_lists Q
	TPRank     int64      `json:"tp_rank"`      // frame 7
	AttnTPSize int64      `json:"attn_tp_size"` // frame 8
	KVItemLen  int64      `json:"kv_item_len"`  // frame 9

	StateItemLens  [][]uint32 `json:"state_item_lens"`  // frame 10, pack_int_lists I
	StateDims      [][]uint32 `json:"state_dims"`       // frame 11, pack_int_lists I
	KVLayerIDs     []uint32   `json:"kv_layer_ids"`     // frame 12, u32 LE each
	StateLayerIDs  [][]uint32 `json:"state_layer_ids"`  // frame 13, pack_int_lists I
	StagingBasePtr *uint64    `json:"staging_base_ptr"` // frame 14, 8 bytes or empty
	StagingSize    *int64     `json:"staging_size"`     // frame 15
	DCPSize        *int64     `json:"dcp_size"`         // frame 16
	DCPRank        *int64     `json:"dcp_rank"`         // frame 17

	Frames int `json:"frames"` // 10..18
}

// MooncakeRegistration frame counts.
const (
	mooncakeRegistrationMinFrames = 10
	mooncakeRegistrationMaxFrames = 18
)

func decodeMooncakeRegistration(a *alloc, parts [][]byte) Message {
	if n := len(parts); n < mooncakeRegistrationMinFrames || n > mooncakeRegistrationMaxFrames {
		return wrongCount(KindMooncakeRegistration, parts, "Mooncake registration",
			fmt.Sprintf("%d..%d", mooncakeRegistrationMinFrames, mooncakeRegistrationMaxFrames))
	}
	r := &reader{parts: parts, a: a}
	return r.done(KindMooncakeRegistration, &MooncakeRegistration{
		Frames:         len(parts),
		DecodeIP:       r.str(1, "decode_ip"),
		DecodePort:     r.port(2, "decode_port"),
		Session:        r.str(3, "session"),
		KVPtrs:         array(r, 4, "kv_ptrs", 8, &r.a.u64),
		AuxPtrs:        array(r, 5, "aux_ptrs", 8, &r.a.u64),
		StatePtrs:      packed(r, 6, "state_ptrs", 8, &r.a.u64, &r.a.u64s),
		TPRank:         r.int(7, "tp_rank"),
		AttnTPSize:     r.int(8, "attn_tp_size"),
		KVItemLen:      r.int(9, "kv_item_len"),
		StateItemLens:  optPacked(r, 10, "state_item_lens", 4, &r.a.u32, &r.a.u32s),
		StateDims:      optPacked(r, 11, "state_dims", 4, &r.a.u32, &r.a.u32s),
		KVLayerIDs:     optArray(r, 12, "kv_layer_ids", 4, &r.a.u32),
		StateLayerIDs:  optPacked(r, 13, "state_layer_ids", 4, &r.a.u32, &r.a.u32s),
		StagingBasePtr: r.optPtr(14, "staging_base_ptr"),
		StagingSize:    r.optInt(15, "staging_size"),
		DCPSize:        r.optInt(16, "dcp_size"),
		DCPRank:        r.optInt(17, "dcp_rank"),
	})
}

// Kind returns KindMooncakeRegistration.
func (*MooncakeRegistration) Kind() Kind { return KindMooncakeRegistration }

// Room reports none: a registration is per rank, not per room.
func (*MooncakeRegistration) Room() (int64, bool) { return 0, false }

// Summary renders the endpoint, session and layout.
func (m *MooncakeRegistration) Summary() string {
	return fmt.Sprintf("decode=%s session=%s tp_rank=%d attn_tp=%d kv_ptrs=%d aux_ptrs=%d frames=%d",
		net.JoinHostPort(m.DecodeIP, strconv.Itoa(m.DecodePort)), m.Session,
		m.TPRank, m.AttnTPSize, len(m.KVPtrs), len(m.AuxPtrs), m.Frames)
}

// MooncakeTransferInfo is Mooncake's per-room request from a decode rank.
// It has no guard and no literal: its leading frame is the room. The
// documented form has 10 frames; SGLang's receiver requires the first 8 and
// reads the rest if present, and newer releases append an 11th, an
// ABORT_ACK token, so 8 to 11 frames are accepted. A dummy (a decode rank
// that takes no KV) sends empty kv and aux index frames, and then SGLang
// ignores the state indices, as this decoder does.
type MooncakeTransferInfo struct {
	RoomID             int64     `json:"room"`                  // frame 0
	DecodeIP           string    `json:"decode_ip"`             // frame 1
	DecodePort         int       `json:"decode_port"`           // frame 2
	Session            string    `json:"session"`               // frame 3
	KVPageIndices      []int32   `json:"kv_page_indices"`       // frame 4, i32 LE
	AuxIndex           *int64    `json:"aux_index"`             // frame 5; nil for a dummy
	StateIndices       [][]int32 `json:"state_indices"`         // frame 6, pack_int_lists i
	RequiredDstInfoNum int64     `json:"required_dst_info_num"` // frame 7
	DecodePrefixLen    *int64    `json:"decode_prefix_len"`     // frame 8; nil if absent or empty
	DeviceKVIndices    []int32   `json:"device_kv_indices"`     // frame 9, i32 LE; nil if absent or empty
	AbortToken         []byte    `json:"abort_token,omitempty"` // frame 10, opaque
	IsDummy            bool      `json:"is_dummy"`
	Frames             int       `json:"frames"` // 8..11
}

// MooncakeTransferInfo frame counts.
const (
	mooncakeTransferInfoMinFrames = 8
	mooncakeTransferInfoMaxFrames = 11
)

func decodeMooncakeTransferInfo(a *alloc, parts [][]byte) Message {
	r := &reader{parts: parts, a: a}
	m := a.mooncakeTransferInfo.one()
	m.Frames = len(parts)
	m.RoomID = r.int(0, "room")
	m.DecodeIP = r.str(1, "decode_ip")
	m.DecodePort = r.port(2, "decode_port")
	m.Session = r.str(3, "session")
	m.IsDummy = len(parts[4]) == 0 && len(parts[5]) == 0
	if m.IsDummy {
		m.KVPageIndices = []int32{}
	} else {
		m.KVPageIndices = array(r, 4, "kv_page_indices", 4, &r.a.i32)
		aux := r.int(5, "aux_index")
		m.AuxIndex = a.i64.one()
		*m.AuxIndex = aux
		m.StateIndices = packed(r, 6, "state_indices", 4, &r.a.i32, &r.a.i32s)
	}
	m.RequiredDstInfoNum = r.int(7, "required_dst_info_num")
	m.DecodePrefixLen = r.optInt(8, "decode_prefix_len")
	if r.present(9) {
		m.DeviceKVIndices = array(r, 9, "device_kv_indices", 4, &r.a.i32)
	}
	if len(parts) > 10 {
		m.AbortToken = r.bytes(10)
	}
	return r.done(KindMooncakeTransferInfo, m)
}

// Kind returns KindMooncakeTransferInfo.
func (*MooncakeTransferInfo) Kind() Kind { return KindMooncakeTransferInfo }

// Room returns the bootstrap room.
func (m *MooncakeTransferInfo) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the room, decode endpoint and page count.
func (m *MooncakeTransferInfo) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "room=%d decode=%s session=%s pages=%d%s",
		m.RoomID, net.JoinHostPort(m.DecodeIP, strconv.Itoa(m.DecodePort)), m.Session,
		len(m.KVPageIndices), listPreview(m.KVPageIndices))
	if m.AuxIndex != nil {
		fmt.Fprintf(&b, " aux=%d", *m.AuxIndex)
	}
	fmt.Fprintf(&b, " required=%d", m.RequiredDstInfoNum)
	if m.DecodePrefixLen != nil {
		fmt.Fprintf(&b, " prefix=%d", *m.DecodePrefixLen)
	}
	if m.IsDummy {
		b.WriteString(" dummy")
	}
	fmt.Fprintf(&b, " frames=%d", m.Frames)
	return b.String()
}

// statusNames are KVPoll's values (base/conn.py).
var statusNames = [...]string{"Failed", "Bootstrapping", "WaitingForInput", "Transferring", "Success"}

// MooncakeStatus is Mooncake prefill reporting a room's KVPoll status to a
// decode rank: room, status, prefill rank, all ASCII integers. Newer
// releases append a failure reason as a fourth frame; it is accepted too.
type MooncakeStatus struct {
	RoomID      int64  `json:"room"`             // frame 0
	Status      int64  `json:"status"`           // frame 1, KVPoll 0..4
	StatusName  string `json:"status_name"`      // Failed, Bootstrapping, WaitingForInput, Transferring or Success
	PrefillRank int64  `json:"prefill_rank"`     // frame 2
	Reason      string `json:"reason,omitempty"` // frame 3, if any
	Frames      int    `json:"frames"`           // 3 or 4
}

func decodeMooncakeStatus(a *alloc, parts [][]byte) Message {
	r := &reader{parts: parts, a: a}
	m := a.mooncakeStatus.one()
	m.Frames = len(parts)
	m.RoomID = r.int(0, "room")
	m.Status = r.int(1, "status")
	if r.ok() {
		if m.Status < 0 || m.Status >= int64(len(statusNames)) {
			r.fail(1, "status", fmt.Errorf("%d is not a KVPoll value 0..4", m.Status))
		} else {
			m.StatusName = statusNames[m.Status]
		}
	}
	m.PrefillRank = r.int(2, "prefill_rank")
	if len(parts) > 3 {
		m.Reason = r.str(3, "reason")
	}
	return r.done(KindMooncakeStatus, m)
}

// Kind returns KindMooncakeStatus.
func (*MooncakeStatus) Kind() Kind { return KindMooncakeStatus }

// Room returns the room whose status this is.
func (m *MooncakeStatus) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the status by name.
func (m *MooncakeStatus) Summary() string {
	s := fmt.Sprintf("room=%d status=%s prefill_rank=%d", m.RoomID, m.StatusName, m.PrefillRank)
	if m.Reason != "" {
		s += " reason=" + strconv.Quote(m.Reason)
	}
	return s
}

// AuxData is Mooncake prefill sending a room's auxiliary data (the first
// output token and friends) over ZeroMQ rather than RDMA: AUX_DATA, room,
// buffer index, aux index, data length (u32 big-endian, 4 bytes), data.
// The layout is read from SGLang's send_aux_data_to_endpoint and
// _handle_aux_data (mooncake/conn.py); a length that disagrees with the data
// makes the message Unknown, where SGLang logs and drops it.
type AuxData struct {
	RoomID      int64  `json:"room"`         // frame 1
	BufferIndex int64  `json:"buffer_index"` // frame 2
	AuxIndex    int64  `json:"aux_index"`    // frame 3
	Data        []byte `json:"data"`         // frame 5; frame 4 is its length
}

func decodeAuxData(a *alloc, parts [][]byte) Message {
	if len(parts) != 6 {
		return wrongCount(KindAuxData, parts, "AUX_DATA", "6")
	}
	r := &reader{parts: parts, a: a}
	m := &AuxData{RoomID: r.int(1, "room"), BufferIndex: r.int(2, "buffer_index"), AuxIndex: r.int(3, "aux_index")}
	if r.ok() {
		if len(parts[4]) != 4 {
			r.fail(4, "data_length", fmt.Errorf("%d bytes, want 4 (u32 big-endian)", len(parts[4])))
		} else if n := binary.BigEndian.Uint32(parts[4]); uint64(n) != uint64(len(parts[5])) {
			r.fail(4, "data_length", fmt.Errorf("says %d bytes, data frame has %d", n, len(parts[5])))
		}
	}
	m.Data = r.bytes(5)
	return r.done(KindAuxData, m)
}

// Kind returns KindAuxData.
func (*AuxData) Kind() Kind { return KindAuxData }

// Room returns the room the data belongs to.
func (m *AuxData) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the indices and the data size.
func (m *AuxData) Summary() string {
	return fmt.Sprintf("room=%d buffer=%d aux=%d bytes=%d", m.RoomID, m.BufferIndex, m.AuxIndex, len(m.Data))
}

// ChunkReady is Mooncake prefill telling decode that a non-last staging
// chunk has landed (staging mode only): CHUNK_READY, room, chunk index,
// first page, page count, session, and in newer releases the writer (the
// prefill rank's unique id). The layout is read from SGLang's
// _send_chunk_ready (mooncake/conn.py), so 6 or 7 frames are accepted.
type ChunkReady struct {
	RoomID    int64  `json:"room"`             // frame 1
	Chunk     int64  `json:"chunk"`            // frame 2
	PageStart int64  `json:"page_start"`       // frame 3
	NumPages  int64  `json:"num_pages"`        // frame 4
	Session   string `json:"session"`          // frame 5
	Writer    string `json:"writer,omitempty"` // frame 6, if any
	Frames    int    `json:"frames"`           // 6 or 7
}

func decodeChunkReady(a *alloc, parts [][]byte) Message {
	if n := len(parts); n != 6 && n != 7 {
		return wrongCount(KindChunkReady, parts, "CHUNK_READY", "6 or 7")
	}
	r := &reader{parts: parts, a: a}
	m := &ChunkReady{Frames: len(parts), RoomID: r.int(1, "room"), Chunk: r.int(2, "chunk"),
		PageStart: r.int(3, "page_start"), NumPages: r.int(4, "num_pages"), Session: r.str(5, "session")}
	if len(parts) > 6 {
		m.Writer = r.str(6, "writer")
	}
	return r.done(KindChunkReady, m)
}

// Kind returns KindChunkReady.
func (*ChunkReady) Kind() Kind { return KindChunkReady }

// Room returns the room the chunk belongs to.
func (m *ChunkReady) Room() (int64, bool) { return m.RoomID, true }

// Summary renders the chunk.
func (m *ChunkReady) Summary() string {
	s := fmt.Sprintf("room=%d chunk=%d pages=%d+%d session=%s", m.RoomID, m.Chunk, m.PageStart, m.NumPages, m.Session)
	if m.Writer != "" {
		s += " writer=" + m.Writer
	}
	return s
}
