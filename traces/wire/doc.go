// Package wire decodes the ZeroMQ control messages that SGLang's NIXL and
// Mooncake KV-transfer backends exchange between prefill and decode engines
// into typed Go values.
//
// The input is one multipart message, a [][]byte of frame bodies as ZeroMQ
// delivered them; the package knows nothing of pcap, TCP or ZMTP framing.
// Every message is a list of raw frames: integers are ASCII decimal unless a
// field says otherwise, index arrays are little-endian i32/u32/u64, and
// nested lists use SGLang's pack_int_lists layout (see below). The layouts
// are those of ROOM-LIFECYCLE.md, section "Wire formats" (SGLang a4ffb996,
// python/sglang/srt/disaggregation/).
//
// # Classification
//
// [Decode] never fails. It classifies a message in three steps and stops at
// the first that decides:
//
//  1. The leading frame. The literals NixlMsgGuard, ABORT, ABORT_ACK,
//     WATERMARK, STAGING_REQ, STAGING_RSP, AUX_DATA and CHUNK_READY and the
//     literal None (a Mooncake registration, which carries no guard) each
//     name exactly one family. Behind NixlMsgGuard, a second frame of None
//     marks a registration; anything else is a TransferInfo.
//  2. The frame count, within the family: TransferInfo has 8 to 11 frames
//     (11 today, 8 in 2025 releases), ABORT 4 or 2, ABORT_ACK 3 or 2, and so
//     on; see each type. A count outside a family's range makes the
//     message [Unknown] with [ErrFrameCount], never a guess at another kind.
//  3. The content, for the only family without a literal: a leading frame
//     that is an ASCII decimal integer is a Mooncake room. Three frames (or
//     four, the newer form with a failure reason) are a [MooncakeStatus],
//     8 to 11 frames a [MooncakeTransferInfo], and their fields are then
//     validated as in any other form. Nothing can match twice: no literal
//     is an integer, and the two integer-led forms have disjoint frame
//     counts.
//
// Once a form is chosen every field is validated; the first field that does
// not decode makes the whole message [Unknown], with Form set to the kind it
// was identified as and a [*FieldError] naming the frame and field. A
// half-decoded message is never returned.
//
// # Strictness
//
// The decoder accepts exactly what SGLang's senders produce and is stricter
// than its receivers: integers are an optional '-' and decimal digits
// (Python's int() would also take '+', spaces and underscores, which str()
// never writes), strings must be ASCII (as .decode("ascii") requires), ports
// must be in 0..65535, array frames must be a whole number of elements, and
// pack_int_lists must account for every byte (Python silently ignores
// trailing bytes and truncates a short last list).
//
// # pack_int_lists
//
// An empty frame is an empty outer list. Otherwise the frame starts with a
// header of n+1 little-endian u32: n, then the byte length of each of the n
// inner lists, followed by the lists' elements back to back (u64 for format
// Q, i32 for i, u32 for I). Lengths are checked against the frame before
// anything is allocated, so a forged header costs nothing; a decoded value
// is never more than about six times the size of its frames (a frame of
// empty inner lists, 4 bytes each, decodes to 24-byte slice headers).
//
// # Memory
//
// Decoded values never alias the input, except [Unknown].Parts, which is the
// caller's slice: a caller that reuses frame buffers must copy it.
//
// [Decode] allocates every value on its own. A [Decoder] decodes a stream
// of messages to the same values while amortizing allocation over many of
// them (no allocation per common message), and with Decoder.Reuse it takes
// each value back at the next call, for callers that only look at one
// message at a time.
package wire
