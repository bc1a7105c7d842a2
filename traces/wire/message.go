package wire

import (
	"errors"
	"fmt"
)

// Kind names a message form. It is the "kind" the CLI prints.
type Kind string

// The kinds Decode produces.
const (
	KindRegistration         Kind = "Registration"
	KindTransferInfo         Kind = "TransferInfo"
	KindAbort                Kind = "Abort"
	KindAbortAck             Kind = "AbortAck"
	KindWatermark            Kind = "Watermark"
	KindStagingReq           Kind = "StagingReq"
	KindStagingRsp           Kind = "StagingRsp"
	KindMooncakeRegistration Kind = "MooncakeRegistration"
	KindMooncakeTransferInfo Kind = "MooncakeTransferInfo"
	KindMooncakeStatus       Kind = "MooncakeStatus"
	KindAuxData              Kind = "AuxData"
	KindChunkReady           Kind = "ChunkReady"
	KindUnknown              Kind = "Unknown"
)

// Direction says which engine sends a kind of message to which.
type Direction string

// Directions of travel. Decode talks to prefill's per-rank PULL port,
// prefill to decode's.
const (
	DecodeToPrefill Direction = "decode->prefill"
	PrefillToDecode Direction = "prefill->decode"
)

var directions = map[Kind]Direction{
	KindRegistration:         DecodeToPrefill,
	KindTransferInfo:         DecodeToPrefill,
	KindAbort:                DecodeToPrefill,
	KindWatermark:            DecodeToPrefill,
	KindStagingRsp:           DecodeToPrefill,
	KindMooncakeRegistration: DecodeToPrefill,
	KindMooncakeTransferInfo: DecodeToPrefill,
	KindAbortAck:             PrefillToDecode,
	KindStagingReq:           PrefillToDecode,
	KindMooncakeStatus:       PrefillToDecode,
	KindAuxData:              PrefillToDecode,
	KindChunkReady:           PrefillToDecode,
}

// Direction returns the direction messages of kind k travel in, or "" for
// KindUnknown and for strings that are no kind. A capture whose connection
// contradicts it has its endpoints the wrong way round, or is not SGLang.
func (k Kind) Direction() Direction { return directions[k] }

// Message is one decoded multipart message.
type Message interface {
	// Kind names the form the message matched.
	Kind() Kind
	// Room returns the bootstrap room when the message carries one.
	Room() (room int64, ok bool)
	// Summary is a one-line rendering of the main fields for text output.
	Summary() string
}

// Sentinel errors, found with errors.Is on Unknown.Err.
var (
	// ErrNoParts: the message had no frames at all.
	ErrNoParts = errors.New("message has no parts")
	// ErrUnrecognized: the leading frame matches no known form.
	ErrUnrecognized = errors.New("matches no known form")
	// ErrFrameCount: the leading frame names a form but the frame count is
	// not one of that form's.
	ErrFrameCount = errors.New("wrong frame count")
	// ErrMalformed: the form is known but a field does not decode. The
	// error is a *FieldError.
	ErrMalformed = errors.New("malformed field")
)

// FieldError reports the first field of an identified form that failed to
// decode.
type FieldError struct {
	Frame int    // 0-based index of the frame in the message
	Field string // the field's name, as in the Go struct's JSON tag
	Err   error  // what is wrong with it
}

// Error names the frame and field, then what is wrong.
func (e *FieldError) Error() string {
	return fmt.Sprintf("frame %d (%s): %v", e.Frame, e.Field, e.Err)
}

// Unwrap returns the detail error.
func (e *FieldError) Unwrap() error { return e.Err }

// Is makes every FieldError match ErrMalformed.
func (e *FieldError) Is(target error) bool { return target == ErrMalformed }

// Unknown is a message that matched no form, or whose fields did not decode.
type Unknown struct {
	// Form is the kind the message was identified as before a field or
	// the frame count failed, or "" when nothing matched at all.
	Form Kind `json:"form,omitempty"`
	// Reason is Err's text, for JSON output.
	Reason string `json:"reason"`
	// Err wraps one of the sentinel errors.
	Err error `json:"-"`
	// Parts is the message as given to Decode (not copied); the CLI prints
	// the parts of every message itself.
	Parts [][]byte `json:"-"`
}

// Kind returns KindUnknown.
func (*Unknown) Kind() Kind { return KindUnknown }

// Room reports no room: a room read from a message that failed to decode
// would be a guess.
func (*Unknown) Room() (int64, bool) { return 0, false }

// Summary returns the form, if any, the frame count and the reason.
func (u *Unknown) Summary() string {
	if u.Form != "" {
		return fmt.Sprintf("malformed %s (%d frames): %s", u.Form, len(u.Parts), u.Reason)
	}
	return fmt.Sprintf("%d frames: %s", len(u.Parts), u.Reason)
}

func unknown(form Kind, parts [][]byte, err error) *Unknown {
	return &Unknown{Form: form, Reason: err.Error(), Err: err, Parts: parts}
}
