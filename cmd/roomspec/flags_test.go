package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// flagHelp returns the -help text of command's flag name: its line and
// the lines of its usage.
func flagHelp(t *testing.T, command, name string) string {
	t.Helper()
	var out bytes.Buffer
	if code := run(&env{stdout: &out, stderr: &out}, []string{command, "-help"}); code != exitOK {
		t.Fatalf("roomspec %s -help: exit %d", command, code)
	}
	lines := strings.Split(out.String(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  -"+name+" ") || l == "  -"+name {
			j := i + 1
			for j < len(lines) && strings.HasPrefix(lines[j], "    \t") {
				j++
			}
			return strings.Join(lines[i:j], "\n")
		}
	}
	t.Fatalf("roomspec %s -help has no -%s:\n%s", command, name, out.String())
	return ""
}

// TestJudgingFlagsShared: the commands that judge rooms share one
// definition of each judging flag (its usage and default); test -captures
// shares -skew.
func TestJudgingFlagsShared(t *testing.T) {
	for _, name := range []string{"variant", "log", "log-endpoint", "deadline", "idle", "skew", "max-unseen", "max-states", "port"} {
		if r, w := flagHelp(t, "replay", name), flagHelp(t, "watch", name); r != w {
			t.Errorf("-%s: replay's\n%s\nwatch's\n%s", name, r, w)
		}
	}
	if r, c := flagHelp(t, "replay", "skew"), flagHelp(t, "test", "skew"); r != c {
		t.Errorf("-skew: replay's\n%s\ntest's\n%s", r, c)
	}
}

// TestSkewOption: -skew 0 keeps the capture's order (a negative skew for
// the judge, whose zero is its default), any other value is the skew.
func TestSkewOption(t *testing.T) {
	if got := skewOption(0); got >= 0 {
		t.Errorf("skewOption(0) = %v, want negative (no reordering)", got)
	}
	if got := skewOption(3 * time.Millisecond); got != 3*time.Millisecond {
		t.Errorf("skewOption(3ms) = %v", got)
	}
}
