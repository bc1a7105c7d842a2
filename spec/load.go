package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/gen/constants"
)

// ErrUnknownVariant is wrapped by Load's error for a name no bundled
// configuration has.
var ErrUnknownVariant = errors.New("unknown variant")

// Variant is Room.tla under one model configuration: a bundled variant
// (Load), or configuration text given with a name (Parse), such as the one
// built from the switches probed in SGLang's code.
type Variant struct {
	// Name is the bundled variant's name, or the name the text was given
	// (errors call the file Name.cfg).
	Name string
	// Text is the configuration's .cfg text.
	Text []byte
	// Cfg is the parsed configuration.
	Cfg *cfg.Config
}

// Load returns the bundled variant name (one of Variants).
func Load(name string) (*Variant, error) {
	text, err := Files.ReadFile(name + ".cfg")
	if err != nil {
		return nil, fmt.Errorf("%w %q (bundled: %s)", ErrUnknownVariant, name, strings.Join(Variants(), ", "))
	}
	return Parse(name, text)
}

// Parse reads configuration text for Room.tla, naming it name.
func Parse(name string, text []byte) (*Variant, error) {
	c, err := cfg.Parse(name+".cfg", text)
	if err != nil {
		return nil, err
	}
	return &Variant{Name: name, Text: text, Cfg: c}, nil
}

// Compiled loads a bundled variant as the compiled model's configuration:
// Load(name), then Compiled.
func Compiled(name string) (*model.Config, error) {
	v, err := Load(name)
	if err != nil {
		return nil, err
	}
	return v.Compiled()
}

// Model builds the model checker's model of Room.tla under v.
func (v *Variant) Model() (*check.Model, error) {
	mods, err := tla.Load(Files, Module)
	if err != nil {
		return nil, err
	}
	return check.Build(mods, v.Cfg)
}

// Constants reads v's constants into the compiled model's typed
// constants.
func (v *Variant) Constants() (model.Constants, error) {
	var k model.Constants
	err := constants.Decode(v.Cfg, &k)
	return k, err
}

// Compiled builds the compiled model's configuration of v: its constants,
// its name and the invariants and properties it checks.
func (v *Variant) Compiled() (*model.Config, error) {
	k, err := v.Constants()
	if err != nil {
		return nil, err
	}
	c, err := model.NewConfig(k)
	if err != nil {
		return nil, fmt.Errorf("%s.cfg: %w", v.Name, err)
	}
	c.Name = v.Name
	for _, n := range v.Cfg.Invariants {
		c.Invariants = append(c.Invariants, n.Name)
	}
	for _, n := range v.Cfg.Properties {
		c.Properties = append(c.Properties, n.Name)
	}
	return c, nil
}
