package main

// Reading captures: the files given together are one capture, whatever
// their order; "-" is standard input; gzip is decompressed. decode reads
// them here, and so can replay and watch.

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/observe"
	"github.com/roomspec/roomspec/traces/source"
)

// openCaptures opens the capture files names as one capture: the files
// of a rotation ("tcpdump -C" or "-G") read in the order of their first
// packets, with TCP and ZeroMQ state carried across them and frame
// numbers that Position turns into FILE:FRAME. On a terminal, a progress
// bar (nil otherwise) counts the bytes read of all of them.
func openCaptures(e *env, names []string) (*capture.Files, *progress, error) {
	in, bar, err := captureInputs(e, names)
	if err != nil {
		return nil, nil, err
	}
	files, err := capture.OpenFiles(in)
	if err != nil {
		return nil, nil, err
	}
	if bar != nil {
		bar.done = 0 // the looks at the first packets do not count
	}
	return files, bar, nil
}

// captureInputs returns the capture files names ("-" is standard input,
// gzip is decompressed) as the inputs of one capture, their bytes counted
// by a progress bar on a terminal (nil otherwise).
func captureInputs(e *env, names []string) ([]capture.Input, *progress, error) {
	var bar *progress
	var total int64
	for _, name := range names {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	var wrap func(*os.File) io.Reader
	if e.stderrIsTerminal && total > 0 {
		bar = &progress{w: e.stderr, name: captureLabel(names), total: total}
		wrap = func(f *os.File) io.Reader { return bar.reader(f) }
	}
	in, err := source.Inputs(names, e.stdin, wrap)
	return in, bar, err
}

// readCaptures decodes the capture files names as one capture (see
// openCaptures) and gives emit each message's observation. It returns the
// summary and the capture's last damage (its last diagnostic of no
// stream), if any; the error is for files that cannot be read at all.
func readCaptures(e *env, names []string, ports portList, emit func(observe.Observation)) (decode.Summary, *decode.Diagnostic, error) {
	files, bar, err := openCaptures(e, names)
	if err != nil {
		return decode.Summary{}, nil, err
	}
	defer files.Close()
	defer bar.clear()
	var damage *decode.Diagnostic
	sum := decode.RunRecords(files, decode.Options{Ports: ports, Reuse: true}, func(m *decode.Message) {
		if o, ok := observe.FromMessage(m); ok {
			emit(o)
		}
	}, func(d decode.Diagnostic) {
		if d.Conn == "" {
			d.Msg = d.Text(files)
			damage = &d
		}
	})
	return sum, damage, nil
}

// captureLabel names the capture of the files names in messages: the
// file, or how many files.
func captureLabel(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return fmt.Sprintf("%d files", len(names))
}

// fileList says in which order the files of a capture were read, and
// which frames each holds: "a.pcap (frames 1-20), b.pcap (21-45)".
func fileList(spans []capture.FileSpan) string {
	parts := make([]string, len(spans))
	for i, s := range spans {
		parts[i] = fmt.Sprintf("%s (%d frames)", s.Name, s.Frames)
	}
	return strings.Join(parts, ", ")
}

// progress counts the bytes read and redraws a bar on the terminal at most
// a few times a second.
type progress struct {
	w         io.Writer
	name      string
	total     int64
	done      int64
	last      time.Time
	drawnOnce bool
}

// reader returns r, its bytes counted by p.
func (p *progress) reader(r io.Reader) io.Reader { return &counting{r: r, p: p} }

type counting struct {
	r io.Reader
	p *progress
}

func (c *counting) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.add(n)
	return n, err
}

func (p *progress) add(n int) {
	p.done += int64(n)
	if now := time.Now(); now.Sub(p.last) > 200*time.Millisecond {
		p.last = now
		const width = 30
		frac := min(float64(p.done)/float64(p.total), 1)
		fill := min(int(frac*width), width)
		fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %d/%d MB", p.name, strings.Repeat("#", fill),
			strings.Repeat(" ", width-fill), 100*frac, p.done>>20, p.total>>20)
		p.drawnOnce = true
	}
}

// clear erases the bar so that a diagnostic or the summary starts on a
// clean line; the next Read redraws it.
func (p *progress) clear() {
	if p == nil || !p.drawnOnce {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K")
	p.drawnOnce = false
	p.last = time.Time{}
}
