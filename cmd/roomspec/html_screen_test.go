package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/browser"
	"github.com/roomspec/roomspec/internal/scenarios"
)

// TestReplayHTMLFirstScreen is issue 22's first screen, in Chromium at
// 1400 and 1920 pixels wide: the replay report of the README's capture
// (SGLang's real code, with its log) opens its first pinned room, whose
// sentence (why it is pinned, the text report's) is said in the lead line
// within the first screen and in the room's view; the timeline and the
// histogram have legends; and nothing is cut: no text of the page, the
// table or the open diagram ends beyond the box that holds it (a box
// that scrolls sideways counts: its reader would have to scroll), and no
// table cell is cut short without its whole text in a tooltip.
// Screenshots are kept (-artifacts DIR).
func TestReplayHTMLFirstScreen(t *testing.T) {
	b := browser.Start(t)
	shots := artifactDir(t)
	sc, err := scenarios.Read(scenarios.Dir(), "real-small-69a31ce34")
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	args := []string{"replay", "-variant", sc.Variant, "-deadline", sc.Deadline, "-log", sc.Log()}
	text, _ := roomspec(t, append(args, "-html", page, sc.Capture())...)
	// The first pinned room and its sentence, as the text report says them.
	var room, why string
	for _, l := range strings.Split(text, "\n") {
		if room == "" && strings.HasPrefix(l, "room ") && strings.Contains(l, ": violated: ") {
			room = strings.Fields(l)[1]
			room = strings.TrimSuffix(room, ":")
			continue
		}
		if room != "" && why == "" {
			why, _ = strings.CutPrefix(l, "  why: ")
		}
	}
	if room == "" || why == "" {
		t.Fatalf("no pinned room with its sentence in the text report:\n%s", text)
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{1400, 1920} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			tab, err := b.Open("file://"+abs, width, 900, `document.body.dataset.ready === "true"`, 30*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Close()
			type screen struct {
				Row, Lead, Why string
				LeadBottom     float64
				Legends        []int
				Cut            []string
				Height         float64
			}
			s, err := browser.Eval[screen](tab, `(function () {
				var d = document.getElementById("detail"), lead = document.getElementById("lead"), w = d.querySelector(".why");
				var out = { Row: d.dataset.row || "", Lead: lead ? lead.textContent : "", Why: w ? w.textContent : "",
					LeadBottom: lead ? lead.getBoundingClientRect().bottom : 1e9, Legends: [], Cut: [], Height: innerHeight };
				document.querySelectorAll("figure.chart").forEach(function (f) { out.Legends.push(f.querySelectorAll(".legend span").length); });
				// A text is cut when it ends beyond what can be seen or
				// scrolled to: past the window (the page does not scroll
				// sideways), or past an ancestor that clips without scrolling.
				var vw = document.documentElement.clientWidth;
				document.querySelectorAll("main text, main td, main p, main span, header p, header h1").forEach(function (e) {
					var r = e.getBoundingClientRect();
					if (r.width === 0 || e.closest("[hidden]")) { return; }
					var right = vw, svg = e.ownerSVGElement;
					for (var a = svg || e.parentElement; a && a !== document.body; a = a.parentElement) {
						var st = getComputedStyle(a);
						// A box that scrolls sideways hides what is beyond its
						// edge as one that clips does: the reader must scroll.
						if (st.overflowX !== "visible") { right = Math.min(right, a.getBoundingClientRect().right); }
					}
					if (svg) { right = Math.min(right, svg.getBoundingClientRect().right); }
					if (e.tagName === "TD" && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).textOverflow === "ellipsis" && e.title === "") {
						out.Cut.push("ellipsis without title: " + e.textContent.slice(0, 60));
						return;
					}
					if (r.right > right + 1) { out.Cut.push(e.tagName + " ends at " + Math.round(r.right) + " > " + Math.round(right) + ": " + e.textContent.slice(0, 60)); }
				});
				if (document.documentElement.scrollWidth > vw + 1) { out.Cut.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + vw); }
				return out;
			})()`)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(s.Row, room+"@") {
				t.Errorf("the page opens %q, want the first pinned room %s", s.Row, room)
			}
			if !strings.Contains(s.Lead, why) || !strings.Contains(s.Why, why) {
				t.Errorf("the sentence %q\nlead: %q\nroom view: %q", why, s.Lead, s.Why)
			}
			if s.LeadBottom > s.Height {
				t.Errorf("the lead line ends at %v, below the first screen (%v)", s.LeadBottom, s.Height)
			}
			if len(s.Legends) != 2 || s.Legends[0] == 0 || s.Legends[1] == 0 {
				t.Errorf("legend entries per chart: %v", s.Legends)
			}
			for _, c := range s.Cut {
				t.Errorf("cut at %d px: %s", width, c)
			}
			png, err := tab.Screenshot("")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("replay-first-screen-%d.png", width)), png, 0o644); err != nil {
				t.Fatal(err)
			}
			if errs := tab.Errors(); len(errs) > 0 {
				t.Errorf("console errors: %q", errs)
			}
		})
	}
}
