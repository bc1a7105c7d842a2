package tla

import (
	"sort"
	"strings"
)

// Doc returns the comments that document n: the block of comments that ends
// on the line just before n starts, each comment starting on the line after
// the previous one ends (no blank line or code in between) with nothing
// before it on its line, in source order.
// This is where structured annotations such as
//
//	\* @action: implementation scheduler
//	Poll(q) == ...
//
// are written. Doc returns nil when there is no such block.
func (m *Module) Doc(n Node) []*Comment {
	line := n.Pos().Line
	cs := m.Comments
	// i is the first comment starting at or after n's line.
	i := sort.Search(len(cs), func(i int) bool { return cs[i].At.Line >= line })
	want := line - 1
	j := i
	for j > 0 {
		c := cs[j-1]
		if c.end() != want || !c.ownLine {
			break
		}
		j--
		want = c.At.Line - 1
	}
	if j == i {
		return nil
	}
	return cs[j:i]
}

// end returns the line on which c ends.
func (c *Comment) end() int { return c.At.Line + strings.Count(c.Text, "\n") }

// Annotations returns the `@key: value` lines of the comments, in order:
// for "\* @models: prefill.py Queue.add" the pair is
// {"models", "prefill.py Queue.add"}. Lines that are not annotations are
// skipped.
func Annotations(cs []*Comment) [][2]string {
	var out [][2]string
	for _, c := range cs {
		for _, line := range strings.Split(c.Text, "\n") {
			line = strings.TrimSpace(line)
			line = strings.TrimPrefix(line, `\*`)
			line = strings.TrimPrefix(line, "(*")
			line = strings.TrimSuffix(line, "*)")
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "@") {
				continue
			}
			key, val, ok := strings.Cut(line[1:], ":")
			if !ok || key == "" || strings.ContainsAny(key, " \t") {
				continue
			}
			out = append(out, [2]string{key, strings.TrimSpace(val)})
		}
	}
	return out
}
