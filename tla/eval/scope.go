package eval

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// entKind says what a name in a scope stands for.
type entKind uint8

const (
	entVar      entKind = iota // a state variable of the root module
	entConst                   // a constant bound to a value by the model
	entDef                     // an operator or function definition
	entSubst                   // a constant or variable of an instantiated module, replaced by an expression
	entInstance                // a named instance M == INSTANCE ...
	entUnbound                 // a declared constant with no value (an error if evaluated)
)

// entity is what a name resolves to in a scope.
type entity struct {
	kind  entKind
	name  string
	pos   tla.Pos
	file  string
	index int         // entVar: variable index
	val   value.Value // entConst
	def   *def        // entDef
	subst *subst      // entSubst
	inst  *instance   // entInstance
}

// def is an operator definition (OpDef or FuncDef) with the scope its body
// is evaluated in.
type def struct {
	name   string
	params []*tla.Param
	body   tla.Expr
	fn     *tla.FuncDef // set for function definitions f[x \in S] == e
	native native       // set for a library operator computed natively
	sc     *scope
	file   string
	pos    tla.Pos

	// Constant-level zero-parameter definitions are evaluated once.
	level     int // -1 unknown, else 0 (constant) or 1 (depends on variables); guarded by cacheMu
	computing bool
	// constLevel caches isConstant for lock-free reads: 0 unknown, 1 constant, 2 not.
	constLevel atomic.Int32
	cached     atomic.Pointer[valueBox]
}

// subst is `name <- expr` of an instance, evaluated in the instantiating
// scope with the instantiating environment.
type subst struct {
	expr tla.Expr
	sc   *scope
	env  *env
}

// instance is a named, possibly parameterized, instance of a module.
type instance struct {
	decl   *tla.Instance
	outer  *scope
	module *tla.Module
	// For an instance without parameters, the scope is built once.
	sc *scope
}

// scope maps names to entities for one module (or one instantiation of a
// module). Definitions of extended modules and unnamed instances are merged
// in.
type scope struct {
	// consts and domains cache the values of constant expressions and
	// the enumerations of constant quantifier domains (tla.Expr ->
	// value.Value or *value.Set, or a cacheMark), shared by the scopes of
	// one module's units.
	consts, domains *sync.Map
	names           map[string]*entity
	file            string
	module          string
	spec            *Spec
	// parent, when set, is the scope whose names this one adds to: a
	// module's definitions get a scope of their own, over the scope they
	// are merged into, when a model overrides names in that module only
	// ([M] X <- Y in a cfg).
	parent *scope
}

// lookup resolves a name: the scope's own, its parent's, and last a
// built-in operator the model overrides (Nat <- ..., which TLC applies to
// the one definition of Nat, wherever it is used).
func (s *scope) lookup(name string) *entity {
	if e := s.names[name]; e != nil {
		return e
	}
	if s.parent != nil {
		return s.parent.lookup(name)
	}
	if s.spec != nil {
		return s.spec.overrides[name]
	}
	return nil
}

// resolved is what a name of the syntax tree stands for in a scope.
type resolved struct {
	sc  *scope
	ent *entity
}

// lookupAt is lookup for the name of a node of the syntax tree, res being
// the node's cache (tla.Ident.Res, tla.OpApp.Res): the names of a built
// scope do not change, so the name stands for the same entity at every
// evaluation of the node there. The cache holds the entity of the first
// scope the node is evaluated in; a node evaluated in other scopes too (a
// module instantiated twice) looks its name up there at every evaluation.
func (s *scope) lookupAt(name string, res *atomic.Value) *entity {
	if r, ok := res.Load().(*resolved); ok && r.sc == s {
		return r.ent
	}
	e := s.lookup(name)
	if s.spec != nil && s.spec.built && res.Load() == nil {
		res.CompareAndSwap(nil, &resolved{sc: s, ent: e})
	}
	return e
}

// errorf reports a problem found while building scopes.
func buildErr(file string, pos tla.Pos, format string, args ...any) error {
	return &tla.Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
