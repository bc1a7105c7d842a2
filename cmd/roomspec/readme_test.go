package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeFirstCommand: the README's first command prints what the README
// says it prints (the summary and the table of aborted rooms), and exits 1.
func TestReadmeFirstCommand(t *testing.T) {
	var out bytes.Buffer
	code := run(&env{stdout: &out, stderr: &bytes.Buffer{}}, []string{"replay",
		"-variant", "fork-90a52f44a", "-deadline", "2s",
		"-log", "../../traces/testdata/scenarios/storm-fork.events.jsonl",
		"../../traces/testdata/scenarios/storm-fork.pcap"})
	assert.Equal(t, exitViolation, code)
	parts := strings.SplitN(out.String(), "\n\n", 3)
	require.Len(t, parts, 3)
	shown := "```\n" + parts[0] + "\n\n" + parts[1] + "\n```"
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), shown, "README's replay output is stale")
	assert.Contains(t, string(readme), "go run ./cmd/roomspec replay -variant fork-90a52f44a -deadline 2s \\\n    -log traces/testdata/scenarios/storm-fork.events.jsonl traces/testdata/scenarios/storm-fork.pcap")
}
