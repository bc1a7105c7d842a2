package sglang

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance/subprocess"
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
}

// ErrNoSource: the path holds no SGLang sources the harness can drive.
var ErrNoSource = errors.New("no SGLang python sources (sglang/srt/disaggregation)")

// paths are what the harness loads from a commit.
var paths = []string{
	"python/sglang/srt/disaggregation",
	"python/sglang/srt/environ.py",
	"python/sglang/srt/utils/network.py",
}

// Resolve finds the source named by given: GITDIR@COMMIT (extracted once
// into cache), a checkout, its python/ folder, a site-packages folder, or a
// bare repository (its HEAD).
func Resolve(ctx context.Context, given, cache string) (Source, error) {
	if gitDir, commit, ok := strings.Cut(given, "@"); ok && commit != "" {
		if dir, isGit := gitDirOf(gitDir); isGit {
			return extract(ctx, dir, commit, given, cache)
		}
	}
	if dir, isGit := gitDirOf(given); isGit && !isFile(filepath.Join(given, "python", "sglang", "srt", "disaggregation", "prefill.py")) {
		// A repository without a work tree (or its .git): its HEAD.
		return extract(ctx, dir, "HEAD", given, cache)
	}
	for _, root := range []string{given, filepath.Join(given, "python")} {
		if isFile(filepath.Join(root, "sglang", "srt", "disaggregation", "prefill.py")) {
			abs, err := filepath.Abs(root)
			if err != nil {
				return Source{}, fmt.Errorf("sglang: %s: %w", given, err)
			}
			return Source{Root: abs, Given: given}, nil
		}
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

// gitDirOf returns the git directory of dir: dir itself if it is one (a
// bare repository or a .git folder), else dir/.git.
func gitDirOf(dir string) (string, bool) {
	if isFile(filepath.Join(dir, "HEAD")) {
		if _, err := os.Stat(filepath.Join(dir, "objects")); err == nil {
			return dir, true
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(dir, ".git"), true
	}
	return "", false
}

// Git runs git on gitDir, supervised.
func Git(ctx context.Context, gitDir string, argv ...string) (string, error) {
	out, err := subprocess.Output(ctx, append([]string{"git", "--git-dir", gitDir}, argv...),
		subprocess.OutputOptions{Timeout: 2 * time.Minute})
	return strings.TrimSpace(string(out)), err
}

// extract writes the harness's paths of commit into cache/sglang/SHA.
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
	src := Source{Root: filepath.Join(cache, "sglang", sha, "python"), Given: given, Commit: sha, Date: date, Subject: subject}
	if isFile(filepath.Join(src.Root, "sglang", "srt", "disaggregation", "prefill.py")) {
		return src, nil
	}
	var have []string
	for _, p := range paths {
		if out, err := Git(ctx, gitDir, "ls-tree", "--name-only", sha, "--", p); err == nil && out != "" {
			have = append(have, p)
		}
	}
	if len(have) == 0 || have[0] != paths[0] {
		return Source{}, fmt.Errorf("sglang: %s: commit %.12s has no %s: %w", given, sha, paths[0], ErrNoSource)
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
