package check

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// examplesEnv names a snapshot of tlaplus/Examples as GITDIR@COMMIT (a
// bare git directory and a commit of it), whose models TestExamplesBreadth
// checks against the figures TLC recorded in their manifests.
const examplesEnv = "ROOMSPEC_TLA_EXAMPLES"

// examplesAllEnv, set to 1, widens TestExamplesBreadth to every model of
// the snapshot that TLC checks exhaustively in under a minute, whatever it
// uses (the survey of issue 24's done-when; about 150 models).
const examplesAllEnv = "ROOMSPEC_TLA_EXAMPLES_ALL"

// examplesTimeout bounds one model of TestExamplesBreadth: TLC checks each
// in under a minute.
const examplesTimeout = 5 * time.Minute

// breadthFeature matches the sources of a tlaplus/Examples specification
// that uses what issue 24 added to roomspec: TLCGet and TLCSet, the
// CommunityModules, instance-qualified subscripts, POSTCONDITION.
var breadthFeature = regexp.MustCompile(`TLCGet|TLCSet|POSTCONDITION|\b(IOUtils|SequencesExt|FiniteSetsExt|Functions|Folds|Graphs|UndirectedGraphs|Combinatorics|BagsExt|Relation|VectorClocks|DyadicRationals|SVG|Json|Bitwise)\b|\w+!\w+\]_|_\w+!\w+`)

// examplesGaps are the models of the snapshot that use those features
// and that roomspec does not check as TLC does, with what is missing.
var examplesGaps = map[string]string{
	"specifications/FiniteMonotonic/MCCRDT.cfg":          cdotGap,
	"specifications/FiniteMonotonic/MCReplicatedLog.cfg": cdotGap,
}

// cdotGap is what the FiniteMonotonic models need.
const cdotGap = `action composition (A \cdot B), which TLC checks only when run with -Dtlc2.tool.impl.Tool.cdot=true, as the model's ASSUME TLCGet("-Dtlc2.tool.impl.Tool.cdot") = "true" asks`

// examplesManifest is what TestExamplesBreadth reads of a specification's
// manifest.json.
type examplesManifest struct {
	Modules []struct {
		Path   string `json:"path"`
		Models []struct {
			Path           string          `json:"path"`
			Runtime        string          `json:"runtime"`
			Mode           json.RawMessage `json:"mode"`
			Result         string          `json:"result"`
			DistinctStates *int64          `json:"distinctStates"`
			Workers        json.RawMessage `json:"workers"`
		} `json:"models"`
	} `json:"modules"`
}

// TestExamplesBreadth checks every model of a tlaplus/Examples snapshot
// (ROOMSPEC_TLA_EXAMPLES) that TLC checks exhaustively in under a minute
// and whose specification uses TLCGet/TLCSet, the CommunityModules,
// instance-qualified subscripts or POSTCONDITION: each must give the
// result TLC recorded in the manifest, and for a model that passes the
// same number of distinct states. The snapshot is read in place (git
// archive into a temporary folder); nothing of it is in the repository.
func TestExamplesBreadth(t *testing.T) {
	env := os.Getenv(examplesEnv)
	gitDir, commit, ok := strings.Cut(env, "@")
	if !ok {
		t.Skipf("%s (GITDIR@COMMIT of a tlaplus/Examples snapshot) not set: the Examples models are not checked", examplesEnv)
	}
	root := t.TempDir()
	archive := exec.Command("git", "--git-dir", gitDir, "archive", commit, "specifications")
	var tarball, stderr bytes.Buffer
	archive.Stdout, archive.Stderr = &tarball, &stderr
	require.NoError(t, archive.Run(), "git archive: %s", stderr.String())
	untar := exec.Command("tar", "-x", "-C", root)
	untar.Stdin, untar.Stderr = &tarball, &stderr
	require.NoError(t, untar.Run(), "tar: %s", stderr.String())

	manifests, err := filepath.Glob(filepath.Join(root, "specifications", "*", "manifest.json"))
	require.NoError(t, err)
	sort.Strings(manifests)
	checked := 0
	for _, mf := range manifests {
		specDir := filepath.Dir(mf)
		if os.Getenv(examplesAllEnv) != "1" && !usesBreadth(t, specDir) {
			continue
		}
		data, err := os.ReadFile(mf)
		require.NoError(t, err)
		var man examplesManifest
		require.NoError(t, json.Unmarshal(data, &man), mf)
		for _, mod := range man.Modules {
			for _, model := range mod.Models {
				var mode string
				if json.Unmarshal(model.Mode, &mode) != nil || mode != "exhaustive search" || !underAMinute(model.Runtime) {
					continue
				}
				checked++
				t.Run(strings.TrimPrefix(model.Path, "specifications/"), func(t *testing.T) {
					if gap, ok := examplesGaps[model.Path]; ok {
						t.Skip("not checked as TLC does: " + gap)
					}
					workers := 1
					_ = json.Unmarshal(model.Workers, &workers)
					dir := filepath.Join(root, filepath.FromSlash(path.Dir(mod.Path)))
					rel, err := filepath.Rel(dir, filepath.Join(root, filepath.FromSlash(model.Path)))
					require.NoError(t, err)
					m := loadModel(t, dir, strings.TrimSuffix(path.Base(mod.Path), ".tla"), rel)
					// TLC runs from the root of the snapshot in its CI: a
					// file a spec reads is named from there.
					m.Spec.ReadFile = func(name string) ([]byte, error) {
						if !filepath.IsAbs(name) {
							name = filepath.Join(root, name)
						}
						return os.ReadFile(name)
					}
					m.Spec.Environ = os.Environ
					ctx, cancel := context.WithTimeout(context.Background(), examplesTimeout)
					defer cancel()
					r := Check(ctx, m, Options{Workers: workers})
					require.NotEqual(t, Incomplete, r.Outcome, "not done in %s: %s", examplesTimeout, r.Stopped)
					switch model.Result {
					case "success":
						require.NoError(t, r.Err)
						assert.Equal(t, OK, r.Outcome, "violated %s", r.Violated)
						if model.DistinctStates != nil {
							assert.Equal(t, *model.DistinctStates, r.Distinct, "distinct states")
						}
					case "safety failure":
						require.NoError(t, r.Err)
						assert.Contains(t, []Outcome{Invariant, Violation}, r.Outcome)
						if r.Outcome == Violation {
							assert.NotEqual(t, PartLiveness, r.Part, "a safety failure breaks an invariant or a safety part of a property")
						}
					case "deadlock failure":
						require.NoError(t, r.Err)
						assert.Equal(t, Deadlock, r.Outcome)
					case "liveness failure":
						require.NoError(t, r.Err)
						assert.Equal(t, Violation, r.Outcome)
					case "assumption failure":
						require.Equal(t, Failure, r.Outcome)
						assert.Contains(t, r.Err.Error(), "assumption is false")
					default:
						t.Fatalf("unknown result %q in the manifest", model.Result)
					}
				})
			}
		}
	}
	assert.Positive(t, checked, "no model of the snapshot uses what issue 24 added")
}

// usesBreadth reports whether a specification's modules or configurations
// use what issue 24 added.
func usesBreadth(t *testing.T, dir string) bool {
	found := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		if ext := filepath.Ext(p); ext != ".tla" && ext != ".cfg" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		found = breadthFeature.Match(src)
		return nil
	})
	require.NoError(t, err)
	return found
}

// underAMinute reports whether a manifest's runtime (HH:MM:SS) is a
// minute or less.
func underAMinute(runtime string) bool {
	parts := strings.Split(runtime, ":")
	if len(parts) != 3 {
		return false
	}
	d, err := time.ParseDuration(parts[0] + "h" + parts[1] + "m" + parts[2] + "s")
	return err == nil && d <= time.Minute
}
