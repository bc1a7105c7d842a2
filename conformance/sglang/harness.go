package sglang

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// harness is the Python package roomspec_sglang.
//
//go:embed harness/roomspec_sglang/*.py
var harness embed.FS

// CacheDir is where roomspec keeps the harness and extracted sources:
// $ROOMSPEC_CACHE, else roomspec/ in the user's cache folder.
func CacheDir() (string, error) {
	if d := os.Getenv("ROOMSPEC_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("sglang: no cache folder (set ROOMSPEC_CACHE): %w", err)
	}
	return filepath.Join(d, "roomspec"), nil
}

// InstallHarness writes the embedded harness under cache (once per
// content) and returns the folder to put on PYTHONPATH.
func InstallHarness(cache string) (string, error) {
	h := sha256.New()
	files, _ := fs.Glob(harness, "harness/roomspec_sglang/*.py")
	for _, f := range files {
		b, _ := harness.ReadFile(f)
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	dir := filepath.Join(cache, "harness-"+hex.EncodeToString(h.Sum(nil))[:16])
	pkg := filepath.Join(dir, "roomspec_sglang")
	if _, err := os.Stat(filepath.Join(pkg, "__main__.py")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(cache, ".harness-")
	if err != nil {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return "", fmt.Errorf("sglang: %w", err)
		}
		if tmp, err = os.MkdirTemp(cache, ".harness-"); err != nil {
			return "", fmt.Errorf("sglang: %w", err)
		}
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Join(tmp, "roomspec_sglang"), 0o755); err != nil {
		return "", fmt.Errorf("sglang: %w", err)
	}
	for _, f := range files {
		b, _ := harness.ReadFile(f)
		if err := os.WriteFile(filepath.Join(tmp, "roomspec_sglang", filepath.Base(f)), b, 0o644); err != nil {
			return "", fmt.Errorf("sglang: %w", err)
		}
	}
	// Another roomspec may have installed the same content meanwhile.
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(pkg, "__main__.py")); serr != nil {
			return "", fmt.Errorf("sglang: install harness: %w", err)
		}
	}
	return dir, nil
}

// Python is the interpreter the harness runs on: $ROOMSPEC_PYTHON, else
// Debian's /usr/bin/python3 (which has python3-zmq, python3-numpy and python3-psutil),
// else python3 on PATH.
func Python() string {
	if p := os.Getenv("ROOMSPEC_PYTHON"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	if p, err := exec.LookPath("python3"); err == nil {
		return p
	}
	return "python3"
}

// Env is environment for the loaded code (SGLANG_* variables), as
// KEY=VALUE pairs.
type Env []string

// args are the harness's arguments for src and env.
func args(src Source, env Env) []string {
	out := []string{"-m", "roomspec_sglang", "--sglang", src.Root}
	if src.Backend != "" && src.Backend != NIXL {
		out = append(out, "--backend", src.Backend)
	}
	for _, kv := range env {
		out = append(out, "--env", kv)
	}
	return out
}
