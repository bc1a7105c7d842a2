package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/internal/scenarios"
)

// sglangGitDir is the SGLang repository of ROOMSPEC_SGLANG (GITDIR@COMMIT),
// or the test is skipped.
func sglangGitDir(t *testing.T) string {
	t.Helper()
	gitDir, _, ok := strings.Cut(os.Getenv("ROOMSPEC_SGLANG"), "@")
	if !ok || gitDir == "" {
		t.Skip("ROOMSPEC_SGLANG is not GITDIR@COMMIT (e.g. /work/.mirror/hzh0425+sglang/repo@adca19c49709): the tests on SGLang's real code are skipped")
	}
	return gitDir
}

// jsonVerdicts runs roomspec with args (replay -format json) and returns
// each reported room's verdict, stdout's other lines failing the test.
func jsonVerdicts(t *testing.T, args ...string) (verdicts map[int64]string, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(&env{stdout: &out, stderr: &errOut}, args)
	verdicts = map[int64]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if isSummaryLine(sc.Bytes()) {
			continue
		}
		var room struct {
			Room    int64  `json:"room"`
			Verdict string `json:"verdict"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &room), "stdout: %s", sc.Text())
		verdicts[room.Room] = room.Verdict
	}
	return verdicts, errOut.String(), code
}

// TestReplaySGLangSource is issue 22's done-when: each bundled capture of
// SGLang's real code, replayed with -sglang GITDIR@COMMIT of the commit
// that made it, is judged under the configuration that commit calls for
// (said on stderr with -format json): from the wire alone every really
// pinned room is at-risk or violated, no released room violated and none
// satisfied; with the log, exactly the verdicts the capture's truth holds.
func TestReplaySGLangSource(t *testing.T) {
	gitDir := sglangGitDir(t)
	all, err := scenarios.All(scenarios.Dir())
	require.NoError(t, err)
	n := 0
	for _, sc := range all {
		if sc.Commit == "" {
			continue
		}
		n++
		t.Run(sc.Name, func(t *testing.T) {
			src := gitDir + "@" + sc.Commit
			args := []string{"replay", "-format", "json", "-deadline", sc.Deadline, "-sglang", src, sc.Capture()}
			got, stderr, code := jsonVerdicts(t, args...)
			require.NotEqual(t, exitBadInput, code, stderr)
			assert.Contains(t, stderr, "roomspec replay: variant "+sc.Variant+": what SGLang "+sc.Commit[:12]+" must refine, from PRs ", "the choice is said first")
			require.NotEmpty(t, got)
			for room, v := range got {
				pinned := slices.Contains(sc.Pinned, room)
				switch {
				case pinned && v != "at-risk" && v != "violated":
					t.Errorf("wire only: room %d, pinned by the real code, is %s", room, v)
				case !pinned && v == "violated":
					t.Errorf("wire only: room %d, released by the real code, is violated", room)
				case v == "satisfied":
					t.Errorf("wire only: room %d is satisfied: its release was not observed", room)
				}
			}
			if len(sc.Pinned) > 0 {
				assert.Equal(t, exitViolation, code, "pinned rooms at-risk: no all-clear")
			}

			got, stderr, _ = jsonVerdicts(t, append(args[:len(args)-1], "-log", sc.Log(), sc.Capture())...)
			want := map[int64]string{}
			for room, v := range sc.WithLog {
				id, err := strconv.ParseInt(room, 10, 64)
				require.NoError(t, err)
				want[id] = v
			}
			assert.Equal(t, want, got, "with the log\n%s", stderr)
		})
	}
	if n == 0 {
		t.Fatal("no bundled capture of SGLang's real code (sglang_commit in NAME.expected.json)")
	}
}
