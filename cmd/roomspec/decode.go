package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/roomspec/roomspec/traces/decode"
)

func init() {
	register(&command{
		name:    "decode",
		summary: "decode SGLang ZeroMQ control messages from pcap/pcapng captures",
		run:     runDecode,
	})
}

// portList is a repeatable -port flag.
type portList []uint16

func (p *portList) String() string {
	s := make([]string, len(*p))
	for i, v := range *p {
		s[i] = strconv.Itoa(int(v))
	}
	return strings.Join(s, ",")
}

func (p *portList) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 16)
	if err != nil || n == 0 {
		return fmt.Errorf("not a TCP port: %q", v)
	}
	*p = append(*p, uint16(n))
	return nil
}

func runDecode(e *env, args []string) int {
	fs := newFlagSet(e, "decode", "CAPTURE...",
		`Decode the ZeroMQ (ZMTP 3.x) control traffic of SGLang prefill/decode
disaggregation in pcap or pcapng captures: one line per message with the
frame number, timestamp, connection, socket types, kind, room and main
fields. Connections are recognised as ZeroMQ by their greeting, or, for
connections that started before the capture, by resynchronising on the
frame structure. Diagnostics (gaps, resyncs, malformed frames) go to stderr
with frame numbers, then a summary line per file.

Exit status: 0 when every file was read (damage inside a file is reported,
not fatal), 2 when a file cannot be read or is not a capture.`)
	format := fs.String("format", "text", "output format: text or json (one object per line)")
	var ports portList
	fs.Var(&ports, "port", "treat TCP `port` as ZeroMQ even without a captured greeting (repeatable)")
	quiet := fs.Bool("q", false, "do not print diagnostics, only the summary")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(e.stderr, "roomspec decode: -format must be text or json, not %q\n", *format)
		return exitBadInput
	}
	files := fs.Args()
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "roomspec decode: no capture files given")
		fs.Usage()
		return exitBadInput
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	code := exitOK
	for _, name := range files {
		label := ""
		if len(files) > 1 {
			label = name
		}
		if err := decodeFile(e, out, name, label, *format, ports, *quiet); err != nil {
			out.Flush()
			fmt.Fprintf(e.stderr, "roomspec decode: %v\n", err)
			code = exitBadInput
		}
	}
	return code
}

func decodeFile(e *env, out *bufio.Writer, name, label, format string, ports portList, quiet bool) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	r, bar := withProgress(e, f, name)
	prefix := ""
	if label != "" {
		prefix = label + ": "
	}
	var werr error
	// Messages are only printed, never kept, so the decoder may reuse
	// their memory (Options.Reuse) and lines are built in one buffer.
	var line []byte
	onMsg := func(m *decode.Message) {
		if werr != nil {
			return
		}
		if label != "" && format == "text" {
			out.WriteString(prefix)
		}
		if format == "json" {
			var err error
			line, err = m.AppendJSON(line[:0], label)
			if err != nil {
				werr = err
				return
			}
		} else {
			line = m.AppendText(line[:0])
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	onDiag := func(d decode.Diagnostic) {
		if quiet {
			return
		}
		// Keep stdout and stderr in capture order when both go to one place.
		out.Flush()
		bar.clear()
		fmt.Fprintf(e.stderr, "%s%s: %v\n", prefix, d.Kind, d)
	}
	sum, err := decode.Run(r, decode.Options{Ports: ports, Reuse: true}, onMsg, onDiag)
	bar.clear()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if werr != nil {
		return werr
	}
	out.Flush()
	fmt.Fprintf(e.stderr, "%s%s: %v\n", prefix, sum.Format, sum)
	return nil
}

// withProgress returns f, read through a progress bar on stderr when
// stderr is a terminal (bar is then non-nil).
func withProgress(e *env, f *os.File, name string) (r io.Reader, bar *progress) {
	if e.stderrIsTerminal {
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			bar = &progress{r: f, w: e.stderr, name: name, total: fi.Size()}
			return bar, bar
		}
	}
	return f, nil
}

// progress counts the bytes read and redraws a bar on the terminal at most
// a few times a second.
type progress struct {
	r         io.Reader
	w         io.Writer
	name      string
	total     int64
	done      int64
	last      time.Time
	drawnOnce bool
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if now := time.Now(); now.Sub(p.last) > 200*time.Millisecond {
		p.last = now
		const width = 30
		frac := float64(p.done) / float64(p.total)
		fill := min(int(frac*width), width)
		fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %d/%d MB", p.name, strings.Repeat("#", fill),
			strings.Repeat(" ", width-fill), 100*frac, p.done>>20, p.total>>20)
		p.drawnOnce = true
	}
	return n, err
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
