package subprocess

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

func loadConfig(tb testing.TB, variant string) *model.Config {
	tb.Helper()
	c, err := spec.Compiled(variant)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// FuzzConn is the protocol client against whatever a child writes on its
// stdout: garbage, partial lines, huge lines (pad bytes of 'x' before the
// data, up to 3 MiB), an early exit (the pipe closed after the data) or
// silence (hang: the pipe stays open). Over real pipes, the client sends
// reset, apply, observe and quit; each request must end, within its
// timeout, in a reply or in an error of one of the documented causes, and
// an accepted observe state is decoded without a crash. testdata/fuzz
// holds the corpus of a 45 s run (14,856 inputs, no failure).
func FuzzConn(f *testing.F) {
	c := loadConfig(f, "upstream-reuse")
	f.Add([]byte("{\"ok\":true}\n{\"ok\":false,\"error\":\"no\"}\n{\"ok\":true,\"state\":{}}\n{\"ok\":true}\n"), uint32(0), false)
	f.Add([]byte("{\"ok\":true}\n{\"ok\":true}\n{\"ok\":true,\"state\":"+stateSeed+"}\n{\"ok\":true}\n"), uint32(0), false)
	f.Add([]byte("garbage\n"), uint32(0), false)
	f.Add([]byte("{\"ok\":tr"), uint32(0), false)
	f.Add([]byte("{\"ok\":true}\n{\"ok\":"), uint32(0), true)
	f.Add([]byte("\n"), uint32(2<<20), false)
	f.Add([]byte("[1,2]\n{\"ok\":1}\n"), uint32(0), false)
	f.Fuzz(func(t *testing.T, data []byte, pad uint32, hang bool) {
		inR, inW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go io.Copy(io.Discard, inR) // the child reads its requests
		go func() {
			if n := pad % (3 << 20); n > 0 {
				outW.Write(bytes.Repeat([]byte{'x'}, int(n)))
			}
			outW.Write(data)
			if !hang {
				outW.Close()
			}
		}()
		cn := newConn(inW, outR)
		defer func() {
			cn.close()
			inR.Close()
			outW.Close()
		}()
		const timeout = 50 * time.Millisecond
		for _, req := range []string{`{"op":"reset"}`, `{"op":"apply"}`, `{"op":"observe"}`, `{"op":"quit"}`} {
			start := time.Now()
			resp, err := cn.roundTrip([]byte(req), timeout)
			if d := time.Since(start); d > timeout+2*time.Second {
				t.Fatalf("%s took %v", req, d)
			}
			if err != nil {
				if !errors.Is(err, ErrTimeout) && !errors.Is(err, ErrExited) && !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrLineTooLong) {
					t.Fatalf("%s: error of no documented cause: %v", req, err)
				}
				return
			}
			if len(resp.State) > 0 {
				c.ReadState(resp.State)
			}
		}
	})
}

// stateSeed is a well-formed state of upstream-reuse (what
// conformance/python/prefill.py writes).
const stateSeed = `{"request_status":["Absent"],"transfer_infos":[[]],"tombstones":[],"bootstrap_alive":true,"prefill_crashed":false,"outstanding":[0],"ack_target":[[]],"sender":["NoSender","NoSender"],"wqueue":[{"req":0,"left":1}],"posted":[false,false],"elapsed":[0,0],"kv_held":[false,false],"kv_frees":[0,0],"chan":[[],[{"type":"ABORT","room":0,"rank":1}]],"ack_chan":[[],[]],"ti_sent":[[],[0,1]],"aborted":[true,false],"pages_released":[[0,1],[]]}`
