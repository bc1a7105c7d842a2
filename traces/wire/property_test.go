package wire

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

func nonNilLists[T any](v [][]T) [][]T {
	out := make([][]T, len(v))
	for i := range v {
		out[i] = nonNil(v[i])
	}
	return out
}

// TestPropertyTransferInfo: any TransferInfo SGLang could send, in any of
// its frame counts, decodes to exactly the values encoded.
func TestPropertyTransferInfo(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 200
	properties := gopter.NewProperties(params)
	properties.Property("TransferInfo round-trips", prop.ForAll(
		func(room int64, port int, agent string, pages []int32, aux, required int64, state [][]int32, prefix int64, dummy bool, frames int) string {
			var statePart []byte
			if len(state) > 0 {
				statePart = packI32Lists(state...)
			}
			p := nixlTransferInfo(room, pages, statePart, fmt.Sprint(prefix), map[bool]string{true: "1", false: "0"}[dummy])
			p[3], p[4], p[6], p[7] = asc(int64(port)), []byte(agent), asc(aux), asc(required)
			p = p[:frames]
			want := &TransferInfo{RoomID: room, DecodeIP: "10.0.0.2", DecodePort: port, AgentName: agent,
				KVPageIndices: nonNil(pages), AuxIndex: aux, RequiredDstInfoNum: required, Frames: frames}
			if frames > 8 {
				want.StateIndices = nonNilLists(state)
			}
			if frames > 9 {
				want.DecodePrefixLen = &prefix
			}
			if frames > 10 {
				want.IsDummy = dummy
			} else {
				want.IsDummy = len(pages) == 0 && (want.DecodePrefixLen == nil || prefix == 0)
			}
			return cmp.Diff(Message(want), Decode(p))
		},
		gen.Int64(), gen.IntRange(0, 65535), gen.AlphaString(), gen.SliceOf(gen.Int32()),
		gen.Int64(), gen.Int64Range(0, 64), gen.SliceOf(gen.SliceOf(gen.Int32())), gen.Int64(), gen.Bool(),
		gen.IntRange(8, 11),
	))
	properties.Property("MooncakeTransferInfo round-trips", prop.ForAll(
		func(room int64, pages []int32, aux int64, state [][]int32, required int64, device []int32) string {
			if len(pages) == 0 {
				pages = []int32{0} // an empty page list with an aux index is not a dummy; keep to real ones
			}
			p := msg(room, "fd00::1", 42000, "sess", i32s(pages...), aux, packI32Lists(state...), required, "", i32s(device...))
			want := &MooncakeTransferInfo{RoomID: room, DecodeIP: "fd00::1", DecodePort: 42000, Session: "sess",
				KVPageIndices: pages, AuxIndex: &aux, StateIndices: nonNilLists(state), RequiredDstInfoNum: required, Frames: 10}
			if len(device) > 0 {
				want.DeviceKVIndices = device
			}
			return cmp.Diff(Message(want), Decode(p))
		},
		gen.Int64(), gen.SliceOf(gen.Int32()), gen.Int64(), gen.SliceOf(gen.SliceOf(gen.Int32())), gen.Int64(), gen.SliceOf(gen.Int32()),
	))
	properties.Property("pack_int_lists Q round-trips", prop.ForAll(
		func(lists [][]uint64) string {
			got, err := decodePacked(&unpooled.u64, &unpooled.u64s, packU64Lists(lists...), 8)
			if err != nil {
				return err.Error()
			}
			return cmp.Diff(nonNilLists(lists), got)
		},
		gen.SliceOf(gen.SliceOf(gen.UInt64())),
	))
	properties.Property("any truncation of a packed list is rejected", prop.ForAll(
		func(lists [][]int32, cut int) bool {
			b := packI32Lists(lists...)
			if len(b) == 0 {
				return true
			}
			cut %= len(b)
			_, err := decodePacked(&unpooled.i32, &unpooled.i32s, b[:cut], 4)
			return (cut == 0) == (err == nil) // b[:0] is the empty outer list
		},
		gen.SliceOf(gen.SliceOf(gen.Int32())), gen.IntRange(0, 1<<20),
	))
	properties.TestingRun(t)
}
