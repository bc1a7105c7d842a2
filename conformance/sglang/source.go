package sglang

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/internal/suggest"
)

// Source is SGLang's Python source the harness loads.
type Source struct {
	// Root is the folder holding sglang/srt.
	Root string
	// Given is what the user named (a path, or GITDIR@COMMIT).
	Given string
	// Commit, Date and Subject describe the commit, when the source came
	// from a git repository ("" otherwise).
	Commit, Date, Subject string
	// GitDir is the repository the source came from, or the one of the
	// checkout it is ("" for a folder of no repository).
	GitDir string
	// Head is the commit a checkout's work tree is at, edits and all
	// ("" unless the source is a checkout's work tree).
	Head string
	// Warnings are what the user should know of the source: edits of a
	// checkout that GITDIR@COMMIT does not read.
	Warnings []string
	// Fix names the fix (-fix) applied to a copy of the code at Root; ""
	// for the code as it is.
	Fix string
}

// ErrNoSource: the path holds no SGLang sources the harness can drive.
var ErrNoSource = errors.New("no SGLang python sources (sglang/srt/disaggregation)")

// Paths are what the harness loads from a commit, relative to the
// repository's root.
var Paths = []string{
	"python/sglang/srt/disaggregation",
	"python/sglang/srt/environ.py",
	"python/sglang/srt/utils/network.py",
}

// Resolve finds the source named by given: GITDIR@COMMIT (extracted once
// into cache), a checkout, its python/ folder, a site-packages folder, or a
// bare repository (its HEAD). GITDIR may be a bare repository, a .git
// folder or a checkout.
func Resolve(ctx context.Context, given, cache string) (Source, error) {
	if i := strings.LastIndex(given, "@"); i > 0 && i < len(given)-1 {
		if repo, err := Repository(ctx, given[:i]); err == nil {
			src, err := extract(ctx, repo.GitDir, given[i+1:], given, cache)
			if err == nil && repo.WorkTree != "" {
				src.Warnings = dirty(ctx, repo.WorkTree, src)
			}
			return src, err
		}
	}
	repo, repoErr := Repository(ctx, given)
	if repoErr == nil && repo.WorkTree == "" {
		// A repository without a work tree: its HEAD.
		return extract(ctx, repo.GitDir, "HEAD", given, cache)
	}
	for _, root := range []string{given, filepath.Join(given, "python")} {
		if isFile(filepath.Join(root, "sglang", "srt", "disaggregation", "prefill.py")) {
			abs, err := filepath.Abs(root)
			if err != nil {
				return Source{}, fmt.Errorf("sglang: %s: %w", given, err)
			}
			src := Source{Root: abs, Given: given}
			if repoErr == nil {
				src.GitDir = repo.GitDir
				src.Head, _ = Git(ctx, repo.GitDir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
			}
			return src, nil
		}
	}
	if repoErr == nil {
		// A checkout without SGLang's sources in its work tree: its HEAD
		// may have them.
		return extract(ctx, repo.GitDir, "HEAD", given, cache)
	}
	if _, err := os.Stat(given); err != nil {
		return Source{}, fmt.Errorf("sglang: %s: %w", given, err)
	}
	return Source{}, fmt.Errorf("sglang: %s: %w (give a checkout, its python/ folder, a site-packages folder, or GITDIR@COMMIT)", given, ErrNoSource)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// Repo is a git repository named by a path.
type Repo struct {
	// GitDir is its git directory (for git --git-dir).
	GitDir string
	// WorkTree is the checkout's root, "" for a bare repository.
	WorkTree string
}

// ErrNotRepository: a path is no git repository (nor a checkout's root).
var ErrNotRepository = errors.New("not a git repository (give a bare repository, a .git folder or a checkout's root)")

// Repository returns the repository path names: a bare repository, a
// .git folder (its work tree is the folder above), or a checkout's root
// (not a folder inside one: a site-packages folder in some project's
// checkout is not that project's code).
func Repository(ctx context.Context, path string) (Repo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Repo{}, fmt.Errorf("sglang: %s: %w", path, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return Repo{}, fmt.Errorf("sglang: %s: %w", path, err)
	} else if !fi.IsDir() {
		return Repo{}, fmt.Errorf("sglang: %s: %w", path, ErrNotRepository)
	}
	out, err := subprocess.Output(ctx, []string{"git", "-C", abs, "rev-parse", "--absolute-git-dir", "--is-bare-repository"},
		subprocess.OutputOptions{Timeout: time.Minute})
	f := strings.Fields(string(out))
	if err != nil || len(f) != 2 {
		return Repo{}, fmt.Errorf("sglang: %s: %w", path, ErrNotRepository)
	}
	gitDir, bare := f[0], f[1] == "true"
	switch {
	case gitDir == abs && bare:
		return Repo{GitDir: gitDir}, nil
	case gitDir == abs:
		return Repo{GitDir: gitDir, WorkTree: filepath.Dir(abs)}, nil
	case bare:
		return Repo{}, fmt.Errorf("sglang: %s: %w", path, ErrNotRepository)
	}
	top, err := subprocess.Output(ctx, []string{"git", "-C", abs, "rev-parse", "--show-toplevel"}, subprocess.OutputOptions{Timeout: time.Minute})
	if err != nil || strings.TrimSpace(string(top)) != abs {
		return Repo{}, fmt.Errorf("sglang: %s: %w", path, ErrNotRepository)
	}
	return Repo{GitDir: gitDir, WorkTree: abs}, nil
}

// dirty warns of edits in workTree, to the files the harness loads,
// that src (extracted from a commit) does not hold.
func dirty(ctx context.Context, workTree string, src Source) []string {
	out, err := subprocess.Output(ctx, append([]string{"git", "-C", workTree, "status", "--porcelain", "--untracked-files=all", "--"}, Paths...),
		subprocess.OutputOptions{Timeout: time.Minute})
	if err != nil {
		return []string{fmt.Sprintf("%s: could not tell whether its work tree has uncommitted edits: %v", workTree, err)}
	}
	var files []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if len(l) > 3 {
			files = append(files, strings.TrimSpace(l[3:]))
		}
	}
	if len(files) == 0 {
		return nil
	}
	more := ""
	if len(files) > 5 {
		more = fmt.Sprintf(" and %d more", len(files)-5)
		files = files[:5]
	}
	return []string{fmt.Sprintf("%s has uncommitted edits to the code the harness loads (%s%s), which %s ignores: it reads commit %.12s; give %s itself to run its work tree",
		workTree, strings.Join(files, ", "), more, src.Given, src.Commit, workTree)}
}

// Git runs git on gitDir, supervised.
func Git(ctx context.Context, gitDir string, argv ...string) (string, error) {
	out, err := subprocess.Output(ctx, append([]string{"git", "--git-dir", gitDir}, argv...),
		subprocess.OutputOptions{Timeout: 2 * time.Minute})
	return strings.TrimSpace(string(out)), err
}

// extract writes the harness's Paths of commit into cache/sglang/SHA.
func extract(ctx context.Context, gitDir, commit, given, cache string) (Source, error) {
	sha, err := Git(ctx, gitDir, "rev-parse", "--verify", "--quiet", commit+"^{commit}")
	if err != nil || sha == "" {
		return Source{}, fmt.Errorf("sglang: %s: no commit %q in %s", given, commit, gitDir)
	}
	meta, err := Git(ctx, gitDir, "log", "-1", "--format=%ad%x00%s", "--date=short", sha)
	if err != nil {
		return Source{}, fmt.Errorf("sglang: %s: %w", given, err)
	}
	date, subject, _ := strings.Cut(meta, "\x00")
	src := Source{Root: filepath.Join(cache, "sglang", sha, "python"), Given: given, Commit: sha, Date: date, Subject: subject, GitDir: gitDir}
	if isFile(filepath.Join(src.Root, "sglang", "srt", "disaggregation", "prefill.py")) {
		return src, nil
	}
	var have []string
	for _, p := range Paths {
		if out, err := Git(ctx, gitDir, "ls-tree", "--name-only", sha, "--", p); err == nil && out != "" {
			have = append(have, p)
		}
	}
	if len(have) == 0 || have[0] != Paths[0] {
		return Source{}, fmt.Errorf("sglang: %s: commit %.12s has no %s: %w", given, sha, Paths[0], ErrNoSource)
	}
	if err := os.MkdirAll(filepath.Join(cache, "sglang"), 0o755); err != nil {
		return Source{}, fmt.Errorf("sglang: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Join(cache, "sglang"), ".extract-")
	if err != nil {
		return Source{}, fmt.Errorf("sglang: %w", err)
	}
	defer os.RemoveAll(tmp)
	var archive bytes.Buffer
	if _, err := subprocess.Output(ctx, append([]string{"git", "--git-dir", gitDir, "archive", "--format=tar", sha, "--"}, have...),
		subprocess.OutputOptions{Timeout: 2 * time.Minute, Stdout: &archive}); err != nil {
		return Source{}, fmt.Errorf("sglang: %s: git archive: %w", given, err)
	}
	if err := untar(&archive, tmp); err != nil {
		return Source{}, fmt.Errorf("sglang: %s: %w", given, err)
	}
	dest := filepath.Dir(src.Root)
	if err := os.Rename(tmp, dest); err != nil && !isFile(filepath.Join(src.Root, "sglang", "srt", "disaggregation", "prefill.py")) {
		return Source{}, fmt.Errorf("sglang: %s: %w", given, err)
	}
	return src, nil
}

// untar writes the regular files and folders of a tar stream under dir,
// refusing any path that would leave it.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("archive: %q leaves the folder", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// envRead finds the environment variables Python code reads: SGLang's
// envs.NAME (environ.py's Envs), and a string literal given to getenv,
// os.environ or a get_*env* helper.
var envRead = regexp.MustCompile(`\benvs\.([A-Z][A-Z0-9_]*)\b|(?:getenv|environ\.get|environ\[|get_\w*env\w*)\(?\s*["']([A-Z][A-Z0-9_]*)["']`)

// EnvKeys returns the environment variables the code the harness loads
// from src reads, in name order: the keys -sglang-env may set.
func EnvKeys(src Source) ([]string, error) {
	seen := map[string]bool{}
	for _, p := range Paths {
		if strings.HasSuffix(p, "/environ.py") {
			continue // where the variables are defined, and documented
		}
		root := filepath.Join(src.Root, strings.TrimPrefix(p, "python/"))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == root {
					return nil // a commit without network.py
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".py") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range envRead.FindAllSubmatch(b, -1) {
				seen[string(m[1])+string(m[2])] = true
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sglang: %s: %w", src.Label(), err)
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// ErrUnknownEnv: -sglang-env names a variable the code does not read.
var ErrUnknownEnv = errors.New("the code reads no such environment variable")

// CheckEnv returns an error naming each key of env the code of src does
// not read (a misspelling would otherwise be run as if it meant
// something), with the nearest key it does read, and the list of them.
func CheckEnv(src Source, env Env) error {
	keys, err := EnvKeys(src)
	if err != nil {
		return err
	}
	var bad []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(keys, k) {
			continue
		}
		msg := k
		if near := suggest.Nearest(k, keys); near != "" {
			msg += " (did you mean " + near + "?)"
		}
		bad = append(bad, msg)
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("sglang: -sglang-env %s: %w at %s; it reads:\n  %s", strings.Join(bad, ", "), ErrUnknownEnv, src.Label(), strings.Join(keys, "\n  "))
}
