package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHistoryTableInReadme runs `roomspec history` on the SGLang repository
// named by ROOMSPEC_SGLANG (a git directory: SGLang's code is never part of
// this repository) and holds the README's two tables equal to what it
// prints.
// It takes minutes: every commit runs 1000 cases per property.
func TestHistoryTableInReadme(t *testing.T) {
	gitDir, _, _ := strings.Cut(os.Getenv("ROOMSPEC_SGLANG"), "@")
	if gitDir == "" {
		t.Skip("ROOMSPEC_SGLANG is not set (GITDIR or GITDIR@COMMIT of an SGLang repository runs SGLang's real code)")
	}
	if _, err := os.Stat(gitDir); err != nil {
		t.Skipf("ROOMSPEC_SGLANG: %v", err)
	}
	var out, errOut bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errOut}, []string{"history", gitDir})
	require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "\nGATE: passes: none of ", "upstream's own history makes nothing worse, commit after commit")
	// The table of commits, then the checker's counterexamples on the
	// real code.
	tables := strings.SplitN(out.String(), "\n\n", 3)
	require.Len(t, tables, 3, "%s", out.String())
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	for _, table := range tables[:2] {
		assert.Contains(t, string(readme), "```\n"+table+"\n", "README's real-code table is stale: paste `roomspec history GITDIR`'s tables")
	}
}
