package spec

import (
	"fmt"
	"strings"
)

// Describe returns a bundled variant's description in one line: its
// configuration's header comment (which SGLang commits or which code it
// models, and how it behaves), without the variant's name and the
// "Checked with" line.
func Describe(variant string) (string, error) {
	v, err := Load(variant)
	if err != nil {
		return "", fmt.Errorf("spec: %w", err)
	}
	var words []string
	for _, line := range strings.Split(string(v.Text), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), `\*`)
		if !ok {
			break // the header ends at the first line that is no comment
		}
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, "Checked with:") {
			continue
		}
		if len(words) == 0 {
			rest = strings.TrimSpace(strings.TrimPrefix(rest, variant+":"))
		}
		words = append(words, strings.Fields(rest)...)
	}
	return strings.Join(words, " "), nil
}
