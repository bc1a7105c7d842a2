package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/traces/judge"
)

// The summary's charts and the status diagram are drawn here, in Go, as
// SVG: their size does not grow with the rooms (bins, not points), and
// they are the same bytes on every run.

type bar struct {
	X, Y, W, H float64
	Class      string
	Tip        string
}

type label struct {
	X, Y   float64
	Anchor string
	Text   string
	Class  string
}

type line struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

type chart struct {
	W, H   float64
	Title  string
	Bars   []bar
	Labels []label
	Lines  []line
	// Legend names what each class of bar stands for.
	Legend []legendEntry
}

// legendEntry is a swatch of a bar class and what it stands for.
type legendEntry struct{ Class, Text string }

const chartW, chartH, chartPad = 560.0, 150.0, 28.0

// latencyChart is the histogram of abort-to-release latency of the
// released rooms, with the rooms never released (pinned, or not yet)
// beside it, and the deadline marked.
func (ri *replayInfo) latencyChart() *chart {
	dl := ri.rep.Deadline
	maxLat := time.Duration(0)
	var never, pending int
	for i, l := range ri.latencies {
		switch {
		case l >= 0:
			maxLat = max(maxLat, time.Duration(l))
		case ri.pinned[i]:
			never++
		case ri.waiting[i]:
			pending++
		}
	}
	hi := max(maxLat, dl+dl/4)
	if hi <= 0 {
		hi = time.Second
	}
	const bins = 30
	counts := make([]int, bins)
	for _, l := range ri.latencies {
		if l >= 0 {
			counts[min(bins-1, int(float64(l)/float64(hi)*bins))]++
		}
	}
	top := max(slices.Max(counts), never, pending, 1)
	c := &chart{W: chartW, H: chartH, Title: "abort → release latency",
		Legend: []legendEntry{{"ok", "released within the deadline"}, {"late", "released after it"}, {"pinned", "never released"}, {"pending", "not released when the capture ended"}}}
	plotW := chartW - 2*chartPad - 90
	bw := plotW / bins
	base := chartH - chartPad
	scale := (chartH - 2*chartPad) / float64(top)
	for i, n := range counts {
		if n == 0 {
			continue
		}
		from := time.Duration(float64(hi) * float64(i) / bins)
		to := time.Duration(float64(hi) * float64(i+1) / bins)
		class := "ok"
		if from >= dl {
			class = "late"
		}
		h := float64(n) * scale
		c.Bars = append(c.Bars, bar{X: chartPad + float64(i)*bw, Y: base - h, W: bw - 1, H: h, Class: class,
			Tip: fmt.Sprintf("%d rooms released %v–%v after the abort", n, round(from), round(to))})
	}
	x := chartPad + plotW + 20
	for _, b := range []struct {
		n          int
		class, tip string
	}{{never, "pinned", "never released (violated or at-risk)"}, {pending, "pending", "not released yet when the capture ended"}} {
		h := float64(b.n) * scale
		c.Bars = append(c.Bars, bar{X: x, Y: base - h, W: 28, H: h, Class: b.class, Tip: fmt.Sprintf("%d rooms %s", b.n, b.tip)})
		c.Labels = append(c.Labels, label{X: x + 14, Y: base + 14, Anchor: "middle", Text: map[string]string{"pinned": "never", "pending": "pending"}[b.class]})
		c.Labels = append(c.Labels, label{X: x + 14, Y: base - h - 3, Anchor: "middle", Text: fmt.Sprint(b.n), Class: "n"})
		x += 36
	}
	dx := chartPad + plotW*float64(dl)/float64(hi)
	c.Lines = append(c.Lines, line{X1: chartPad, Y1: base, X2: chartPad + plotW, Y2: base, Class: "axis"},
		line{X1: dx, Y1: chartPad - 6, X2: dx, Y2: base, Class: "deadline"})
	c.Labels = append(c.Labels, label{X: dx, Y: chartPad - 9, Anchor: "middle", Text: "deadline " + dl.String(), Class: "dl"},
		label{X: chartPad, Y: base + 14, Anchor: "start", Text: "0"},
		label{X: chartPad + plotW, Y: base + 14, Anchor: "end", Text: round(hi).String()},
		label{X: chartPad - 4, Y: chartPad + 4, Anchor: "end", Text: fmt.Sprint(top), Class: "n"})
	return c
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// timelineChart counts aborts (up) and releases (down) over capture time;
// the aborts of pinned rooms are drawn apart.
func (ri *replayInfo) timelineChart() *chart {
	start, end := ri.start.UnixNano(), ri.rep.End.UnixNano()
	for _, t := range ri.aborts {
		if t != 0 && (start == 0 || t < start) {
			start = t
		}
	}
	if end <= start {
		end = start + int64(time.Second)
	}
	const bins = 60
	ab, pin, rel := make([]int, bins), make([]int, bins), make([]int, bins)
	bin := func(t int64) int { return max(0, min(bins-1, int(float64(t-start)/float64(end-start)*bins))) }
	for i, t := range ri.aborts {
		if t == 0 {
			continue
		}
		if ri.pinned[i] {
			pin[bin(t)]++
		} else {
			ab[bin(t)]++
		}
		if r := ri.releases[i]; r != 0 {
			rel[bin(r)]++
		}
	}
	top := 1
	for i := range ab {
		top = max(top, ab[i]+pin[i], rel[i])
	}
	c := &chart{W: chartW, H: chartH, Title: "aborts (up) and releases (down) over the capture",
		Legend: []legendEntry{{"abort", "aborts of rooms released (or not yet due)"}, {"pinned", "aborts of rooms never released (violated or at-risk)"}, {"ok", "releases"}}}
	plotW := chartW - 2*chartPad
	bw := plotW / bins
	mid := chartH / 2
	scale := (mid - chartPad + 6) / float64(top)
	span := time.Duration(end - start)
	for i := 0; i < bins; i++ {
		from := round(time.Duration(float64(span) * float64(i) / bins))
		x := chartPad + float64(i)*bw
		if n := ab[i]; n > 0 {
			h := float64(n) * scale
			c.Bars = append(c.Bars, bar{X: x, Y: mid - h, W: bw - 1, H: h, Class: "abort", Tip: fmt.Sprintf("%d aborts from +%v", n, from)})
		}
		if n := pin[i]; n > 0 {
			h := float64(n) * scale
			y := mid - float64(ab[i])*scale - h
			c.Bars = append(c.Bars, bar{X: x, Y: y, W: bw - 1, H: h, Class: "pinned", Tip: fmt.Sprintf("%d aborts of rooms never released from +%v", n, from)})
		}
		if n := rel[i]; n > 0 {
			h := float64(n) * scale
			c.Bars = append(c.Bars, bar{X: x, Y: mid + 1, W: bw - 1, H: h, Class: "ok", Tip: fmt.Sprintf("%d releases from +%v", n, from)})
		}
	}
	c.Lines = append(c.Lines, line{X1: chartPad, Y1: mid, X2: chartPad + plotW, Y2: mid, Class: "axis"})
	c.Labels = append(c.Labels, label{X: chartPad, Y: chartH - 4, Anchor: "start", Text: stamp(time.Unix(0, start))},
		label{X: chartPad + plotW, Y: chartH - 4, Anchor: "end", Text: "+" + round(span).String()},
		label{X: chartPad - 4, Y: chartPad, Anchor: "end", Text: fmt.Sprint(top), Class: "n"})
	return c
}

// graphView is the room-status state diagram laid out for drawing.
type graphView struct {
	W, H  float64
	Nodes []graphNode
	Edges []graphEdge
	Total int
}

type graphNode struct {
	X, Y, W, H float64
	CX, CY     float64 // where the name goes
	Name       string
	Initial    bool
	Used       bool
}

type graphEdge struct {
	Path       string
	LX, LY     float64
	Label      string
	Count      int
	Used, Only bool
	Tip        string
}

// statusGraph lays the variant's status machine out in layers (distance
// from the initial status) and counts, on each transition, how often the
// page's diagrams took it.
func (p *Page) statusGraph() *graphView {
	g := p.graph
	if g == nil {
		return nil
	}
	unq := func(s string) string { return strings.Trim(s, `"`) }
	nodes := map[string]int{}
	var names []string
	addNode := func(n string) {
		if _, ok := nodes[n]; !ok {
			nodes[n] = len(names)
			names = append(names, n)
		}
	}
	for _, n := range g.Initial {
		addNode(unq(n))
	}
	for _, n := range g.Nodes {
		addNode(unq(n))
	}
	type key struct{ from, to string }
	acts := map[key][]string{}
	var keys []key
	for _, t := range g.Transitions {
		k := key{unq(t.From), unq(t.To)}
		addNode(k.from)
		addNode(k.to)
		if _, ok := acts[k]; !ok {
			keys = append(keys, k)
		}
		acts[k] = append(acts[k], t.Actions...)
	}
	// Transitions the rows took that the variant's graph lacks (another
	// instance of the spec) are drawn too, marked.
	used := map[key]map[string]int{}
	var extra []key
	var edgeKeys [][3]string
	for e := range p.edges {
		edgeKeys = append(edgeKeys, e)
	}
	slices.SortFunc(edgeKeys, func(a, b [3]string) int {
		return strings.Compare(strings.Join(a[:], "\x00"), strings.Join(b[:], "\x00"))
	})
	for _, e := range edgeKeys {
		k := key{e[0], e[1]}
		if used[k] == nil {
			used[k] = map[string]int{}
		}
		used[k][e[2]] += p.edges[e]
		if _, ok := acts[k]; !ok && !slices.Contains(extra, k) {
			extra = append(extra, k)
			addNode(k.from)
			addNode(k.to)
		}
	}
	// Layers: breadth-first distance from the initial statuses.
	layer := make([]int, len(names))
	for i := range layer {
		layer[i] = -1
	}
	var queue []int
	for _, n := range g.Initial {
		i := nodes[unq(n)]
		layer[i] = 0
		queue = append(queue, i)
	}
	all := append(slices.Clone(keys), extra...)
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, k := range all {
			if k.from == names[i] && layer[nodes[k.to]] < 0 {
				layer[nodes[k.to]] = layer[i] + 1
				queue = append(queue, nodes[k.to])
			}
		}
	}
	// An arc diagram: the statuses in a row (in layer order), transitions
	// forward as arcs above it, backward as arcs below.
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return max(layer[a], -1) - max(layer[b], -1) })
	pos := make([]int, len(names))
	for p, i := range order {
		pos[i] = p
	}
	const nodeW, nodeH, gap, pad = 124.0, 30.0, 46.0, 20.0
	v := &graphView{}
	cx := func(i int) float64 { return pad + float64(pos[i])*(nodeW+gap) + nodeW/2 }
	// Each arc's apex is placed so that its label overlaps no other
	// label: an arc is raised (or lowered) until its label is free.
	type placed struct{ x0, x1, y float64 }
	var above, below []placed
	apex := make([]float64, len(all))
	labels := make([]string, len(all))
	for k, e := range all {
		labels[k] = strings.Join(acts[e], ", ")
		if k >= len(keys) {
			labels[k] = "(not in the variant's graph)"
		}
		a, b := nodes[e.from], nodes[e.to]
		w := 5.8*float64(len(labels[k])+4) + 8
		mid := (cx(a) + cx(b)) / 2
		side := &above
		if pos[b] < pos[a] {
			side = &below
		}
		h := 14 + 0.16*math.Abs(cx(b)-cx(a))
		for free := false; !free; {
			free = true
			for _, p := range *side {
				if mid+w/2 > p.x0 && mid-w/2 < p.x1 && math.Abs(h-p.y) < 13 {
					free = false
					h += 13
					break
				}
			}
		}
		*side = append(*side, placed{mid - w/2, mid + w/2, h})
		apex[k] = h
	}
	up, down := 0.0, 0.0
	for _, p := range above {
		up = max(up, p.y+14)
	}
	for _, p := range below {
		down = max(down, p.y+14)
	}
	y := pad + up
	for p, i := range order {
		node := graphNode{X: pad + float64(p)*(nodeW+gap), Y: y, W: nodeW, H: nodeH, Name: names[i]}
		node.CX, node.CY = node.X+nodeW/2, node.Y+nodeH/2+4
		node.Initial = slices.ContainsFunc(g.Initial, func(s string) bool { return unq(s) == names[i] })
		v.Nodes = append(v.Nodes, node)
	}
	v.W = pad*2 + float64(len(names))*(nodeW+gap) - gap
	v.H = y + nodeH + down + pad
	for k, e := range all {
		a, b := &v.Nodes[pos[nodes[e.from]]], &v.Nodes[pos[nodes[e.to]]]
		count := 0
		var parts []string
		for _, act := range acts[e] {
			n := used[e][act]
			count += n
			parts = append(parts, fmt.Sprintf("%s ×%d", act, n))
		}
		if k >= len(keys) {
			for act, n := range used[e] {
				count += n
				parts = append(parts, fmt.Sprintf("%s ×%d", act, n))
			}
			slices.Sort(parts)
		}
		a.Used = a.Used || count > 0
		b.Used = b.Used || count > 0
		v.Total += count
		// A quadratic curve's apex is halfway to its control point.
		x1, x2 := a.X+a.W/2+8, b.X+b.W/2-8
		y1, cy, ly := a.Y, a.Y-2*apex[k], a.Y-apex[k]-3
		if b.X < a.X {
			x1, x2 = a.X+a.W/2-8, b.X+b.W/2+8
			y1, cy, ly = a.Y+a.H, a.Y+a.H+2*apex[k], a.Y+a.H+apex[k]+10
		}
		v.Edges = append(v.Edges, graphEdge{Path: fmt.Sprintf("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f", x1, y1, (x1+x2)/2, cy, x2, y1),
			LX: (x1 + x2) / 2, LY: ly, Count: count, Used: count > 0, Only: k >= len(keys),
			Label: labels[k], Tip: strings.Join(parts, "\n")})
	}
	return v
}

// verdictOrder lists a replay's verdicts in the order of its summary.
var verdictOrder = []judge.Verdict{judge.Satisfied, judge.PredictedReleased, judge.Violated, judge.Inconclusive, judge.AtRisk, judge.Invalid}
