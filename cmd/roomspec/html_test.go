package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/browser"
	"github.com/roomspec/roomspec/internal/scenarios"
)

var artifacts = flag.String("artifacts", "", "keep the browser tests' screenshots in `DIR` (default: the test's temporary folder)")

// artifactDir is where a test keeps its screenshots.
func artifactDir(t *testing.T) string {
	if *artifacts == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(*artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	return *artifacts
}

// roomspec runs the CLI in-process and returns its stdout and exit code.
func roomspec(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errs}, args)
	if code == exitBadInput {
		t.Fatalf("roomspec %s: exit %d: %s", strings.Join(args, " "), code, errs.String())
	}
	return out.String(), code
}

// openPage opens an HTML report in Chromium and waits for its script.
func openPage(t *testing.T, b *browser.Browser, path, hash string) *browser.Tab {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := b.Open("file://"+abs+hash, 1700, 1000, `document.body.dataset.ready === "true"`, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	return tab
}

// tableRows scrolls through the page's table (it draws only the rows in
// view) and returns every row as "ID VERDICT" with the text of the room
// and verdict cells.
func tableRows(t *testing.T, tab *browser.Tab) []string {
	t.Helper()
	rows, err := browser.Eval[[]string](tab, `(async function () {
		var table = document.getElementById("table"), seen = {}, out = [];
		var frame = function () { return new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); }); };
		for (var top = 0; ; top += Math.max(1, table.clientHeight - 30)) {
			table.scrollTop = top;
			await frame();
			document.querySelectorAll("#body tr.r").forEach(function (r) {
				if (seen[r.dataset.n]) { return; }
				seen[r.dataset.n] = true;
				var room = r.querySelector('[data-k="room"]'), verdict = r.querySelector('[data-k="verdict"]');
				out.push(r.dataset.id + " " + (room ? room.textContent : "") + " " + verdict.textContent);
			});
			if (top + table.clientHeight >= table.scrollHeight) { break; }
		}
		table.scrollTop = 0;
		await frame();
		return out;
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// isSummaryLine reports whether a line of replay -format json is its
// last, the summary's, not a room's.
func isSummaryLine(line []byte) bool { return bytes.HasPrefix(line, []byte(`{"summary":`)) }

type jsonRoomLine struct {
	Room    int64  `json:"room"`
	Verdict string `json:"verdict"`
	Prefill string `json:"prefill"`
}

// TestReplayHTMLInBrowser loads the report of every bundled scenario
// (with its log and from the wire alone), and of every capture of the
// decoder's tests (random rooms, most of them invalid), in headless
// Chromium: no console error, the rooms and verdicts of the table are
// those of -format json, every pinned room's diagram opens and shows the
// steps that pin it (with the state they changed on hover), and every
// invalid room's the observation no step explains. A screenshot of each
// report, with its first pinned room open, is kept (-artifacts DIR).
func TestReplayHTMLInBrowser(t *testing.T) {
	b := browser.Start(t)
	shots := artifactDir(t)
	dir := t.TempDir()
	type replayCase struct {
		name    string
		args    []string
		capture string
	}
	var cases []replayCase
	all, err := scenarios.All(scenarios.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		args := []string{"replay", "-variant", sc.Variant, "-deadline", sc.Deadline}
		cases = append(cases, replayCase{sc.Name, append(slices.Clone(args), "-log", sc.Log()), sc.Capture()},
			replayCase{sc.Name + "-wire", args, sc.Capture()})
	}
	decoded, _ := filepath.Glob("../../traces/testdata/captures/*.pcap*")
	for _, capture := range decoded {
		cases = append(cases, replayCase{"captures-" + strings.Split(filepath.Base(capture), ".")[0], []string{"replay"}, capture})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := roomspec(t, append(slices.Clone(tc.args), "-format", "json", tc.capture)...)
			var want []string
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if isSummaryLine(sc.Bytes()) {
					continue
				}
				var j jsonRoomLine
				if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
					t.Fatal(err)
				}
				id := fmt.Sprint(j.Room)
				if j.Prefill != "" {
					id += "@" + j.Prefill
				}
				want = append(want, fmt.Sprintf("%s %d %s", id, j.Room, j.Verdict))
			}
			page := filepath.Join(dir, tc.name+".html")
			roomspec(t, append(slices.Clone(tc.args), "-html", page, tc.capture)...)
			tab := openPage(t, b, page, "")
			got := tableRows(t, tab)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("rooms in the page:\n%s\nrooms of -format json:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			var shot string
			invalid := 0
			for _, row := range got {
				f := strings.Fields(row)
				switch f[2] {
				case "violated", "at-risk":
					checkPinnedDiagram(t, tab, f[0], f[2])
					if shot == "" {
						shot = f[0]
					}
				case "invalid":
					if invalid++; invalid <= 10 {
						checkInvalidDiagram(t, tab, f[0])
					}
				}
			}
			if shot != "" {
				if err := tab.Click(fmt.Sprintf(`#body tr[data-id="%s"]`, shot)); err != nil {
					t.Fatal(err)
				}
				// The pinned room's diagram alone (the README shows the
				// first of storm-fork's).
				png, err := tab.Screenshot("#detail")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(shots, "replay-"+tc.name+"-pinned-room.png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if len(got) > 0 {
				if err := tab.Click("#body tr.r"); err != nil {
					t.Fatal(err)
				}
			}
			png, err := tab.Screenshot("")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(shots, "replay-"+tc.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
			if errs := tab.Errors(); len(errs) > 0 {
				t.Errorf("console errors: %q", errs)
			}
		})
	}
}

// checkInvalidDiagram opens an invalid room's diagram and checks that it
// shows the observation no spec step explains.
func checkInvalidDiagram(t *testing.T, tab *browser.Tab, id string) {
	t.Helper()
	if err := tab.Click(fmt.Sprintf(`#body tr[data-id="%s"]`, id)); err != nil {
		t.Fatal(err)
	}
	text, err := browser.Eval[string](tab, `(function () {
		var d = document.getElementById("detail"), u = d.querySelector("svg.seq text.unexpl");
		return d.dataset.row === `+jsQuote(id)+` && u ? u.textContent : "";
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "no spec step explains it") {
		t.Errorf("room %s: invalid, but its diagram shows no unexplained observation (%q)", id, text)
	}
}

func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// checkPinnedDiagram opens a violated or at-risk room's diagram and checks
// that it shows how the room is pinned: the band from the state it is
// pinned from, the steps before it (each hovered shows what it changed),
// and for an at-risk room the completion that pins it.
func checkPinnedDiagram(t *testing.T, tab *browser.Tab, id, verdict string) {
	t.Helper()
	if err := tab.Click(fmt.Sprintf(`#body tr[data-id="%s"]`, id)); err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Row      string
		Steps    int
		Stuck    bool
		Before   int
		Unseen   int
		PinSteps int
		Label    string
	}
	s, err := browser.Eval[summary](tab, `(function () {
		var d = document.getElementById("detail"), band = d.querySelector("rect.stuck");
		var steps = d.querySelectorAll("g.step[data-s]"), before = 0;
		var top = band ? band.getBBox().y : Infinity;
		steps.forEach(function (g) { if (+g.dataset.s > 0 && g.querySelector("rect.hit").getBBox().y < top) { before++; } });
		var label = d.querySelector("text.stuck-label");
		return { Row: d.dataset.row, Steps: steps.length, Stuck: !!band, Before: before,
			Unseen: d.querySelectorAll("g.step.k2").length, PinSteps: d.querySelectorAll("g.step.k3").length,
			Label: label ? label.textContent : "" };
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Row != id {
		t.Fatalf("room %s: the detail shows %q", id, s.Row)
	}
	// A violated room may be released late, or pinned only by a timeout yet
	// to fire: the band is drawn only when some explanation pins it.
	if s.Stuck {
		if s.Before == 0 || !strings.Contains(s.Label, "pinned from here") {
			t.Errorf("room %s (%s): pinned band with %d steps before it, label %q", id, verdict, s.Before, s.Label)
		}
	} else if verdict == "at-risk" {
		t.Errorf("room %s: at-risk, but its diagram shows no state it is pinned from", id)
	}
	if verdict == "at-risk" && s.PinSteps == 0 && s.Unseen == 0 {
		t.Errorf("room %s: at-risk, but no inferred step is drawn", id)
	}
	if err := tab.Hover(`#detail g.step[data-s="1"]`); err != nil {
		t.Fatal(err)
	}
	tip, err := browser.Eval[string](tab, `document.getElementById("tip").hidden ? "" : document.getElementById("tip").textContent`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tip, "#1 ") || !strings.Contains(tip, "changed") {
		t.Errorf("room %s: hovering step 1 shows %q", id, tip)
	}
}

// TestCounterexampleHTMLInBrowser draws counterexamples of roomspec check
// and test, a captured room of test -captures, and ITF traces (of test
// and of replay) with roomspec show, and loads each in Chromium: no
// console error, and the diagram has a row per step of the behaviour (a
// lasso's loop marked).
func TestCounterexampleHTMLInBrowser(t *testing.T) {
	b := browser.Start(t)
	shots := artifactDir(t)
	dir := t.TempDir()
	scen := "../../traces/testdata/scenarios/"
	roomspec(t, "check", "-variant", "fork-90a52f44a", "-html", filepath.Join(dir, "check"))
	roomspec(t, "test", "-impl", "fork-90a52f44a", "-seed", "1", "-html", filepath.Join(dir, "test"))
	roomspec(t, "test", "-captures", scen+"healthy-pinnable.pcap", "-impl", "fork-90a52f44a", "-seed", "1", "-html", filepath.Join(dir, "captures"))
	roomspec(t, "show", "../../conformance/testdata/pre-30352-liveness.itf.json", "-html", "-o", filepath.Join(dir, "show-test.html"))
	roomspec(t, "replay", "-variant", "fork-90a52f44a", "-deadline", "2s", "-itf", filepath.Join(dir, "itf"), scen+"storm-fork.pcap")
	roomspec(t, "show", "-variant", "fork-90a52f44a", "-html", "-o", filepath.Join(dir, "show-replay.html"), filepath.Join(dir, "itf", "room-101.itf.json"))
	for _, tt := range []struct {
		page string
		hash string
		loop bool
	}{
		{"check/fork-90a52f44a-AbortedRoomsTerminate.html", "", true},
		{"check/fork-90a52f44a-NoWriteAfterRelease.html", "", false},
		{"check/index.html", "", false},
		{"check/index.html", "#4", true}, // NoWriteAfterRelease, NoEntryAfterRelease, NoFreeWhileWriting, then the lasso
		{"test/fork-90a52f44a-liveness.html", "", false},
		{"captures/captures.html", "#" + "healthy-pinnable.pcap/40/fork-90a52f44a", false},
		{"show-test.html", "", false},
		{"show-replay.html", "", true}, // a pinned room's ITF: a lasso in the state that pins it
	} {
		t.Run(tt.page, func(t *testing.T) {
			tab := openPage(t, b, filepath.Join(dir, tt.page), tt.hash)
			type shape struct {
				Open     bool
				Steps    int
				Expected string
				Loop     bool
			}
			s, err := browser.Eval[shape](tab, `(function () {
				var d = document.getElementById("detail");
				var sel = document.querySelector("#body tr.sel");
				var cell = sel && (sel.querySelector('[data-k="steps"]') || sel.querySelector('[data-k="schedules"]'));
				return { Open: !d.hidden && !!d.querySelector("svg.seq"), Steps: d.querySelectorAll("g.step[data-s]").length,
					Expected: sel && sel.querySelector('[data-k="steps"]') ? sel.querySelector('[data-k="steps"]').textContent : "",
					Loop: !!d.querySelector("path.loop") };
			})()`)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Open || s.Steps < 2 {
				t.Fatalf("no diagram open: %+v", s)
			}
			if s.Expected != "" && fmt.Sprint(s.Steps-1) != s.Expected {
				t.Errorf("%d step rows drawn, the table says %s steps", s.Steps-1, s.Expected)
			}
			if s.Loop != tt.loop {
				t.Errorf("loop drawn: %v, want %v", s.Loop, tt.loop)
			}
			png, err := tab.Screenshot("")
			if err != nil {
				t.Fatal(err)
			}
			name := strings.NewReplacer("/", "-").Replace(strings.TrimSuffix(tt.page, ".html"))
			if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
			if errs := tab.Errors(); len(errs) > 0 {
				t.Errorf("console errors: %q", errs)
			}
		})
	}
}
