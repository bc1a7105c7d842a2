package wire

import "strconv"

// The summaries of the commonest kinds are built with appends rather than
// fmt: the CLI renders one per message, and fmt's reflection made the
// text output several times slower than decoding.

// appendHostPort appends host:port as net.JoinHostPort writes it.
func appendHostPort(b []byte, host string, port int) []byte {
	for i := 0; i < len(host); i++ {
		if host[i] == ':' {
			b = append(b, '[')
			b = append(b, host...)
			b = append(b, ']', ':')
			return strconv.AppendInt(b, int64(port), 10)
		}
	}
	b = append(b, host...)
	b = append(b, ':')
	return strconv.AppendInt(b, int64(port), 10)
}

// appendPreview appends listPreview(v): short lists as fmt.Sprint shows
// them ("[1 2 3]"), long ones not at all.
func appendPreview[T elem](b []byte, v []T) []byte {
	if len(v) == 0 || len(v) > maxSummaryList {
		return b
	}
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}
