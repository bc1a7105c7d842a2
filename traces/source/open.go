package source

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/roomspec/roomspec/traces/capture"
)

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = [2]byte{0x1f, 0x8b}

// Decompress returns r, or what it decompresses to when it is gzip
// ("tcpdump -z gzip", a .pcap.gz file, a compressed stream on standard
// input): the file's content says so, not its name.
func Decompress(r io.Reader) (io.Reader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	head, _ := br.Peek(2)
	if len(head) < 2 || [2]byte(head) != gzipMagic {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return zr, nil
}

// readCloser closes c when done with what was read through r.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// Inputs returns the inputs that read the capture files names as one
// capture (capture.OpenFiles): "-" is stdin, read once; gzip files are
// decompressed. Standard input may be given once. wrap, if not nil, is
// given each file as it is opened (a progress bar counts its bytes).
func Inputs(names []string, stdin io.Reader, wrap func(*os.File) io.Reader) ([]capture.Input, error) {
	in := make([]capture.Input, len(names))
	dash := false
	for i, name := range names {
		if name == "-" {
			if dash {
				return nil, errors.New("standard input (-) given twice")
			}
			dash = true
			in[i] = capture.Input{Name: name, Once: true, Open: func() (io.ReadCloser, error) {
				r, err := Decompress(stdin)
				return io.NopCloser(r), err
			}}
			continue
		}
		in[i] = capture.Input{Name: name, Open: func() (io.ReadCloser, error) {
			f, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			var raw io.Reader = f
			if wrap != nil {
				raw = wrap(f)
			}
			r, err := Decompress(raw)
			if err != nil {
				f.Close()
				return nil, err
			}
			return readCloser{r, f}, nil
		}}
	}
	return in, nil
}

// OpenCapture opens the capture files names (see Inputs) as one capture,
// ordered by their first packets.
func OpenCapture(names []string, stdin io.Reader) (*capture.Files, error) {
	in, err := Inputs(names, stdin, nil)
	if err != nil {
		return nil, err
	}
	return capture.OpenFiles(in)
}
