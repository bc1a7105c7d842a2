package conformance

import (
	"strings"
	"sync"

	"github.com/roomspec/roomspec/conformance/tour"
	"github.com/roomspec/roomspec/spec/model"
)

// Coverage is what a property run took of the spec's reachable state
// graph: edges taken (where the implementation's observed successor was
// the edge's target), per action, the rooms' statuses reached, and how the
// tour and the random cases got there.
type Coverage struct {
	// Bound is the most states explored; States is 0 when the graph is
	// larger (then only random cases ran, and edges are not counted).
	Bound      int `json:"bound"`
	States     int `json:"states"`
	StatesSeen int `json:"states_seen"`
	Edges      int `json:"edges"`
	EdgesTaken int `json:"edges_taken"`
	// Actions is the coverage per action of the spec, in Next's order.
	Actions []ActionCoverage `json:"actions"`
	// Statuses are the statuses each room has somewhere in the graph,
	// in the order the graph first reaches them, and whether the
	// implementation was seen in one.
	Statuses []StatusCoverage `json:"statuses"`
	// Unforced are the edges the tour gave up on, each with why
	// (tour.Unforced).
	Unforced []string    `json:"unforced,omitempty"`
	Tour     TourStats   `json:"tour"`
	Random   RandomStats `json:"random"`
}

// ActionCoverage is the coverage of one action.
type ActionCoverage struct {
	Action string `json:"action"`
	Taken  int    `json:"taken"`
	Edges  int    `json:"edges"`
}

// StatusCoverage is one status of one room.
type StatusCoverage struct {
	Room    string `json:"room"`
	Status  string `json:"status"`
	Reached bool   `json:"reached"`
}

// TourStats is what the tour did.
type TourStats struct {
	// Cases is the number of resets, Steps the steps taken (refused or
	// not), Quiesces the fair round-robins run (liveness) and
	// QuiesceSteps the steps they took.
	Cases        int `json:"cases"`
	Steps        int `json:"steps"`
	Quiesces     int `json:"quiesces,omitempty"`
	QuiesceSteps int `json:"quiesce_steps,omitempty"`
	// Refusals counts the steps asked for (refinement: once at each node,
	// each of the implementation's own actions the spec does not enable
	// there) that the implementation had to refuse.
	Refusals int `json:"refusals,omitempty"`
	// Unswept counts the states where they were not asked (no case ended
	// there, and the graph is over SweepMaxStates).
	Unswept int `json:"unswept,omitempty"`
	// Diverged counts liveness steps the walk could not follow (the
	// implementation's state is not the spec's: refinement fails).
	Diverged int `json:"diverged,omitempty"`
	// Stopped says why the tour ended before taking every edge.
	Stopped string `json:"stopped,omitempty"`
}

// RandomStats is what the random cases did to the rooms, counted until
// the first failure.
type RandomStats struct {
	Cases int `json:"cases"`
	// Completed counts cases in which a room reached Success, Aborted
	// those in which decode aborted a request whose room never did.
	Completed int `json:"completed"`
	Aborted   int `json:"aborted"`
	// Ends counts cases by the rooms' statuses in their last state.
	Ends map[string]int `json:"ends"`
}

// Percent is the share of the graph's edges taken.
func (c *Coverage) Percent() float64 {
	if c.Edges == 0 {
		return 0
	}
	return 100 * float64(c.EdgesTaken) / float64(c.Edges)
}

const abortedSep = "; aborted "

// statusKey names a state by its rooms' statuses and the requests decode
// aborted ("r: Success; aborted <<r, 1>>"): the kinds of ending random
// cases aim at, and the ends they are counted by.
func statusKey(c *model.Config) func(*model.State) string {
	return func(s *model.State) string {
		var b strings.Builder
		for room, st := range s.RequestStatus {
			if room > 0 {
				b.WriteString(", ")
			}
			c.Rooms.Format(&b, room)
			b.WriteString(": ")
			b.WriteString(st.String())
		}
		sep := abortedSep
		for q, aborted := range s.Aborted {
			if aborted {
				b.WriteString(sep)
				c.Requests.Format(&b, q)
				sep = ", "
			}
		}
		return b.String()
	}
}

// outcome is what one random case did to the rooms so far: the rooms
// that reached Success (a bit per room).
type outcome struct {
	succeeded uint64
}

// step updates o with a step of the spec to t.
func (o *outcome) step(t *model.State) {
	for room, st := range t.RequestStatus {
		if st == model.StrSuccess {
			o.succeeded |= 1 << room
		}
	}
}

// count adds a case that ended in the spec's state cr.spec.
func (s *RandomStats) count(c *model.Config, cr *caseRun) {
	s.Cases++
	if cr.out.succeeded != 0 {
		s.Completed++
	}
	for q, aborted := range cr.spec.Aborted {
		if aborted && cr.out.succeeded&(1<<c.RoomOf(&cr.spec, model.Requests(q))) == 0 {
			s.Aborted++
			break
		}
	}
	if s.Ends == nil {
		s.Ends = map[string]int{}
	}
	s.Ends[statusKey(c)(&cr.spec)]++
}

// fillCoverage fills cover from the run.
func (r *run) fillCoverage(cover *Coverage) {
	cover.Random = r.outcomes
	if r.graph == nil {
		return
	}
	g, cov := r.graph, r.cov
	cover.StatesSeen, cover.States = cov.States()
	cover.EdgesTaken, cover.Edges = cov.Edges()
	cover.Actions = cover.Actions[:0]
	for _, ac := range cov.ByAction() {
		cover.Actions = append(cover.Actions, ActionCoverage{Action: ac.Name, Taken: ac.Taken, Edges: ac.Total})
	}
	cover.Statuses = statuses(g, cov)
	cover.Unforced = cover.Unforced[:0]
	for _, u := range cov.Unforced() {
		cover.Unforced = append(cover.Unforced, g.EdgeString(u.Edge)+": "+u.Why)
	}
}

// statuses lists each room's statuses in the graph, and whether a state
// with it was seen.
func statuses(g *tour.Graph, cov *tour.Coverage) []StatusCoverage {
	c := g.Config
	type key struct {
		room int
		st   model.Str
	}
	index := map[key]int{}
	var out []StatusCoverage
	for n := range g.States {
		for room, st := range g.States[n].RequestStatus {
			i, ok := index[key{room, st}]
			if !ok {
				var b strings.Builder
				c.Rooms.Format(&b, room)
				i = len(out)
				index[key{room, st}] = i
				out = append(out, StatusCoverage{Room: b.String(), Status: st.String()})
			}
			out[i].Reached = out[i].Reached || cov.Seen(int32(n))
		}
	}
	// Room by room, each in the order the graph reaches its statuses.
	byRoom := map[string][]StatusCoverage{}
	var rooms []string
	for _, s := range out {
		if byRoom[s.Room] == nil {
			rooms = append(rooms, s.Room)
		}
		byRoom[s.Room] = append(byRoom[s.Room], s)
	}
	out = out[:0]
	for _, room := range rooms {
		out = append(out, byRoom[room]...)
	}
	return out
}

// graphs keeps the last graph built: a property run after another on the
// same configuration (refinement, then liveness) reuses it.
var graphs struct {
	sync.Mutex
	c     *model.Config
	bound int
	g     *tour.Graph
	err   error
}

// graphOf returns c's reachable state graph, at most bound states.
func graphOf(c *model.Config, bound int) (*tour.Graph, error) {
	graphs.Lock()
	defer graphs.Unlock()
	if graphs.c != c || graphs.bound != bound {
		graphs.g, graphs.err = tour.Build(c, bound)
		graphs.c, graphs.bound = c, bound
	}
	return graphs.g, graphs.err
}
