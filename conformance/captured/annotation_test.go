package captured

import (
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// ackRoom replays, under the upstream variant, a room whose capture shows
// prefill answering decode's ABORTs with ABORT_ACKs (which upstream's
// annotations say it never sends), and runs the suite on it with
// upstream's port: replay's verdict, and the suite's outcome ("skipped"
// or "holds").
func ackRoom(t *testing.T) (judge.Verdict, string) {
	t.Helper()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p := netip.MustParseAddrPort("10.0.1.1:5000")
	d := []netip.AddrPort{netip.MustParseAddrPort("10.0.0.1:17000"), netip.MustParseAddrPort("10.0.0.2:17000")}
	var obs []observe.Observation
	at := func(kind observe.Kind, rank int, src, dst netip.AddrPort) {
		obs = append(obs, observe.Observation{Kind: kind, Time: t0.Add(time.Duration(len(obs)) * time.Second), Room: 9,
			Wire: observe.Wire{Frame: len(obs) + 1, Src: src, Dst: dst, Rank: d[rank], Required: 2}})
	}
	at(observe.TransferInfo, 0, d[0], p)
	at(observe.TransferInfo, 1, d[1], p)
	at(observe.Abort, 0, d[0], p)
	at(observe.Abort, 1, d[1], p)
	at(observe.AbortAck, 0, p, d[0])
	at(observe.AbortAck, 1, p, d[1])
	im, variant, err := conformance.Builtin("upstream")
	if err != nil {
		t.Fatal(err)
	}
	c, err := conformance.LoadVariant(variant)
	if err != nil {
		t.Fatal(err)
	}
	var rooms []*Room
	r, err := NewJudge(c, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		r.Step(o)
	}
	r.Finish(t0.Add(time.Minute))
	for _, ev := range r.Ready() {
		rooms = append(rooms, RoomOf("synthetic", ev.Room))
	}
	if len(rooms) != 1 {
		t.Fatalf("%d rooms", len(rooms))
	}
	if rooms[0].Skip != "" {
		return rooms[0].Verdict, "skipped"
	}
	res, err := Run(conformance.Target{Name: "upstream", Impl: im, Config: c}, rooms[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Holds {
		return rooms[0].Verdict, "fails " + res.Property
	}
	return rooms[0].Verdict, "holds"
}

// The @wire annotations are the only source of what replay and the suite
// expect on the wire: a copy of the module whose Room.tla gains one
// annotation (prefill acknowledges every ABORT, even in variants without
// AbortAckSent), regenerated with go generate and not edited anywhere
// else, explains the ABORT_ACKs that upstream's spec cannot, in replay
// and in the suite alike.
func TestNewWireAnnotation(t *testing.T) {
	verdict, suite := ackRoom(t)
	if verdict != judge.Invalid || suite != "skipped" {
		t.Fatalf("with Room.tla as it is: replay %s, suite %s; want invalid, skipped", verdict, suite)
	}
	if testing.Short() {
		t.Skip("builds a copy of the module with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyModule(t, root, dir)
	room := filepath.Join(dir, "spec", "Room.tla")
	text, err := os.ReadFile(room)
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "\\* @wire: send ABORT_ACK(room: Head(chan[d]).room, rank: a) prefill->decode for a \\in AbortAcks(d)\n"
	if !strings.Contains(string(text), anchor) {
		// Not a skip: the test would silently stop showing what it is for.
		t.Fatal("Room.tla no longer has BootstrapRecvAbort's ABORT_ACK annotation this test adds a line after; update the anchor")
	}
	added := anchor + "\\* @wire: send ABORT_ACK(room: Head(chan[d]).room, rank: d) prefill->decode if ~AbortAckSent /\\ ~AbortKillsBootstrap\n"
	if err := os.WriteFile(room, []byte(strings.Replace(string(text), anchor, added, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "conformance", "captured", "zz_changed_test.go"), []byte(changedTest), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	for _, args := range [][]string{{"generate", "./spec/model"}, {"test", "-v", "-run", "TestAnnotationChanged", "./conformance/captured"}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "test" && !strings.Contains(string(out), "--- PASS: TestAnnotationChanged") {
			t.Fatalf("the modified module's test did not run:\n%s", out)
		}
	}
}

// changedTest runs in the modified copy of the module.
const changedTest = `package captured

import (
	"testing"

	"github.com/roomspec/roomspec/traces/judge"
)

func TestAnnotationChanged(t *testing.T) {
	verdict, suite := ackRoom(t)
	if verdict == judge.Invalid || suite != "holds" {
		t.Fatalf("with the new annotation: replay %s, suite %s; want explained and holds", verdict, suite)
	}
}
`

// copyModule copies the module's Go sources, the spec and gen's
// templates from root to dir (no test data).
func copyModule(t *testing.T, root, dir string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch ext := filepath.Ext(path); {
		case ext == ".go", ext == ".tla", ext == ".cfg", ext == ".tmpl", rel == "go.mod", rel == "go.sum":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
