package eventlog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzFollower writes a log in pieces (cut at the positions the input
// gives) while a Follower reads it: the Follower returns the events and
// errors a Reader returns on the whole log, in order, whatever the cuts,
// with the last line without its newline only from Final.
func FuzzFollower(f *testing.F) {
	f.Add([]byte(statusLine(1)+"\n"+statusLine(2)+"\n"), []byte{10, 50, 200})
	f.Add([]byte(statusLine(1)+"\n\n{bad\n"+statusLine(3)), []byte{1, 2, 3, 250})
	f.Add([]byte("\n\n  \n"+statusLine(7)+"\r\n"), []byte{0})
	f.Fuzz(func(t *testing.T, log, cuts []byte) {
		type got struct {
			E   Event
			Err string
		}
		var want []got
		rd := NewReader(bytes.NewReader(log))
		rd.fileOrder = true // a Follower only counts lines out of order
		for {
			e, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil && !errors.Is(err, ErrSyntax) {
				return // a line over MaxLine: not this target's concern
			}
			g := got{E: e}
			if err != nil {
				g.Err = err.Error()
			}
			want = append(want, g)
		}
		path := filepath.Join(t.TempDir(), "log")
		w, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		fl := NewFollower(path)
		defer fl.Close()
		var have []got
		read := func() {
			for {
				e, err := fl.Next()
				if err == io.EOF {
					return
				}
				if err != nil && !errors.Is(err, ErrSyntax) {
					t.Fatal(err)
				}
				g := got{E: e}
				if err != nil {
					g.Err = err.Error()
				}
				have = append(have, g)
			}
		}
		off := 0
		for _, c := range cuts {
			n := min(int(c), len(log)-off)
			w.Write(log[off : off+n])
			off += n
			read()
		}
		w.Write(log[off:])
		read()
		if e, err := fl.Final(); err != io.EOF {
			g := got{E: e}
			if err != nil {
				g.Err = err.Error()
			}
			have = append(have, g)
		}
		if d := cmp.Diff(want, have, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("log %q cut at %v: (-Reader +Follower)\n%s", log, cuts, d)
		}
	})
}
