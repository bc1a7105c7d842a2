// Command halfgreetings writes the capture of the connection benchmarks
// (benchdata.HalfGreetings: N connections left open in their ZMTP
// greeting, one ABORT on a live connection per 1000 of them) to a file,
// for whole-process runs of decode, replay and watch (their peak RSS):
//
//	go run ./internal/benchdata/halfgreetings -n 1000000 -o /tmp/half-1M.pcap
//	/usr/bin/time -v roomspec replay /tmp/half-1M.pcap
//	/usr/bin/time -v roomspec watch - < /tmp/half-1M.pcap
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/roomspec/roomspec/internal/benchdata"
)

func main() {
	n := flag.Int("n", 1_000_000, "connections")
	out := flag.String("o", "", "output `file`")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "halfgreetings: -o FILE is required")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "halfgreetings:", err)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := benchdata.WriteHalfGreetings(w, *n, 1000); err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "halfgreetings:", err)
		os.Exit(1)
	}
}
