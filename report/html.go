package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

var (
	//go:embed page.html.tmpl
	pageTemplate string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"f": func(x float64) string { return fmt.Sprintf("%.1f", x) },
}).Parse(pageTemplate))

// view is what the template draws.
type view struct {
	Title, Subtitle string
	Why             []string
	// Lead says, first, why the room the page opens with is pinned;
	// LeadID is its row.
	Lead, LeadID string
	CSS          template.CSS
	JS           template.JS
	Data         template.JS
	Summary      []fact
	Counts       []count
	Charts       []*chart
	Graph        *graphView
	Variant      string
}

type fact struct{ Name, Value string }

// factName turns a report's fact name ("log.offset_rooms") into the
// page's words ("log offset rooms").
var factName = strings.NewReplacer(".", " ", "_", " ")

type count struct {
	Verdict string
	N       int
}

// WriteHTML writes the page.
func (p *Page) WriteHTML(w io.Writer) error {
	data, err := p.data()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	v := view{Title: p.Title, Subtitle: p.Subtitle, CSS: template.CSS(pageCSS), JS: template.JS(pageJS),
		Data: template.JS(data), Graph: p.statusGraph(), Variant: p.variant}
	switch {
	case p.replay != nil && p.replay.rep != nil:
		rep := p.replay.rep
		v.Why = p.replay.Why
		if l := p.replay.lead; l != nil {
			v.Lead, v.LeadID = l.text, l.id
		}
		v.Summary = []fact{{"rooms", fmt.Sprint(rep.Total)}, {"aborted", fmt.Sprint(rep.Aborted)},
			{"deadline", rep.Deadline.String()}, {"capture", span(p.replay.start, rep.End)},
			{"search bound", fmt.Sprintf("%d unseen steps, %d states", rep.MaxHidden, rep.MaxStates)}}
		// What the report says of its inputs: the log's fit to the
		// capture, the capture's damage.
		for _, f := range rep.Facts() {
			v.Summary = append(v.Summary, fact{factName.Replace(f.Name), f.Value})
		}
		for _, vd := range verdictOrder {
			v.Counts = append(v.Counts, count{string(vd), rep.Count(vd)})
		}
		v.Charts = []*chart{p.replay.latencyChart(), p.replay.timelineChart()}
	case p.capt != nil:
		v.Summary = []fact{{"seed", fmt.Sprint(p.capt.Seed)}, {"schedules per room", fmt.Sprint(p.capt.Cases)}}
		for _, vd := range p.verdict {
			v.Counts = append(v.Counts, count{vd, p.counts[vd]})
		}
	default:
		for _, vd := range p.verdict {
			v.Counts = append(v.Counts, count{vd, p.counts[vd]})
		}
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func span(start, end time.Time) string {
	if start.IsZero() {
		return "until " + stamp(end)
	}
	return fmt.Sprintf("%s + %v", stamp(start), round(end.Sub(start)))
}
