package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// errNotLog: -log names a file that is no prefill event log.
var errNotLog = errors.New("not a prefill event log (JSON lines, one object per line)")

// sniffLog reads the start of the file -log names and refuses, in one
// line, one that is not JSON lines: a capture given as the log would
// otherwise be read line by line, each "line" a JSON error, before the
// log is found not to belong to the capture. A file that does not exist
// yet (watch waits for it) or is empty passes.
func sniffLog(name string) error {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	head = head[:n]
	if kind := captureKind(head); kind != "" {
		return fmt.Errorf("-log %s: %w: it is a %s (give captures as arguments, the log with -log)", name, errNotLog, kind)
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			return fmt.Errorf("-log %s: %w: its first line does not start with '{'", name, errNotLog)
		}
		return nil
	}
	return nil
}

// captureKind names the capture format head starts with, or "".
func captureKind(head []byte) string {
	switch {
	case len(head) >= 4 && (bytes.Equal(head[:4], []byte{0xd4, 0xc3, 0xb2, 0xa1}) || bytes.Equal(head[:4], []byte{0xa1, 0xb2, 0xc3, 0xd4}) ||
		bytes.Equal(head[:4], []byte{0x4d, 0x3c, 0xb2, 0xa1}) || bytes.Equal(head[:4], []byte{0xa1, 0xb2, 0x3c, 0x4d})):
		return "pcap capture"
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x0a, 0x0d, 0x0d, 0x0a}):
		return "pcapng capture"
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return "gzip file"
	}
	return ""
}
