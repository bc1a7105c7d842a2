package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/internal/sharedpath"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeFirstCommand: the README's first command prints what the README
// says it prints (the summary and the table of aborted rooms), and exits 1.
func TestReadmeFirstCommand(t *testing.T) {
	var out bytes.Buffer
	code := run(&env{stdout: &out, stderr: &bytes.Buffer{}}, []string{"replay",
		"-variant", "sglang-30545", "-deadline", "2s",
		"-log", "../../traces/testdata/scenarios/real-small-69a31ce34.events.jsonl",
		"../../traces/testdata/scenarios/real-small-69a31ce34.pcap"})
	assert.Equal(t, exitViolation, code)
	parts := strings.SplitN(out.String(), "\n\n", 3)
	require.Len(t, parts, 3)
	shown := "```\n" + parts[0] + "\n\n" + parts[1] + "\n```"
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), shown, "README's replay output is stale")
	assert.Contains(t, string(readme), "go run ./cmd/roomspec replay -variant sglang-30545 -deadline 2s \\\n    -log traces/testdata/scenarios/real-small-69a31ce34.events.jsonl traces/testdata/scenarios/real-small-69a31ce34.pcap")
}

// readmeCommands returns the roomspec commands of the README's shell
// blocks ("go run ./cmd/roomspec ARGS" or "roomspec ARGS", continued over
// lines ending in a backslash, without their "# comment"), each as its
// arguments.
func readmeCommands(t *testing.T, readme string) [][]string {
	t.Helper()
	var cmds [][]string
	inBlock, cont := false, ""
	for line := range strings.Lines(readme) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock && strings.TrimPrefix(line, "```") == "sh"
			continue
		}
		if !inBlock {
			continue
		}
		line = cont + strings.TrimSpace(line)
		if l, ok := strings.CutSuffix(line, "\\"); ok {
			cont = l
			continue
		}
		cont = ""
		rest, ok := strings.CutPrefix(line, "go run ./cmd/roomspec ")
		if !ok {
			if rest, ok = strings.CutPrefix(line, "roomspec "); !ok {
				continue
			}
		}
		args, err := shellWords(rest)
		if err != nil {
			t.Fatalf("README: %q: %v", line, err)
		}
		cmds = append(cmds, args)
	}
	return cmds
}

// shellWords splits a command line as sh would for the README's simple
// commands: words, '...' and "..." quoting, and a "#" comment.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c", c)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			i = len(s)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// missingFile returns the first argument of args that names a file (a
// path with a slash or a file extension) that does not exist, or "".
func missingFile(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "exec:") {
			continue
		}
		if strings.Contains(a, "/") || filepath.Ext(a) != "" {
			if _, err := os.Stat(a); err != nil {
				return a
			}
		}
	}
	return ""
}

// TestReadmeExamplesAreDeterministic runs every roomspec command the
// README shows, from the repository's root, twice: both runs must give
// the same exit status and the same output. Commands that name files
// the repository does not hold (placeholders such as capture.pcap) are
// skipped, and listed.
func TestReadmeExamplesAreDeterministic(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	cmds := readmeCommands(t, string(readme))
	require.NotEmpty(t, cmds, "no roomspec command found in the README")
	t.Chdir("../..")
	for _, args := range cmds {
		name := strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			if f := missingFile(args); f != "" {
				if strings.HasPrefix(f, "../shared/") {
					sharedpath.Require(t, strings.TrimPrefix(filepath.Dir(f), "../shared/"))
				}
				t.Skipf("%s is not in the repository: a placeholder", f)
			}
			if testing.Short() && slices.Contains(args, "-cases") {
				t.Skip("a long property run (-short)")
			}
			args := outputsIn(args, t.TempDir())
			var out [2]bytes.Buffer
			var code [2]int
			for i := range out {
				code[i] = run(&env{stdin: strings.NewReader(""), stdout: &out[i], stderr: io.Discard}, args)
			}
			assert.NotEqual(t, exitBadInput, code[0], "the README's command is refused:\n%s", out[0].String())
			got := [2]string{maskDurations(out[0].String()), maskDurations(out[1].String())}
			same := code[0] == code[1] && got[0] == got[1]
			if why := knownNondeterministic(args); why != "" {
				if same {
					t.Fatalf("now deterministic: remove it from knownNondeterministic (%s)", why)
				}
				t.Skipf("differs between runs: %s", why)
			}
			assert.Equal(t, code[0], code[1], "exit status differs between two runs")
			assert.Equal(t, got[0], got[1], "output differs between two runs")
		})
	}
}

// outputsIn returns args with the files and folders the command writes
// (the values of -o and -itf, and of -html where it names a path the
// repository does not hold) moved into dir: running the README's commands
// leaves the checkout as it was.
func outputsIn(args []string, dir string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		next := out[i+1]
		switch out[i] {
		case "-html":
			if _, err := os.Stat(next); strings.HasPrefix(next, "-") || err == nil {
				continue // a flag of its own (show -html), or an input
			}
		case "-o", "-itf":
		default:
			continue
		}
		out[i+1] = filepath.Join(dir, next)
	}
	return out
}

// durations are the time measurements a command prints ("Finished in
// 1ms", "first in 732µs"): how long the machine took, not what it found.
var durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b`)

// maskDurations replaces every time measurement in out by <duration>.
func maskDurations(out string) string { return durations.ReplaceAllString(out, "<duration>") }

// knownNondeterministic says why a README command is known to give other
// output on another run, or "". The test fails when such a command has
// become deterministic, so that this list only shrinks.
func knownNondeterministic(args []string) string {
	if len(args) > 0 && args[0] == "test" && !slices.Contains(args, "-seed") {
		return "roomspec test without -seed takes its seed from the clock and prints it, so two runs differ by design (with -seed they must not)"
	}
	return ""
}
