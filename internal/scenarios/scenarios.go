// Package scenarios reads the bundled replay scenarios
// (traces/testdata/scenarios): captures made by real libzmq peers or by
// SGLang's own prefill code, each with its prefill event log and the
// verdicts expected of it (NAME.expected.json). The tests of replay,
// watch, the HTML reports and the CLI all read them through it.
package scenarios

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Scenario is one scenario's expectations, as NAME.expected.json holds
// them, with where its files are.
type Scenario struct {
	// Name is the scenario's name (its files' base name); Dir the folder
	// that holds them.
	Name, Dir string `json:"-"`
	// Variant is the spec configuration the capture is judged under.
	Variant string `json:"variant"`
	// Deadline is the deadline its verdicts are given with (a Go duration).
	Deadline string `json:"deadline"`
	// Pinned are the rooms never released.
	Pinned []int64 `json:"pinned"`
	// WithLog is each aborted room's verdict with the event log.
	WithLog map[string]string `json:"with_log"`
	// Latency is, for the captures of SGLang's real code, each aborted
	// room's release as the prefill saw it: seconds after its first ABORT.
	Latency map[string]float64 `json:"released_after_abort_s"`
	// Commit is the SGLang commit whose code made the capture, if any.
	Commit string `json:"sglang_commit"`
}

// Capture is the scenario's capture file.
func (s *Scenario) Capture() string { return filepath.Join(s.Dir, s.Name+".pcap") }

// Log is the scenario's prefill event log.
func (s *Scenario) Log() string { return filepath.Join(s.Dir, s.Name+".events.jsonl") }

// DeadlineDuration is Deadline parsed.
func (s *Scenario) DeadlineDuration() (time.Duration, error) {
	d, err := time.ParseDuration(s.Deadline)
	if err != nil {
		return 0, fmt.Errorf("scenario %s: deadline: %w", s.Name, err)
	}
	return d, nil
}

// Read reads scenario name's expectations from dir.
func Read(dir, name string) (Scenario, error) {
	s := Scenario{Name: name, Dir: dir}
	path := filepath.Join(dir, name+".expected.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	if s.Variant == "" {
		return s, fmt.Errorf("%s: no variant", path)
	}
	return s, nil
}

// All reads every scenario of dir, in name order; a folder without any
// is an error.
func All(dir string) ([]Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no scenarios (*.expected.json) in %s", dir)
	}
	out := make([]Scenario, 0, len(files))
	for _, f := range files {
		s, err := Read(dir, strings.TrimSuffix(filepath.Base(f), ".expected.json"))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
