package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/roomspec/roomspec/traces/eventlog"
)

// sniffLog refuses, in one line, a file -log names that cannot be an
// event log (eventlog.Sniff): a capture given as the log would otherwise
// be read line by line, each "line" an error, before the log is found not
// to belong to the capture. A file that does not exist yet (watch waits
// for it) or is empty passes.
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
	if err := eventlog.Sniff(head[:n]); err != nil {
		return fmt.Errorf("-log %s: %w", name, err)
	}
	return nil
}
