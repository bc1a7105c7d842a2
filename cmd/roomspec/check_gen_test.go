package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/tla"
)

// brokenRoom writes Room.tla with its first action whose text contains
// old rewritten by replacing old with new, beside fixed.cfg, and returns
// the module's path and the lines the action spans.
func brokenRoom(t *testing.T, old, new string) (string, int, int) {
	src, err := os.ReadFile("../../spec/Room.tla")
	require.NoError(t, err)
	m, err := tla.ParseFile("Room.tla", src)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(src), "\n")
	for i, u := range m.Units {
		d, ok := u.(*tla.OpDef)
		if !ok || len(d.Params) == 0 {
			continue
		}
		end := len(lines)
		if i+1 < len(m.Units) {
			end = m.Units[i+1].Pos().Line - 1
		}
		text := strings.Join(lines[d.At.Line-1:end], "")
		if !strings.Contains(text, old) {
			continue
		}
		out := strings.Join(lines[:d.At.Line-1], "") + strings.Replace(text, old, new, 1) + strings.Join(lines[end:], "")
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Room.tla"), []byte(out), 0o644))
		c, err := os.ReadFile("../../spec/fixed.cfg")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Room.cfg"), c, 0o644))
		return filepath.Join(dir, "Room.tla"), d.At.Line, end
	}
	t.Fatalf("no action of Room.tla contains %q (update the test to the spec)", old)
	return "", 0, 0
}

// TestCheckReportsAtTheAction: check runs gen's typing and assignment
// analysis first, so a variable an action leaves unassigned and a string
// where an integer belongs are reported at the action and at the
// expression (exit 2), not as an incomplete successor of Next or a TypeOK
// violation after a long trace.
func TestCheckReportsAtTheAction(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, msg string
	}{
		{"missing assignment", ", pages_released >>", " >>", "does not assign pages_released'"},
		{"string for an integer", "outstanding[r] + 1 ELSE 0", `outstanding[r] + 1 ELSE "zero"`, "where"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, from, to := brokenRoom(t, tc.old, tc.new)
			var out, errOut bytes.Buffer
			code := run(&env{stdout: &out, stderr: &errOut}, []string{"check", path})
			assert.Equal(t, exitBadInput, code, "%s", errOut.String())
			m := regexp.MustCompile(`Room\.tla:(\d+):(\d+): (.*)`).FindStringSubmatch(errOut.String())
			require.NotNil(t, m, "%s", errOut.String())
			line, _ := strconv.Atoi(m[1])
			assert.True(t, line >= from && line <= to, "reported at line %d, the action spans %d-%d: %s", line, from, to, m[0])
			assert.Contains(t, m[3], tc.msg)
			assert.Contains(t, m[3], "gen's analysis")
		})
	}
}
