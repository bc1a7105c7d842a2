package conformance

import (
	"slices"
	"testing"

	"github.com/roomspec/roomspec/conformance/impl"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

// keepsOneUndone is #35360's port (sglang-35360) whose in-flight pass
// keeps only the first of the requests it does not release
// (`self.disagg_prefill_inflight_queue = undone_reqs[:1]`): the others
// are let go, in no queue. With one request it is the port itself.
type keepsOneUndone struct{ port }

func (m keepsOneUndone) Apply(a model.Action) error {
	km := m.Port.M
	if km == nil || a.ID != model.ActSchedulerPollInFlight {
		return m.port.Apply(a)
	}
	err := m.port.Apply(a)
	if km.Crashed {
		return err
	}
	var undone []int
	for q, s := range km.Senders {
		if s.Position == "InflightQueue" {
			undone = append(undone, q)
		}
	}
	slices.SortFunc(undone, func(a, b int) int { return km.Senders[a].Seq - km.Senders[b].Seq })
	for _, q := range undone[min(1, len(undone)):] {
		km.Senders[q].Position = "Released"
		err = nil
	}
	return err
}

// A one-request configuration cannot show how a pass treats a queue of
// several: the crowded-queue cases of sglang-35360-rooms can. The port
// passes them; the mutant that keeps one undone request passes the tour
// and the random cases of sglang-35360 and fails a crowded case, where
// the spec does not enable the pass (two requests in flight, neither
// done) and the mutant takes it.
func TestCrowdCatchesOneUndone(t *testing.T) {
	c, err := spec.Compiled("sglang-35360")
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := spec.Compiled("sglang-35360-rooms")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Target{Name: "port", Impl: NewPort(impl.Upstream), Config: c}.Check(Refinement, Options{Seed: 1, Crowd: rooms})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Holds || r.Crowd == nil || r.Crowd.Cases < 5 {
		t.Fatalf("the port: holds %v, crowd %+v\n%s", r.Holds, r.Crowd, text(r))
	}
	mutant := func() Implementation { return keepsOneUndone{port{impl.NewPort(impl.Upstream)}} }
	r, err = Target{Name: "mutant", Impl: mutant(), Config: c}.Check(Refinement, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Holds {
		t.Fatalf("one request tells the mutant apart: the test no longer shows what crowded queues add\n%s", text(r))
	}
	r, err = Target{Name: "mutant", Impl: mutant(), Config: c}.Check(Refinement, Options{Seed: 1, Crowd: rooms})
	if err != nil {
		t.Fatal(err)
	}
	if r.Holds || r.FoundBy != "crowd" || r.Variant != "sglang-35360-rooms" {
		t.Fatalf("the mutant: holds %v, found by %q in %s\n%s", r.Holds, r.FoundBy, r.Variant, text(r))
	}
	last := r.Steps[len(r.Steps)-1]
	if last.Action.ID != model.ActSchedulerPollInFlight || r.FailStep != len(r.Steps)-1 {
		t.Errorf("the failing step is %s (step %d of %d), want the in-flight pass, last\n%s",
			c.ActionString(last.Action), r.FailStep+1, len(r.Steps), text(r))
	}
}
