package sglang

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// layoutFiles are files at the paths Resolve looks for and extracts
// (Paths), each holding only its own name: Resolve's tests need SGLang's
// layout, not its code, which is never committed here.
var layoutFiles = []string{
	"sglang/srt/disaggregation/prefill.py",
	"sglang/srt/disaggregation/nixl/conn.py",
	"sglang/srt/environ.py",
	"sglang/srt/utils/network.py",
}

// layoutTree writes layoutFiles under dir (a python/ folder).
func layoutTree(t *testing.T, dir string) {
	t.Helper()
	for _, p := range layoutFiles {
		write(t, filepath.Join(dir, p), "# "+p+": a placeholder for roomspec's tests\n")
	}
}

func TestResolveFolders(t *testing.T) {
	checkout := t.TempDir()
	layoutTree(t, filepath.Join(checkout, "python"))
	python := t.TempDir()
	layoutTree(t, python)
	for _, tc := range []struct {
		name, given, root string
	}{
		{"python folder", python, python},
		{"checkout", checkout, filepath.Join(checkout, "python")},
		{"its python folder", filepath.Join(checkout, "python"), filepath.Join(checkout, "python")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := Resolve(context.Background(), tc.given, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if src.Root != tc.root || src.Given != tc.given || src.Commit != "" {
				t.Errorf("Resolve(%s) = %+v, want Root %s", tc.given, src, tc.root)
			}
			if src.Label() != tc.given {
				t.Errorf("Label() = %q, want %q", src.Label(), tc.given)
			}
		})
	}
}

func TestResolveNoSource(t *testing.T) {
	empty := t.TempDir()
	_, err := Resolve(context.Background(), empty, t.TempDir())
	if !errors.Is(err, ErrNoSource) {
		t.Fatalf("Resolve(empty folder) = %v, want ErrNoSource", err)
	}
	if !strings.Contains(err.Error(), "GITDIR@COMMIT") {
		t.Errorf("the error does not say what to give: %v", err)
	}
	missing := filepath.Join(empty, "nothing@here")
	_, err = Resolve(context.Background(), missing, t.TempDir())
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNoSource) {
		t.Fatalf("Resolve(missing path) = %v, want a not-exist error", err)
	}
}

// gitRepo makes a git repository in a temp folder with two commits: the
// first without SGLang's sources, the second with SGLang's layout under
// python/ (layoutTree) and a file the harness does not load. It returns the folder and
// the two commits.
func gitRepo(t *testing.T) (dir, bare, withTree string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: GITDIR@COMMIT sources need git")
	}
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=roomspec", "-c", "user.email=roomspec@example.com",
			"-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE=2026-08-19T10:00:00Z", "GIT_COMMITTER_DATE=2026-08-19T10:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	write(t, filepath.Join(dir, "README.md"), "not yet\n")
	git("add", "-A")
	git("commit", "-q", "-m", "before the tree")
	bare = git("rev-parse", "HEAD")
	layoutTree(t, filepath.Join(dir, "python"))
	write(t, filepath.Join(dir, "python", "sglang", "srt", "server_args.py"), "# not loaded by the harness\n")
	git("add", "-A")
	git("commit", "-q", "-m", "layout at a commit")
	return dir, bare, git("rev-parse", "HEAD")
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveGitCommit(t *testing.T) {
	dir, _, sha := gitRepo(t)
	cache := t.TempDir()
	ctx := context.Background()
	src, err := Resolve(ctx, dir+"@"+sha[:9], cache)
	if err != nil {
		t.Fatal(err)
	}
	want := Source{Root: filepath.Join(cache, "sglang", sha, "python"), Given: dir + "@" + sha[:9],
		Commit: sha, Date: "2026-08-19", Subject: "layout at a commit", GitDir: filepath.Join(dir, ".git")}
	if !reflect.DeepEqual(src, want) {
		t.Fatalf("Resolve = %+v\nwant %+v", src, want)
	}
	if src.Label() != sha[:12] {
		t.Errorf("Label() = %q, want the short commit", src.Label())
	}
	// What the harness loads is extracted, byte for byte; nothing else is.
	for _, p := range layoutFiles {
		got, err := os.ReadFile(filepath.Join(src.Root, p))
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(filepath.Join(dir, "python", p))
		if !bytes.Equal(got, orig) {
			t.Errorf("%s differs from the committed file", p)
		}
	}
	if _, err := os.Stat(filepath.Join(src.Root, "sglang/srt/server_args.py")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("server_args.py was extracted (%v): only the harness's paths should be", err)
	}

	// Once extracted, the cache is used as it is.
	sentinel := filepath.Join(src.Root, "sentinel")
	write(t, sentinel, "")
	for _, given := range []string{dir + "@" + sha, filepath.Join(dir, ".git") + "@HEAD"} {
		again, err := Resolve(ctx, given, cache)
		if err != nil {
			t.Fatal(err)
		}
		if again.Root != src.Root || again.Commit != sha {
			t.Errorf("Resolve(%s) = %+v, want the same extraction", given, again)
		}
	}
	if _, err := os.Stat(sentinel); err != nil {
		t.Errorf("the cached extraction was replaced: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "sglang", ".extract-*"))
	if len(left) > 0 {
		t.Errorf("temporary folders left in the cache: %v", left)
	}
}

func TestResolveGitCommitWithoutSources(t *testing.T) {
	dir, bare, _ := gitRepo(t)
	_, err := Resolve(context.Background(), dir+"@"+bare, t.TempDir())
	if !errors.Is(err, ErrNoSource) || !strings.Contains(err.Error(), "has no python/sglang/srt/disaggregation") {
		t.Fatalf("commit without sources: %v, want ErrNoSource naming the folder", err)
	}
	_, err = Resolve(context.Background(), dir+"@0123456789abcdef", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `no commit "0123456789abcdef"`) {
		t.Fatalf("unknown commit: %v", err)
	}
}

// tarOf builds a tar stream of the entries (a name ending in / is a folder,
// "name -> target" a symbolic link).
func tarOf(t *testing.T, names ...string) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, n := range names {
		h := &tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(n))}
		if strings.HasSuffix(n, "/") {
			h.Typeflag, h.Size, h.Mode = tar.TypeDir, 0, 0o755
		} else if name, target, ok := strings.Cut(n, " -> "); ok {
			h.Name, h.Linkname, h.Typeflag, h.Size = name, target, tar.TypeSymlink, 0
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			w.Write([]byte(n))
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &b
}

func TestUntar(t *testing.T) {
	outer := t.TempDir()
	dir := filepath.Join(outer, "x")
	if err := untar(tarOf(t, "python/", "python/sglang/a.py", "python/b.py", "link -> ../../etc"), dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"python/sglang/a.py", "python/b.py"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(b) != p {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "link")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a symbolic link was written: %v", err)
	}

	for _, evil := range []string{"../evil", "/tmp/evil", "python/../../evil", "..", "./../evil"} {
		t.Run(evil, func(t *testing.T) {
			err := untar(tarOf(t, "python/ok.py", evil), dir)
			if err == nil || !strings.Contains(err.Error(), "leaves the folder") {
				t.Fatalf("untar(%q) = %v, want a refusal", evil, err)
			}
			if _, err := os.Stat(filepath.Join(outer, "evil")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a file was written outside the folder")
			}
		})
	}

	short := tarOf(t, "python/a.py") // cut inside the file's data
	if err := untar(bytes.NewReader(short.Bytes()[:515]), t.TempDir()); err == nil {
		t.Error("a truncated archive gives no error")
	}
}

// A checkout's work tree is its HEAD with edits: Resolve runs the work
// tree and says which commit it is at; GITDIR@COMMIT reads the commit and
// warns of the edits it leaves out.
func TestResolveCheckout(t *testing.T) {
	dir, _, sha := gitRepo(t)
	ctx := context.Background()
	src, err := Resolve(ctx, dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if src.Root != filepath.Join(dir, "python") || src.Head != sha || src.Commit != "" || src.GitDir != filepath.Join(dir, ".git") {
		t.Errorf("Resolve(checkout) = %+v, want its work tree at HEAD %s", src, sha)
	}
	if src.Warnings != nil {
		t.Errorf("a clean checkout warns: %v", src.Warnings)
	}
	clean, err := Resolve(ctx, dir+"@HEAD", t.TempDir())
	if err != nil || clean.Warnings != nil {
		t.Fatalf("clean checkout @HEAD: %v, warnings %v", err, clean.Warnings)
	}

	write(t, filepath.Join(dir, "python", "sglang", "srt", "disaggregation", "prefill.py"), "# edited\n")
	write(t, filepath.Join(dir, "python", "sglang", "srt", "disaggregation", "new.py"), "# new\n")
	write(t, filepath.Join(dir, "python", "sglang", "srt", "server_args.py"), "# not loaded: no warning\n")
	src, err = Resolve(ctx, dir+"@HEAD", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Warnings) != 1 {
		t.Fatalf("warnings %q, want one about the edits", src.Warnings)
	}
	w := src.Warnings[0]
	for _, want := range []string{"uncommitted edits", "python/sglang/srt/disaggregation/prefill.py", "python/sglang/srt/disaggregation/new.py", sha[:12], "give " + dir + " itself"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q does not say %q", w, want)
		}
	}
	if strings.Contains(w, "server_args.py") {
		t.Errorf("warning %q names a file the harness does not load", w)
	}
}

// Repository takes a bare repository, a .git folder or a checkout's
// root; not a folder inside a checkout, nor a plain folder.
func TestRepository(t *testing.T) {
	dir, _, _ := gitRepo(t)
	ctx := context.Background()
	for _, tc := range []struct {
		path, gitDir, workTree string
	}{
		{dir, filepath.Join(dir, ".git"), dir},
		{filepath.Join(dir, ".git"), filepath.Join(dir, ".git"), dir},
	} {
		r, err := Repository(ctx, tc.path)
		if err != nil || r.GitDir != tc.gitDir || r.WorkTree != tc.workTree {
			t.Errorf("Repository(%s) = %+v, %v; want %s, %s", tc.path, r, err, tc.gitDir, tc.workTree)
		}
	}
	bare := filepath.Join(t.TempDir(), "bare.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", dir, bare).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	if r, err := Repository(ctx, bare); err != nil || r.WorkTree != "" || r.GitDir != bare {
		t.Errorf("Repository(bare) = %+v, %v", r, err)
	}
	for _, p := range []string{filepath.Join(dir, "python"), t.TempDir()} {
		if _, err := Repository(ctx, p); !errors.Is(err, ErrNotRepository) {
			t.Errorf("Repository(%s) = %v, want ErrNotRepository", p, err)
		}
	}
}

// EnvKeys reads the variables the loaded code reads (envs.NAME, getenv
// and friends), not environ.py's definitions; CheckEnv rejects any other,
// naming the nearest and listing them.
func TestCheckEnv(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "sglang/srt/disaggregation/nixl/conn.py"),
		"x = envs.SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT.get()\ny = os.environ.get('SGLANG_LOCAL_IP_NIC')\n")
	write(t, filepath.Join(root, "sglang/srt/disaggregation/common/conn.py"),
		"if envs.SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE.get():\n    pass\nz = get_int_env_var(\"SGLANG_X\", 3)\n")
	write(t, filepath.Join(root, "sglang/srt/environ.py"), "SGLANG_DEFINED_ONLY = EnvBool(False)  # envs.A in a docstring\n")
	src := Source{Root: root, Given: root}
	keys, err := EnvKeys(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT", "SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE", "SGLANG_LOCAL_IP_NIC", "SGLANG_X"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("EnvKeys = %v, want %v", keys, want)
	}
	if err := CheckEnv(src, Env{"SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1", "SGLANG_X=2"}); err != nil {
		t.Errorf("keys the code reads: %v", err)
	}
	err = CheckEnv(src, Env{"SGLANG_DISAGGREGATION_DEFERED_DECODE_KV_RELEASE=1", "SGLANG_DEFINED_ONLY=1"})
	if !errors.Is(err, ErrUnknownEnv) {
		t.Fatalf("CheckEnv = %v, want ErrUnknownEnv", err)
	}
	for _, s := range []string{"did you mean SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE?", "SGLANG_DEFINED_ONLY", "it reads:\n  SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT\n"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
}
