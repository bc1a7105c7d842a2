package history

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repo is a git repository with a file at one of the paths the harness
// loads; commit writes it (or another file) and commits.
type repo struct {
	t   *testing.T
	dir string
	n   int
}

func newRepo(t *testing.T) *repo {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=roomspec", "-c", "user.email=roomspec@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %v\n%s", args, out)
	return strings.TrimSpace(string(out))
}

// commit changes file (relative to the root) and commits with subject;
// it returns the short commit.
func (r *repo) commit(file, subject string) string {
	r.n++
	p := filepath.Join(r.dir, file)
	require.NoError(r.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(r.t, os.WriteFile(p, []byte(strings.Repeat("x\n", r.n)), 0o644))
	r.git("add", "-A")
	r.git("commit", "-q", "-m", subject)
	return r.git("rev-parse", "--short=12", "HEAD")
}

const prefill = "python/sglang/srt/disaggregation/prefill.py"

func TestCommits(t *testing.T) {
	ctx := context.Background()

	// A fork's own repository: its history names no lifecycle PR.
	r := newRepo(t)
	root := r.commit(prefill, "SGLang's tree")
	docs := r.commit("docs/README.md", "Docs only")
	one := r.commit(prefill, "Fix one thing")
	two := r.commit("python/sglang/srt/environ.py", "Tune a default")
	tip := r.commit("docs/README.md", "More docs")
	got, err := Commits(ctx, filepath.Join(r.dir, ".git"), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{root, one, two, tip}, got, "every commit that changed the code the harness loads, then the newest")
	got, err = Commits(ctx, filepath.Join(r.dir, ".git"), []string{docs + "..HEAD"})
	require.NoError(t, err)
	assert.Equal(t, []string{docs, one, two, tip}, got, "BASE..TIP: the base, then the fork's commits")
	got, err = Commits(ctx, filepath.Join(r.dir, ".git"), []string{one, "HEAD"})
	require.NoError(t, err)
	assert.Equal(t, []string{one, "HEAD"}, got)
	for _, bad := range []string{"..HEAD", "nosuch..HEAD", "HEAD..."} {
		_, err := Commits(ctx, filepath.Join(r.dir, ".git"), []string{bad})
		assert.Error(t, err, bad)
	}

	// Upstream's shape: the lifecycle PRs by subject, the parent where the
	// table asks for it, and the newest commit of the branch.
	u := newRepo(t)
	u.commit(prefill, "[Disagg][NIXL] Add staging buffer support (#22536)")
	u.commit("docs/a.md", "Something else (#1)")
	pr := u.commit(prefill, "[Bugfix] Clean up failed NIXL sender state (#27011)")
	timeout := u.commit(prefill, "[PD] Add the missing Prefill bootstrap timeout for NIXL (#34692)")
	newest := u.commit("docs/b.md", "Later (#2)")
	got, err = Commits(ctx, filepath.Join(u.dir, ".git"), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{pr + "^", pr, timeout + "^", timeout, newest}, got)

	// A repository of something else.
	o := newRepo(t)
	o.commit("main.go", "not SGLang")
	_, err = Commits(ctx, filepath.Join(o.dir, ".git"), nil)
	assert.True(t, errors.Is(err, ErrNoCommits), "%v", err)
}
