package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/traces/capture"
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

const decodeHelp = `Decode the ZeroMQ (ZMTP 3.x) control traffic of SGLang prefill/decode
disaggregation in pcap or pcapng captures: one line per message with the
frame number, timestamp, connection, socket types, kind, room and main
fields. Connections are recognised as ZeroMQ by their greeting, or, for
connections that started before the capture, by resynchronising on the
frame structure.

The files given are one capture: the rotations of "tcpdump -C" or "-G" in
any order (they are read in the order of their first packets), with TCP and
ZeroMQ state carried across them; frames are then FILE:FRAME. "-" reads
standard input; gzip files (.pcap.gz) are decompressed.

Diagnostics go to stderr with frame numbers: stream damage (gaps, resyncs,
malformed frames, a message of more than 65536 frames or 256 MiB, dropped)
at each occurrence, damage of the capture itself (packets cut by the snap
length, unknown link types, IP fragments that could not be reassembled,
retransmissions that differ from the first copy, capture time that jumps)
at its first occurrence. Then a summary counts every kind: on stderr, or
with -format json as a last object {"summary": {...}} on stdout.

Exit status: 0 when the capture was read (damage inside a file is reported,
not fatal), 2 when a file cannot be read or is not a capture.`

func runDecode(e *env, args []string) int {
	fs := newFlagSet(e, "decode", "CAPTURE...", decodeHelp)
	format := fs.String("format", "text", "output format: text or json (one object per line)")
	var ports portList
	fs.Var(&ports, "port", "treat TCP `port` as ZeroMQ even without a captured greeting (repeatable)")
	quiet := fs.Bool("q", false, "do not print diagnostics, only the summary")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "roomspec decode: "+format+"\n", a...)
		return exitBadInput
	}
	if *format != "text" && *format != "json" {
		return bad("-format must be text or json, not %q", *format)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return bad("no capture files given")
	}
	files, bar, err := openCaptures(e, fs.Args())
	if err != nil {
		return bad("%v", err)
	}
	defer files.Close()
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	p := &decodePrinter{e: e, out: out, at: files, json: *format == "json", quiet: *quiet, bar: bar}
	// Messages are only printed, never kept: the decoder may reuse their
	// memory (Options.Reuse).
	sum := decode.RunRecords(files, decode.Options{Ports: ports, Reuse: true}, p.message, p.diagnostic)
	bar.clear()
	if err := p.summary(sum); err != nil {
		return bad("%v", err)
	}
	return exitOK
}

// decodePrinter writes decode's messages, diagnostics and summary.
type decodePrinter struct {
	e     *env
	out   *bufio.Writer
	at    *capture.Files
	json  bool
	quiet bool
	bar   *progress
	line  []byte
	err   error
}

func (p *decodePrinter) message(m *decode.Message) {
	if p.err != nil {
		return
	}
	if p.json {
		p.line, p.err = m.AppendJSON(p.line[:0], p.at)
	} else {
		p.line = m.AppendText(p.line[:0], p.at)
	}
	p.line = append(p.line, '\n')
	p.out.Write(p.line)
}

func (p *decodePrinter) diagnostic(d decode.Diagnostic) {
	if p.quiet {
		return
	}
	// Keep stdout and stderr in capture order when both go to one place.
	p.out.Flush()
	p.bar.clear()
	fmt.Fprintf(p.e.stderr, "%s: %s\n", d.Kind, d.Text(p.at))
}

// summary ends the output: the summary line on stderr, or the summary
// object on stdout.
func (p *decodePrinter) summary(sum decode.Summary) error {
	if p.err != nil {
		return p.err
	}
	if p.json {
		b, err := json.Marshal(struct {
			Summary decode.Summary `json:"summary"`
		}{sum})
		if err != nil {
			return err
		}
		p.out.Write(append(b, '\n'))
		return p.out.Flush()
	}
	if err := p.out.Flush(); err != nil {
		return err
	}
	if len(sum.Files) > 1 {
		fmt.Fprintf(p.e.stderr, "files, in the order read: %s\n", fileList(sum.Files))
	}
	fmt.Fprintf(p.e.stderr, "%s: %v\n", sum.Format, sum)
	return nil
}
