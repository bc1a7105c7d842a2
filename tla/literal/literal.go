// Package literal writes TLA+ string literals. It imports nothing of the
// toolchain, so that the packages below the parser (values, the runtime
// of compiled specs) print a string as the parser reads it without
// depending on the parser.
package literal

import "strings"

// Quote renders s as a TLA+ string literal. Only the escapes TLA+ knows are
// used (\" \\ \n \t \r \f); every other byte is written as is.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
