// Package scenarios reads the bundled replay scenarios
// (traces/testdata/scenarios): captures made by real libzmq peers or by
// SGLang's own prefill code, each with its prefill event log and the
// verdicts expected of it (NAME.expected.json; NAME.captured.json for a
// capture only the captured-trace suite checks), and their observations
// as replay reads them. The tests of the judge, replay, watch, the HTML
// reports, the captured suite and the CLI all read them through it.
package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/observe"
)

// Dir is the bundled scenarios' folder (traces/testdata/scenarios), an
// absolute path.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("scenarios: no caller information")
	}
	// file is <root>/internal/scenarios/scenarios.go.
	return filepath.Join(filepath.Dir(file), "..", "..", "traces", "testdata", "scenarios")
}

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
	// CapturedOnly says the scenario's expectations are the captured
	// suite's only (NAME.captured.json): replay's tests leave it out.
	CapturedOnly bool `json:"-"`
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

// Read reads scenario name's expectations from dir (NAME.expected.json,
// else NAME.captured.json).
func Read(dir, name string) (Scenario, error) {
	s := Scenario{Name: name, Dir: dir}
	path := filepath.Join(dir, name+".expected.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		path = filepath.Join(dir, name+".captured.json")
		if b, err = os.ReadFile(path); err == nil {
			s.CapturedOnly = true
		}
	}
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

// All reads every replay scenario of dir (NAME.expected.json), in name
// order; a folder without any is an error.
func All(dir string) ([]Scenario, error) { return glob(dir, ".expected.json") }

// WithCaptured reads every scenario of dir, the captured suite's own
// (NAME.captured.json) too, in name order.
func WithCaptured(dir string) ([]Scenario, error) {
	all, err := glob(dir, ".expected.json", ".captured.json")
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b Scenario) int { return strings.Compare(a.Name, b.Name) })
	return all, nil
}

func glob(dir string, suffixes ...string) ([]Scenario, error) {
	var out []Scenario
	for _, suffix := range suffixes {
		files, err := filepath.Glob(filepath.Join(dir, "*"+suffix))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			s, err := Read(dir, strings.TrimSuffix(filepath.Base(f), suffix))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenarios (*%s) in %s", strings.Join(suffixes, ", *"), dir)
	}
	return out, nil
}

// Observations reads the scenario's capture and log as replay reads them
// (traces/observe): its wire observations in capture order, its log's,
// and the capture's end time.
func (s *Scenario) Observations() (wire, log []observe.Observation, end time.Time, err error) {
	f, err := os.Open(s.Capture())
	if err != nil {
		return nil, nil, end, err
	}
	defer f.Close()
	sum, err := observe.ReadCapture(f, decode.Options{}, 0, func(o observe.Observation) { wire = append(wire, o) }, nil)
	if err != nil {
		return nil, nil, end, fmt.Errorf("%s: %w", s.Capture(), err)
	}
	lf, err := os.Open(s.Log())
	if err != nil {
		return nil, nil, end, err
	}
	defer lf.Close()
	rd := observe.NewLogReader(lf)
	for {
		o, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, end, fmt.Errorf("%s: %w", s.Log(), err)
		}
		log = append(log, o)
	}
	return wire, log, sum.End, nil
}
