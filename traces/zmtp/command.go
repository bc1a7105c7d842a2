package zmtp

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// errCommand marks a command body that does not parse.
var errCommand = errors.New("malformed command")

// knownCommand reports whether name is a command of ZMTP 3.0/3.1 or of its
// standard mechanisms. Resynchronization only believes frames that are
// messages or known commands; normal decoding keeps unknown names.
func knownCommand(name []byte) bool {
	switch string(name) {
	case "READY", "ERROR", "PING", "PONG", "SUBSCRIBE", "CANCEL",
		"HELLO", "WELCOME", "INITIATE", "MESSAGE":
		return true
	}
	return false
}

// parseCommand decodes a command body (name length, name, data). The
// returned Command owns its bytes. On error the Command still carries what
// was decoded, so the caller can report both.
func parseCommand(body []byte) (Command, error) {
	if len(body) == 0 {
		return Command{}, fmt.Errorf("%w: empty body", errCommand)
	}
	n := int(body[0])
	if 1+n > len(body) {
		return Command{Data: clone(body)}, fmt.Errorf("%w: name length %d exceeds body of %d bytes", errCommand, n, len(body))
	}
	c := Command{Name: string(body[1 : 1+n]), Data: clone(body[1+n:])}
	data := c.Data
	var err error
	switch c.Name {
	case "READY", "INITIATE":
		c.Properties, err = parseMetadata(data)
	case "ERROR":
		if len(data) < 1 || 1+int(data[0]) > len(data) {
			err = fmt.Errorf("%w: ERROR reason does not fit its %d bytes", errCommand, len(data))
			break
		}
		c.Reason = string(data[1 : 1+int(data[0])])
	case "PING":
		if len(data) < 2 {
			err = fmt.Errorf("%w: PING of %d bytes has no TTL", errCommand, len(data))
			break
		}
		c.TTL = binary.BigEndian.Uint16(data)
		c.Context = data[2:]
	case "PONG":
		c.Context = data
	case "SUBSCRIBE", "CANCEL":
		c.Topic = data
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", c.Name, err)
	}
	return c, err
}

// parseMetadata decodes READY/INITIATE properties: a name length byte, the
// name, a 4-byte big-endian value length and the value, repeated. It returns
// the properties decoded before any error.
func parseMetadata(b []byte) (map[string]string, error) {
	props := make(map[string]string)
	for len(b) > 0 {
		n := int(b[0])
		if n == 0 {
			return props, fmt.Errorf("%w: empty property name", errCommand)
		}
		if 1+n+4 > len(b) {
			return props, fmt.Errorf("%w: property header needs %d bytes, %d left", errCommand, 1+n+4, len(b))
		}
		name := string(b[1 : 1+n])
		b = b[1+n:]
		vlen := binary.BigEndian.Uint32(b)
		b = b[4:]
		if uint64(vlen) > uint64(len(b)) {
			return props, fmt.Errorf("%w: property %q value of %d bytes, %d left", errCommand, name, vlen, len(b))
		}
		props[name] = string(b[:vlen])
		b = b[vlen:]
	}
	return props, nil
}

func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
