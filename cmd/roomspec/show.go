package main

import (
	"fmt"
	"os"

	"github.com/roomspec/roomspec/report"
)

func init() {
	register(&command{
		name:    "show",
		summary: "draw an ITF trace of the room spec as a step table or a sequence diagram (HTML)",
		run:     runShow,
	})
}

func runShow(e *env, args []string) int {
	fs := newFlagSet(e, "show", "FILE.itf.json",
		`Reads an ITF trace of Room.tla (written by roomspec test -itf, replay -itf,
or any tool that prints the spec's states as ITF), finds the spec steps
between its states, and prints them as a step table, or with -html as a
self-contained HTML sequence diagram (to stdout, or to -o FILE). The
states must follow the steps of -variant, else of the variant the trace
names, else of some bundled variant (the first one is said).
Flags may come before or after FILE.

Exit status: 0, 2 on bad input (not ITF, or not a behaviour of the spec).`)
	html := fs.Bool("html", false, "write an HTML sequence diagram instead of the step table")
	out := fs.String("o", "", "write to `FILE` instead of stdout")
	variant := fs.String("variant", "", "bundled variant whose steps the trace follows (default: the trace's, else the first that fits)")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	files := fs.Args()
	if len(files) != 1 {
		fs.Usage()
		return exitBadInput
	}
	if err := checkVariant(*variant); err != nil {
		fmt.Fprintf(e.stderr, "roomspec show: %v\n", err)
		return exitBadInput
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec show: %v\n", err)
		return exitBadInput
	}
	t, err := report.ReadITF(data, *variant)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec show: %s: %v\n", files[0], err)
		return exitBadInput
	}
	d := t.Diagram
	if d.Title == "" {
		d.Title = files[0]
	}
	if !*html {
		w := e.stdout
		if *out != "" {
			f, err := os.Create(*out)
			if err != nil {
				fmt.Fprintf(e.stderr, "roomspec show: %v\n", err)
				return exitBadInput
			}
			defer f.Close()
			w = f
		}
		if err := d.WriteText(w); err != nil {
			fmt.Fprintf(e.stderr, "roomspec show: %v\n", err)
			return exitBadInput
		}
		return exitOK
	}
	page := report.NewDiagramPage("roomspec show: "+d.Title, "roomspec show -variant "+t.Variant+" "+files[0])
	page.AddDiagram(d)
	if *out != "" {
		err = writePage(page, *out)
	} else {
		err = page.WriteHTML(e.stdout)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec show: %v\n", err)
		return exitBadInput
	}
	return exitOK
}
