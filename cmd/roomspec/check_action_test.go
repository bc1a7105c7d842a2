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
// the module's path, the action's name and the lines it spans.
func brokenRoom(t *testing.T, old, new string) (string, string, int, int) {
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
		return filepath.Join(dir, "Room.tla"), d.Name, d.At.Line, end
	}
	t.Fatalf("no action of Room.tla contains %q (update the test to the spec)", old)
	return "", "", 0, 0
}

// TestCheckBlamesTheAction: a successor an action leaves incomplete is
// reported at that action's definition, by name, not at the next-state
// relation; an error evaluating an invariant (a string where TypeOK wants
// a number) is reported at the invariant, with the behaviour that led to
// the state, whose last step is the action that made it, as TLC does
// (exit 2 both). check runs no generator.
func TestCheckBlamesTheAction(t *testing.T) {
	t.Run("missing assignment", func(t *testing.T) {
		path, action, from, to := brokenRoom(t, ", pages_released >>", " >>")
		var out, errOut bytes.Buffer
		code := run(&env{stdout: &out, stderr: &errOut}, []string{"check", path})
		assert.Equal(t, exitBadInput, code, "%s", out.String())
		m := regexp.MustCompile(`Room\.tla:(\d+):(\d+): (.*)`).FindStringSubmatch(out.String())
		require.NotNil(t, m, "%s", out.String())
		line, _ := strconv.Atoi(m[1])
		assert.True(t, line >= from && line <= to, "reported at line %d, the action spans %d-%d: %s", line, from, to, m[0])
		assert.Contains(t, m[3], "the action "+action+" does not assign pages_released'")
	})
	t.Run("string for an integer", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "Typed.tla")
		require.NoError(t, os.WriteFile(path, []byte("---- MODULE Typed ----\nEXTENDS Naturals\nVARIABLE n\n"+
			"TypeOK == n \\in Nat\nInit == n = 0\nInc == n < 2 /\\ n' = n + 1\nOverflow == n = 2 /\\ n' = \"many\"\n"+
			"Next == Inc \\/ Overflow\n====\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Typed.cfg"), []byte("INIT Init\nNEXT Next\nINVARIANT TypeOK\n"), 0o644))
		var out, errOut bytes.Buffer
		code := run(&env{stdout: &out, stderr: &errOut}, []string{"check", path})
		assert.Equal(t, exitBadInput, code, "%s", out.String())
		assert.Regexp(t, `Error: evaluating invariant TypeOK: .*Typed.tla:4:13: cannot test whether "many" is in Nat`, out.String())
		assert.Contains(t, out.String(), "Error: The behavior up to this point is:")
		states := regexp.MustCompile(`State \d+: <(\w+)`).FindAllStringSubmatch(out.String(), -1)
		require.NotEmpty(t, states, "%s", out.String())
		assert.Equal(t, "Overflow", states[len(states)-1][1], "the last step is the action that left TypeOK")
	})
}
