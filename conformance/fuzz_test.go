package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadITF: a saved case never crashes the loader, whatever the bytes.
// The seeds are the committed cases (10 KB each): run with
// -fuzzminimizetime 1s, or the fuzzer spends its time minimizing them.
func FuzzLoadITF(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.itf.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"#meta":{"roomspec":{"variant":"upstream","actions":[{"name":"DecodeAbort","params":[5],"text":"x"}]}}}`))
	f.Add([]byte(`{"#meta":{"roomspec":{"variant":"upstream","actions":[{"name":"SchedulerCreateSender","params":[0],"text":"SchedulerCreateSender(<<r, 1>>)"}]}},"states":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := DecodeCaseHeader(data)
		if err != nil {
			return
		}
		c, err := LoadVariant(h.Variant)
		if err != nil {
			return
		}
		cs, err := LoadITF(c, data)
		if err == nil && !Valid(c, cs.Seq) {
			t.Fatalf("LoadITF accepted an invalid behaviour")
		}
	})
}

// FuzzExecState: whatever an out-of-process implementation answers to
// observe, the adapter returns a state or an error, never crashes.
func FuzzExecState(f *testing.F) {
	c, err := LoadVariant("upstream-reuse")
	if err != nil {
		f.Fatal(err)
	}
	im, _, err := Builtin("upstream-reuse")
	if err != nil {
		f.Fatal(err)
	}
	if err := im.Reset(c); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"request_status":["Absent"],"transfer_infos":[[]],"tombstones":[],"bootstrap_alive":true,"prefill_crashed":false,"sender":["NoSender","NoSender"],"queued":[0,0],"posted":[false,false],"chan":[[],[{"type":"ABORT","room":0,"rank":1}]],"ack_chan":[[],[]],"ti_sent":[[],[0,1]],"aborted":[true,false],"pages_released":[[0,1],[]]}`))
	f.Add([]byte(`{"request_status":["Nope"],"transfer_infos":[[9]]}`))
	f.Add([]byte(`{"chan":[[{"type":"ABORT","room":-1,"rank":99}]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var es execState
		if json.Unmarshal(data, &es) != nil {
			return
		}
		s, err := es.toModel(c)
		if err == nil && !c.TypeOK(&s) {
			// Not a crash: the suite would report the state as differing.
			return
		}
	})
}
