package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ofItfScript reads ITF traces with Quint's own ofItf and prints, per
// trace, its number of states, its loop, and whether every state became a
// Quint record.
const ofItfScript = `
const { ofItf } = require('@informalsystems/quint/dist/src/itf');
const fs = require('fs');
for (const f of process.argv.slice(1)) {
  const itf = JSON.parse(fs.readFileSync(f, 'utf8'));
  const exs = ofItf(itf);
  const recs = exs.every(e => e.kind === 'app' && e.opcode === 'Rec');
  console.log(exs.length + ' states, loop ' + itf.loop + (recs ? ', records' : ', NOT records'));
}
`

// TestITFQuint loads the lasso roomspec writes for FairWF with Quint's
// ofItf (npm package @informalsystems/quint): every state must become a
// record and the loop must be kept. The test needs node and quint: set
// ROOMSPEC_QUINT_NODE_PATH to the node_modules folder that holds quint
// (default: npm's global root).
func TestITFQuint(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the check of ITF traces with Quint's ofItf")
	}
	nodePath := os.Getenv("ROOMSPEC_QUINT_NODE_PATH")
	if nodePath == "" {
		if out, err := exec.Command("npm", "root", "-g").Output(); err == nil {
			nodePath = strings.TrimSpace(string(out))
		}
	}
	if _, err := os.Stat(filepath.Join(nodePath, "@informalsystems", "quint", "dist", "src", "itf.js")); err != nil {
		t.Skipf("Quint (npm @informalsystems/quint) is not installed in %q (set ROOMSPEC_QUINT_NODE_PATH): skipping the check with Quint's ofItf", nodePath)
	}
	m := loadModel(t, filepath.Join("testdata", "idioms"), "FairWF", "FairWF.cfg")
	r := Check(context.Background(), m, Options{Workers: 1})
	require.Equal(t, Violation, r.Outcome)
	data, err := ITF("FairWF.tla", "Live is violated", m.Spec.Vars, r.Trace, r.LoopStart)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "FairWF.itf.json")
	require.NoError(t, os.WriteFile(file, data, 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "-e", ofItfScript, file)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, fmt.Sprintf("%d states, loop %d, records", len(r.Trace), r.LoopStart), strings.TrimSpace(string(out)))
}
