package explain

import (
	"slices"
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// Explaining an observation from a node's pending marks must leave the
// node as it was: nodes are shared between the steps of a burst, the
// orders of a burst and the rooms of an interned set. (The matcher once
// appended into the pending list it was reading, so that a node with
// pending [TransferInfo 0, ABORT 1] read [ABORT 1, ABORT 1] after
// TransferInfo 0 was observed: replay then explained more than the spec
// allows.)
func TestStepLeavesItsNodesAlone(t *testing.T) {
	text, err := spec.Config("upstream")
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadConfig(text)
	if err != nil {
		t.Fatal(err)
	}
	sr := searcher{c: c, maxHidden: 24, maxStates: 50000}
	ti := Mark{Kind: observe.TransferInfo, Rank: 0}
	abort := Mark{Kind: observe.Abort, Rank: 1}
	pending := []Mark{ti, abort}
	nodes := []node{{s: c.Init(), pending: pending}}
	out, _, _ := sr.step(nodes, ti, false)
	if !slices.Equal(nodes[0].pending, []Mark{ti, abort}) {
		t.Fatalf("the explained node's pending marks changed to %v", nodes[0].pending)
	}
	found := false
	for _, n := range out {
		if n.s.Equal(&nodes[0].s) && slices.Equal(n.pending, []Mark{abort}) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no result node keeps the other pending mark: %v", out)
	}
}
