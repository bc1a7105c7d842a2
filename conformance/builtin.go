package conformance

import (
	"errors"
	"fmt"

	"github.com/roomspec/roomspec/conformance/impl"
	"github.com/roomspec/roomspec/spec/model"
)

// port adapts an impl.Port to Cloner.
type port struct{ *impl.Port }

func (p port) Clone() Implementation { return port{p.Port.Clone()} }

// NewPort returns the Go port of v as an Implementation.
func NewPort(v *impl.Variant) Implementation { return port{impl.NewPort(v)} }

// Builtin returns the built-in port named name and the bundled
// configuration it is checked against.
func Builtin(name string) (Implementation, string, error) {
	b, ok := impl.Lookup(name)
	if !ok {
		return nil, "", fmt.Errorf("conformance: no built-in implementation %q", name)
	}
	return NewPort(b.Variant), b.Cfg, nil
}

// BuiltinNames lists the built-in ports.
func BuiltinNames() []string {
	var out []string
	for _, b := range impl.Builtins {
		out = append(out, b.Name)
	}
	return out
}

// Spec is the spec itself as an Implementation: its steps are the spec's,
// so refinement holds by construction, and liveness after fair quiescence
// says whether the variant itself can pin a room along a schedule.
type Spec struct {
	c *model.Config
	s model.State
}

var errNotEnabled = errors.New("conformance: spec: action not enabled")

// Reset starts from the spec's initial state.
func (p *Spec) Reset(c *model.Config) error { p.c, p.s = c, c.Init(); return nil }

// Apply takes a in the spec.
func (p *Spec) Apply(a model.Action) error {
	t, ok := p.c.Step(&p.s, a)
	if !ok {
		return errNotEnabled
	}
	p.s = t
	return nil
}

// Observe returns the spec's state.
func (p *Spec) Observe() (model.State, error) { return p.s, nil }

// Close does nothing.
func (p *Spec) Close() error { return nil }

// Clone copies the spec's state.
func (p *Spec) Clone() Implementation { q := *p; return &q }
