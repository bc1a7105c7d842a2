package conformance

import (
	"fmt"

	"github.com/roomspec/roomspec/conformance/impl"
	"github.com/roomspec/roomspec/spec"
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

// LoadVariant returns the compiled configuration of a bundled variant.
func LoadVariant(variant string) (*model.Config, error) {
	src, err := spec.Config(variant)
	if err != nil {
		return nil, fmt.Errorf("conformance: variant %q: %w", variant, err)
	}
	c, err := model.LoadConfig(src)
	if err != nil {
		return nil, fmt.Errorf("conformance: variant %q: %w", variant, err)
	}
	return c, nil
}
