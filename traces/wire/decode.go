package wire

import "fmt"

// Decode classifies and decodes one multipart message. It never fails: a
// message that matches no known form comes back as *Unknown with the parts
// and the reason it matched nothing. The package documentation lists the
// classification rules.
func Decode(parts [][]byte) Message {
	return decode(unpooled, parts)
}

func decode(a *alloc, parts [][]byte) Message {
	if len(parts) == 0 {
		return unknown("", parts, ErrNoParts)
	}
	// string(b) in a switch does not allocate.
	switch string(parts[0]) {
	case nixlGuard:
		if len(parts) > 1 && string(parts[1]) == noneLiteral {
			return decodeRegistration(a, parts)
		}
		return decodeTransferInfo(a, parts)
	case noneLiteral:
		return decodeMooncakeRegistration(a, parts)
	case abortLiteral:
		return decodeAbort(a, parts)
	case abortAckLit:
		return decodeAbortAck(a, parts)
	case watermarkLit:
		return decodeWatermark(a, parts)
	case stagingReqLit:
		return decodeStagingReq(a, parts)
	case stagingRspLit:
		return decodeStagingRsp(a, parts)
	case auxDataLit:
		return decodeAuxData(a, parts)
	case chunkReadyLit:
		return decodeChunkReady(a, parts)
	}
	if _, err := parseInt(parts[0]); err == nil {
		return decodeIntegerLed(a, parts)
	}
	return unknown("", parts, fmt.Errorf("%w: leading frame %s is no SGLang literal and no room", ErrUnrecognized, clip(parts[0])))
}

// decodeIntegerLed tells apart the two Mooncake forms that start with the
// room instead of a literal, by frame count.
func decodeIntegerLed(a *alloc, parts [][]byte) Message {
	switch n := len(parts); {
	case n == 3 || n == 4:
		return decodeMooncakeStatus(a, parts)
	case n >= mooncakeTransferInfoMinFrames && n <= mooncakeTransferInfoMaxFrames:
		return decodeMooncakeTransferInfo(a, parts)
	default:
		return unknown("", parts, fmt.Errorf("%w: leading frame is an integer, but %d frames fit neither a Mooncake status (3 or 4) nor a Mooncake TransferInfo (%d..%d)",
			ErrUnrecognized, n, mooncakeTransferInfoMinFrames, mooncakeTransferInfoMaxFrames))
	}
}

// wrongCount is *Unknown of kind for a form, named name, that has want
// frames ("6 or 7", "13..24") and came with another count.
func wrongCount(kind Kind, parts [][]byte, name, want string) Message {
	return unknown(kind, parts, fmt.Errorf("%w: %s has %s frames, got %d", ErrFrameCount, name, want, len(parts)))
}
