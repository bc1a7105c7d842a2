package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla/check"
)

func init() {
	register(&command{
		name:    "diagram",
		summary: "draw the room-status state machine from the spec's reachable graph",
		run:     runDiagram,
	})
}

// defaultProjection is one room's request_status in the bundled spec.
const defaultProjection = `request_status[CHOOSE r \in Rooms : TRUE]`

func runDiagram(e *env, args []string) int {
	fs := newFlagSet(e, "diagram", "",
		"Explores the bundled Room.tla under a variant, projects every reachable state onto one\n"+
			"room's status (or -project EXPR) and prints the transitions between statuses with the\n"+
			"actions that cause them, as Mermaid (for the README) or DOT (for Graphviz).")
	variant := fs.String("variant", "upstream", "bundled variant to explore")
	format := fs.String("format", "mermaid", "output `format`: mermaid or dot")
	project := fs.String("project", defaultProjection, "state function (TLA+) whose values are the diagram's nodes")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if *format != "mermaid" && *format != "dot" {
		fmt.Fprintf(e.stderr, "roomspec diagram: -format must be mermaid or dot, not %q\n", *format)
		return exitBadInput
	}
	p, err := projectBundled(*variant, *project)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec diagram: %v\n", err)
		return exitBadInput
	}
	if *format == "dot" {
		writeDOT(e.stdout, *variant, p)
	} else {
		writeMermaid(e.stdout, p)
	}
	return exitOK
}

func projectBundled(variant, expr string) (*check.Projection, error) {
	v, err := spec.Load(variant)
	if err != nil {
		return nil, err
	}
	// The diagram needs the graph only, not the verdicts.
	v.Cfg.Invariants, v.Cfg.Properties = nil, nil
	m, err := v.Model()
	if err != nil {
		return nil, err
	}
	f, err := m.Spec.ParseFormula(expr)
	if err != nil {
		return nil, fmt.Errorf("-project: %w", err)
	}
	r := check.Check(context.Background(), m, check.Options{Graph: true})
	if r.Outcome == check.Failure {
		return nil, r.Err
	}
	return check.Project(m.Spec, r.Graph, f)
}

// nodeName turns a projected value (e.g. "Absent") into a diagram id.
func nodeName(v string) string {
	v = strings.Trim(v, `"`)
	var b strings.Builder
	for _, r := range v {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteRune('_')
		}
	}
	return b.String()
}

func writeMermaid(w io.Writer, p *check.Projection) {
	fmt.Fprintln(w, "stateDiagram-v2")
	for _, n := range p.Initial {
		fmt.Fprintf(w, "    [*] --> %s\n", nodeName(n))
	}
	for _, t := range p.Transitions {
		fmt.Fprintf(w, "    %s --> %s: %s\n", nodeName(t.From), nodeName(t.To), strings.Join(t.Actions, ", "))
	}
}

func writeDOT(w io.Writer, variant string, p *check.Projection) {
	fmt.Fprintf(w, "digraph %q {\n", "room-status-"+variant)
	fmt.Fprintln(w, "    rankdir=LR;")
	fmt.Fprintln(w, "    node [shape=box, style=rounded];")
	fmt.Fprintln(w, "    start [shape=point];")
	for _, n := range p.Nodes {
		fmt.Fprintf(w, "    %s [label=%q];\n", nodeName(n), strings.Trim(n, `"`))
	}
	for _, n := range p.Initial {
		fmt.Fprintf(w, "    start -> %s;\n", nodeName(n))
	}
	for _, t := range p.Transitions {
		fmt.Fprintf(w, "    %s -> %s [label=%q];\n", nodeName(t.From), nodeName(t.To), strings.Join(t.Actions, "\\n"))
	}
	fmt.Fprintln(w, "}")
}
