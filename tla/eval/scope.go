package eval

import (
	"sync/atomic"
	"unsafe"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// template is a module as instantiated once in the specification: the
// root module (and what it extends), or the module of one INSTANCE
// statement with its substitutions. Its definitions are compiled once;
// its contexts (one for the root or an instance without parameters, one
// per application of an instance with parameters) hold what evaluation
// computes in it.
type template struct {
	spec *Spec
	ns   *tla.Namespace
	// inst is the INSTANCE this template is (nil for the root), written
	// in unit instUnit of parent.
	inst     *tla.Instance
	parent   *template
	instUnit int
	// units are the modules whose text the template holds (the module and
	// those it extends), by index; unitOf inverts it.
	units  []*tla.Module
	unitOf map[*tla.Module]int
	defs   map[*tla.Symbol]*defn
	// subs are the unnamed instances (their contexts are made with the
	// template's), named the named ones.
	subs    []*template
	subOf   map[*tla.Instance]int
	named   []*namedInst
	namedOf map[*tla.Instance]*namedInst
	substs  map[*tla.Symbol]*substitution
	// ncache counts the cache slots of a context: constant definitions,
	// constant expressions and quantifier domains.
	ncache int
	// nsubst counts the substitutions, each with a slot in a context's
	// substMemo.
	nsubst int
}

// namedInst is a named instance M(p) == INSTANCE ... of a template.
type namedInst struct {
	t       *template
	idx     int // slot of its context in the parent's (no parameters)
	nparams int
	decl    *tla.Instance
}

// defn is a definition compiled in a template.
type defn struct {
	name   string
	sym    *tla.Symbol
	at     tla.Pos
	params []*tla.Param
	syntax tla.Expr // the body as written
	body   expr
	fn     *funcDef // a function definition f[x \in S] == e
	native native   // a library operator computed natively
	t      *template
	unit   int
	// constant is set for a definition without parameters whose value
	// depends on no variable: it is computed once per context, in cache
	// slot cache.
	constant bool
	cache    int
	varies   bool
	state    uint8 // compiling: 0 not yet, 1 under way, 2 done
}

// context is a template being evaluated: the root, or an instance (with
// the values of its parameters).
type context struct {
	t *template
	// outer is the scope the INSTANCE is written in and env its
	// parameters: substitutions are evaluated there.
	outer *scope
	env   *env
	subs  []*context
	named []atomic.Pointer[context]
	cache []atomic.Pointer[valueBox]
	units []scope
	// substMemo keeps, per substitution, its latest values in states
	// (substValue).
	substMemo []substMemo
}

// substMemo is the latest values of a substitution, each with the state
// it was computed in: a few, so that the workers that evaluate it in
// their states at the same time do not keep pushing each other's out.
type substMemo [4]atomic.Pointer[stateValue]

// stateValue is a value computed in a state; holding the state keeps its
// array, whose address tells it apart, from being reused for another.
type stateValue struct {
	s []value.Value
	v value.Value
}

// slot returns where the value in state s is kept.
func (m *substMemo) slot(s []value.Value) *atomic.Pointer[stateValue] {
	return &m[(uintptr(unsafe.Pointer(&s[0]))>>6)%uintptr(len(m))]
}

// scope is where a compiled expression is evaluated: a context, and the
// file of the module the expression was written in (for messages).
type scope struct {
	cx   *context
	file string
	spec *Spec
}

// valueBox lets an interface value live behind an atomic pointer.
type valueBox struct{ v value.Value }

// newContext makes a context of t; outer and env are where the INSTANCE
// is written and its parameters.
func newContext(t *template, outer *scope, env *env) *context {
	cx := &context{t: t, outer: outer, env: env,
		cache:     make([]atomic.Pointer[valueBox], t.ncache),
		substMemo: make([]substMemo, t.nsubst),
		units:     make([]scope, len(t.units)),
		named:     make([]atomic.Pointer[context], len(t.named)),
	}
	for i, m := range t.units {
		cx.units[i] = scope{cx: cx, file: m.File, spec: t.spec}
	}
	for _, st := range t.subs {
		cx.subs = append(cx.subs, newContext(st, &cx.units[st.instUnit], nil))
	}
	return cx
}

// instance returns the context of the named instance ni of cx, applied to
// args.
func (cx *context) instance(ni *namedInst, args []value.Value) *context {
	outer := &cx.units[ni.t.instUnit]
	if ni.nparams == 0 {
		if icx := cx.named[ni.idx].Load(); icx != nil {
			return icx
		}
		icx := newContext(ni.t, outer, nil)
		if !cx.named[ni.idx].CompareAndSwap(nil, icx) {
			return cx.named[ni.idx].Load()
		}
		return icx
	}
	return newContext(ni.t, outer, newEnv(args))
}

// cached returns the value in cache slot i, nil if none yet.
func (cx *context) cached(i int) value.Value {
	if b := cx.cache[i].Load(); b != nil {
		return b.v
	}
	return nil
}

func (cx *context) setCache(i int, v value.Value) { cx.cache[i].Store(&valueBox{v}) }

// scopeOf returns the scope in which d's body is evaluated when it is
// referred to from c through w.
func (c *ctx) scopeOf(d *defn, w where) *scope {
	if w.here() {
		return &c.sc.cx.units[d.unit]
	}
	return &c.contextAt(w).units[d.unit]
}

// contextAt follows w from c's context.
func (c *ctx) contextAt(w where) *context {
	cx := c.sc.cx
	if w.root {
		cx = c.sc.spec.root
	}
	for _, h := range w.hops {
		if h.inst == nil {
			cx = cx.subs[h.sub]
			continue
		}
		var args []value.Value
		if len(h.args) > 0 {
			args = make([]value.Value, len(h.args))
			for i, a := range h.args {
				args[i] = c.eval(a)
			}
		}
		cx = cx.instance(h.inst, args)
	}
	return cx
}
