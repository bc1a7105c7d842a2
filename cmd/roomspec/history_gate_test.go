package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forkEdit is one commit of a test fork: in file (relative to the
// repository's root), old replaced by new, exactly once.
type forkEdit struct {
	subject, file, old, new string
}

// forkRepo makes, at test time, a git repository whose first commit has
// the tree of commit base of the SGLang repository gitDir, and then one
// commit per edit, each on top of the one before. SGLang's objects are
// borrowed through git's alternates and the edited files written as new
// objects of the temporary repository: nothing of SGLang becomes a file
// of roomspec's. It returns the repository and its commits, oldest first.
func forkRepo(t *testing.T, gitDir, base string, edits []forkEdit) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fork.git")
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=fork", "GIT_AUTHOR_EMAIL=fork@example.com", "GIT_COMMITTER_NAME=fork",
			"GIT_COMMITTER_EMAIL=fork@example.com", "GIT_AUTHOR_DATE=2026-09-01T10:00:00Z",
			"GIT_COMMITTER_DATE=2026-09-01T10:00:00Z", "GIT_INDEX_FILE="+filepath.Join(dir, "index"))
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s\n%s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	objects, err := filepath.Abs(filepath.Join(gitDir, "objects"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "objects", "info", "alternates"), []byte(objects+"\n"), 0o644))
	git("", "read-tree", base+"^{tree}")
	head := git("", "commit-tree", "-m", "SGLang "+base+"'s tree, the fork's first commit", git("", "write-tree"))
	commits := []string{head}
	for _, e := range edits {
		text := git("", "cat-file", "blob", ":"+e.file) + "\n"
		require.Equal(t, 1, strings.Count(text, e.old), "%s: %q is not in %s once", e.subject, e.old, e.file)
		blob := git(strings.Replace(text, e.old, e.new, 1), "hash-object", "-w", "--stdin")
		git("", "update-index", "--cacheinfo", "100644,"+blob+","+e.file)
		head = git("", "commit-tree", "-p", head, "-m", e.subject, git("", "write-tree"))
		commits = append(commits, head)
	}
	git("", "update-ref", "refs/heads/main", head)
	git("", "symbolic-ref", "HEAD", "refs/heads/main")
	return dir, commits
}

const (
	nixlConn = "python/sglang/srt/disaggregation/nixl/conn.py"
)

// forkEdits: two commits that change nothing the lifecycle does (a log
// line, a comment), and four that each break one behaviour: one that
// only the suite sees (an ABORT marks the room Transferring rather than
// Failed: refinement), three the probe sees against adca19c4's
// expectation. The comment comes after the refinement break: a commit
// whose counterexamples the commit before fails too makes nothing worse.
// (The Transferring edit hides the Success one from the probe, max()
// keeping Success: a behaviour that stops differing is no worse.)
var forkEdits = []forkEdit{
	{"Tidier bootstrap log line", nixlConn,
		`logger.debug(f"{room=} is bootstrapped")`, `logger.debug(f"room {room} is bootstrapped")`},
	{"ABORT fails a Success room too", nixlConn,
		"            and self.check_status(room_to_be_aborted) != KVPoll.Success\n", ""},
	{"ABORT marks the room Transferring", nixlConn,
		"            self.update_status(room_to_be_aborted, KVPoll.Failed)\n",
		"            self.update_status(room_to_be_aborted, KVPoll.Transferring)\n"},
	{"Comment the timeout", nixlConn,
		"        if status == KVPoll.Bootstrapping:\n            timeout_result",
		"        # The bootstrap timeout fires here.\n        if status == KVPoll.Bootstrapping:\n            timeout_result"},
	{"Drop the bootstrap timeout", nixlConn,
		"            timeout_result = self._check_bootstrap_timeout()\n            if timeout_result is not None:\n                return timeout_result\n",
		"            pass\n"},
	{"failure_exception keeps the room", nixlConn,
		"        self._send_failed = True\n\n        self.clear()\n", "        self._send_failed = True\n"},
}

// breaks are the indices in forkEdits of the commits that break a
// behaviour, and what the gate names for each.
var breaks = map[int]string{1: "AbortSparesSuccess", 2: "refinement fails", 4: "HasBootstrapTimeout", 5: "FailureClears"}

// TestHistoryGatesAFork: roomspec history over a fork whose first commit
// is adca19c4's tree exits 1 and names each commit that breaks a
// behaviour, and only those; with -base (what adca19c4's lifecycle PRs
// bring) the first commit is held to its expectation too and passes.
// It runs the real code of 7 commits: a few minutes.
func TestHistoryGatesAFork(t *testing.T) {
	given := os.Getenv("ROOMSPEC_SGLANG")
	gitDir, base, ok := strings.Cut(given, "@")
	if !ok || base == "" {
		t.Skip("ROOMSPEC_SGLANG is not GITDIR@COMMIT (e.g. /work/.mirror/hzh0425+sglang/repo@adca19c49709)")
	}
	if !strings.HasPrefix("adca19c49709", base) && !strings.HasPrefix(base, "adca19c49709") {
		t.Skipf("the fork's edits are written for adca19c49709, not %s", base)
	}
	t.Setenv("ROOMSPEC_CACHE", t.TempDir())
	fork, commits := forkRepo(t, gitDir, base, forkEdits)
	var out, errOut bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errOut}, []string{"history", "-cases", "100", "-format", "json", "-base", given, fork})
	require.Equal(t, exitViolation, code, "%s\n%s", out.String(), errOut.String())
	type gateRow struct {
		Commit   string   `json:"commit"`
		Expected string   `json:"expected"`
		Error    string   `json:"error"`
		Worse    []string `json:"worse"`
	}
	var rows []gateRow
	for dec := json.NewDecoder(&out); dec.More(); {
		var r gateRow
		require.NoError(t, dec.Decode(&r))
		rows = append(rows, r)
	}
	require.Len(t, rows, len(commits), "one row per commit of the fork")
	for i, r := range rows {
		assert.True(t, strings.HasPrefix(commits[i], r.Commit), "row %d is %s, want %s", i, r.Commit, commits[i])
		assert.Empty(t, r.Error)
		assert.Contains(t, r.Expected, "-base "+given)
		what := "SGLang's tree"
		if i > 0 {
			what = forkEdits[i-1].subject
		}
		if want, broken := breaks[i-1]; i > 0 && broken {
			assert.Contains(t, strings.Join(r.Worse, "\n"), want, "%s (%s) breaks a behaviour: the gate does not name it", r.Commit, what)
		} else {
			assert.Empty(t, r.Worse, "%s (%s) breaks nothing and fails the gate", r.Commit, what)
		}
	}

	// Without -base nothing says what the first commit must refine: its
	// own probe is the baseline, said so, and each commit after it is
	// held to the one before (BASE..TIP: the fork's first commits).
	out.Reset()
	errOut.Reset()
	code = run(&env{stdout: &out, stderr: &errOut}, []string{"history", "-cases", "30", fork, commits[0] + ".." + commits[2]})
	require.Equal(t, exitViolation, code, "%s\n%s", out.String(), errOut.String())
	text := out.String()
	assert.Contains(t, text, "no expectation: its history names none of the lifecycle PRs")
	assert.Regexp(t, commits[2][:12]+` .* sglang-35360 +DIFFERS \(1\) `, text, "held to what the first commit's probe chose")
	assert.Contains(t, text, "FAILS "+commits[2][:12])
	assert.Contains(t, text, "AbortSparesSuccess: expected an ABORT leaves a Success room alone; the code: an ABORT fails a room that already reads Success")
	assert.NotContains(t, text, "FAILS "+commits[1][:12])
}
