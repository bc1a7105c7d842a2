package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/internal/golden"
)

// checkGolden compares got with testdata/NAME (go test -update rewrites
// it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// TestVerdictTable holds the verdict table of the bundled Room.tla and every
// counterexample: `roomspec check` with no arguments.
func TestVerdictTable(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errb}, []string{"check"})
	require.Empty(t, errb.String())
	assert.Equal(t, exitViolation, code, "shipped variants violate properties")
	checkGolden(t, "verdicts.golden", out.Bytes())

	// The README shows the table exactly as the command prints it.
	table := strings.SplitN(out.String(), "\n\n", 3)[1] + "\n"
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```\n"+table+"```",
		"README's verdict table is stale: paste the table printed by `go run ./cmd/roomspec check`")
}

// TestVerdictTableInterpreted: the verdict table is the same whether states
// are computed by the compiled model (the default) or the interpreter.
func TestVerdictTableInterpreted(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errb}, []string{"check", "-interpret"})
	require.Empty(t, errb.String())
	assert.Equal(t, exitViolation, code)
	checkGolden(t, "verdicts.golden", out.Bytes())
}

// TestDiagram holds the room-status diagram, and checks that the README
// shows exactly what `roomspec diagram` prints.
func TestDiagram(t *testing.T) {
	var out bytes.Buffer
	code := run(&env{stdout: &out, stderr: &bytes.Buffer{}}, []string{"diagram"})
	require.Equal(t, exitOK, code)
	checkGolden(t, "diagram.mermaid.golden", out.Bytes())
	var dot bytes.Buffer
	require.Equal(t, exitOK, run(&env{stdout: &dot, stderr: &bytes.Buffer{}}, []string{"diagram", "-format", "dot"}))
	checkGolden(t, "diagram.dot.golden", dot.Bytes())

	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```mermaid\n"+out.String()+"```",
		"README's diagram is stale: paste the output of `go run ./cmd/roomspec diagram`")
	assert.True(t, strings.HasPrefix(out.String(), "stateDiagram-v2\n"))
}
