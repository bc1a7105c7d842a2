package specrt

// ActionInfo describes an action of a compiled spec: its parameters and
// the annotations written above its definition (see spec/Room.tla's
// header for the grammar).
type ActionInfo struct {
	Name   string
	Params []string // parameter names
	// ParamTypes are the Go types of the parameters; for an element of a
	// constant set, the set's name (see Config.Domain).
	ParamTypes []string
	// Kind is "environment" or "implementation" and Actor the actor
	// after it in the @action annotation ("decode", "scheduler", ...).
	Kind, Actor string
	Models      []string
	Wire        []Wire
	// Annotations are all @key: value lines, in order.
	Annotations [][2]string
	// Deterministic actions have a method returning (State, bool);
	// the others one taking a yield function.
	Deterministic bool
}

// Environment reports whether the action is the environment's
// (@action: environment), never assumed fair.
func (a *ActionInfo) Environment() bool { return a.Kind == "environment" }

// Wire is a @wire annotation as written: a message the action sends or
// receives. Fields and the optional For/If parts are TLA+ expression
// text; a compiled spec evaluates them (Config.AppendWire).
type Wire struct {
	Event, Msg, Dir string
	Fields          [][2]string
	For, If         string
	Text            string
}

// PropertyKind says how a property of the configurations is compiled.
type PropertyKind int

// Property kinds.
const (
	// StateInvariant: a method (s *State) bool.
	StateInvariant PropertyKind = iota
	// StepProperty: [][A]_v, a method (s, t *State) bool.
	StepProperty
	// Liveness: left to the checker; its state predicates are methods.
	Liveness
)

// PropertyInfo names an invariant or property of the configurations.
type PropertyInfo struct {
	Name string
	Kind PropertyKind
}
