package compiled

import "github.com/roomspec/roomspec/spec/model"

// ExactActions lists the spec's actions: the compiled Next yields each
// successor from one instance of one of them, named by that instance, so
// the model checker may decide <<A(p)>>_v and ENABLED <<A(p)>>_v of their
// fairness conditions from the successors (check.ExactActions).
func (x *Successors) ExactActions() map[string]bool {
	out := map[string]bool{}
	for _, a := range model.Actions {
		out[a.Name] = true
	}
	return out
}
