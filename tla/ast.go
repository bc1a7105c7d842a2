// Package tla reads TLA+ modules: a lexer, a parser producing the syntax tree
// declared in this file, a printer that renders expressions back as TLA+, a
// loader that finds the modules EXTENDS and INSTANCE name among sibling
// files, and a resolver (Resolve) that binds every name of a specification
// to what it means, once, checking what SANY checks before TLC explores a
// state. The tree is not written to once parsed: what the resolver finds is
// in its Info, which the evaluator and the generator read.
//
// The package is pure: it never touches the file system itself (Load takes an
// fs.FS), so the evaluator and the model checker can be tested on strings.
//
// The parser follows SANY, the reference front end, where it matters for
// meaning: operator precedence ranges and the rule that overlapping ranges
// need parentheses (a = b = c is an error); bulleted /\ and \/ lists, where
// a token at or left of a bullet's column ends the current item and a bullet
// of the same kind in the same column continues the list (columns count code
// points, tabs stop every 8 columns); and text before the module header or
// after its closing ==== is ignored. Proofs are skipped, PlusCal lives in
// comments. The first syntax error stops parsing and is returned as an
// *Error saying what was expected.
//
// Conventions of the tree: built-in operator synonyms are normalised to one
// spelling (see OpApp); same-operator junction chains and bulleted lists are
// flat Junctions; parentheses and labels leave no node; unary minus is the
// prefix OpApp "-." (so -1 is "-." applied to Num 1).
package tla

import "fmt"

// Pos is a 1-based line and column (in bytes) within a source file. The zero
// Pos means "unknown".
type Pos struct{ Line, Col int }

// String renders p as "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Node is any syntax tree node. Pos is where the node starts in the source,
// except for infix and postfix operator applications, where it is the
// position of the operator symbol (the operand positions are in the operands).
type Node interface {
	Pos() Pos
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Unit is a module-level (or LET-level) declaration or definition.
type Unit interface {
	Node
	unitNode()
}

// ---------------------------------------------------------------------------
// Modules and units

// Module is a parsed TLA+ module. Nested submodules appear in Units as
// *Module values.
type Module struct {
	At   Pos
	File string // file name the module was read from, for messages
	Name string
	// Library is set for a module read from roomspec's library (see
	// LibraryModules) rather than from the spec's folder.
	Library bool
	Extends []*Ident
	Units   []Unit
	// End is where its closing ==== is.
	End Pos
	// Comments holds every comment of the module's text, in source order,
	// for tools that read structured comments such as `\* @action: ...`
	// (see Doc). Comments of nested submodules are listed in the outermost
	// module only.
	Comments []*Comment
}

// Comment is one `\* ...` line comment or `(* ... *)` block comment; Text
// includes the delimiters (a line comment without its newline).
type Comment struct {
	At   Pos
	Text string
	// ownLine is set when nothing but blanks precedes the comment on its
	// first line; only such comments can document what follows.
	ownLine bool
}

// Param is a formal parameter of an operator, or a declared constant. Arity
// is 0 for an ordinary parameter and n for an operator parameter written
// F(_, _) (n underscores). Infix/prefix/postfix operator parameters (`_+_`)
// get arity 2 or 1 and the operator symbol as Name.
type Param struct {
	At    Pos
	Name  string
	Arity int
}

// Constant is a CONSTANT(S) declaration.
type Constant struct {
	At    Pos
	Names []*Param
}

// Variable is a VARIABLE(S) declaration.
type Variable struct {
	At    Pos
	Names []*Ident
}

// OpDef is an operator definition `Name(params) == Body`. User-defined infix,
// prefix and postfix operators (`a ++ b == ...`, `-. a == ...`) are OpDefs
// whose Name is the operator symbol, normalised like built-in operator names
// in OpApp.
type OpDef struct {
	At     Pos
	Name   string
	Params []*Param
	Body   Expr
	Local  bool
}

// FuncDef is a function definition `f[x \in S, y \in T] == Body`. Body may
// refer to Name (recursive function definitions are allowed in TLA+).
type FuncDef struct {
	At     Pos
	Name   string
	Bounds []*Bound
	Body   Expr
	Local  bool
}

// Instance is an INSTANCE of another module. Name is "" for an unnamed
// `INSTANCE M WITH ...`, whose definitions are imported into the current
// module; otherwise it is `Name(Params) == INSTANCE Module WITH Subst`.
// Substitutions not written explicitly are implicit (a constant or variable
// of the instantiated module is replaced by the equally named one in scope).
type Instance struct {
	At       Pos
	Name     string
	Params   []*Param
	Module   string
	ModuleAt Pos
	Subst    []*Subst
	Local    bool
}

// Subst is one `name <- Expr` substitution of an INSTANCE. Name may be an
// operator symbol (`+ <- Plus`).
type Subst struct {
	At   Pos
	Name string
	Expr Expr
}

// Assume is an ASSUME / ASSUMPTION / AXIOM. Name is "" when unnamed.
type Assume struct {
	At   Pos
	Name string
	Body Expr
}

// Recursive is a RECURSIVE declaration of operators defined later.
type Recursive struct {
	At  Pos
	Ops []*Param
}

// Theorem is a THEOREM / LEMMA / COROLLARY / PROPOSITION. Proofs are skipped.
// For `ASSUME ... PROVE P` Body is P alone (the assumptions are dropped); it
// is nil when the statement could not be read as an expression. The model
// checker ignores theorems.
type Theorem struct {
	At   Pos
	Name string
	Body Expr
}

func (*Module) unitNode()    {}
func (*Constant) unitNode()  {}
func (*Variable) unitNode()  {}
func (*OpDef) unitNode()     {}
func (*FuncDef) unitNode()   {}
func (*Instance) unitNode()  {}
func (*Assume) unitNode()    {}
func (*Recursive) unitNode() {}
func (*Theorem) unitNode()   {}

// Pos implements Node.
func (n *Module) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Param) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Constant) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Variable) Pos() Pos { return n.At }

// Pos implements Node.
func (n *OpDef) Pos() Pos { return n.At }

// Pos implements Node.
func (n *FuncDef) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Instance) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Subst) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Assume) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Recursive) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Theorem) Pos() Pos { return n.At }

// ---------------------------------------------------------------------------
// Expressions

// Ident is a bare name: a variable, constant, bound variable, parameter or
// a zero-argument operator. Names with arguments or an instance prefix are
// OpApp. An operator symbol passed as an argument to a higher-order operator
// (`Fold(+, 0, f)`) is an Ident whose Name is the (normalised) symbol.
// Parentheses and labels (`lbl:: e`) leave no node of their own.
type Ident struct {
	At   Pos
	Name string
}

// Fixity says how an OpApp was written; it matters only for printing.
type Fixity int

// Fixities of operator applications.
const (
	FixCall    Fixity = iota // Op(a, b), or M!Op with no arguments
	FixInfix                 // a + b
	FixPrefix                // ~a, -.a (written -a), DOMAIN f, []P
	FixPostfix               // x', a^+
)

// InstanceRef is one step `M` or `M(a, b)` of a module-qualified reference
// `M(a, b)!N!Op`.
type InstanceRef struct {
	At   Pos
	Name string
	Args []Expr
}

// OpApp applies an operator: a user operator `Op(a, b)` or `M!Op(a)`, or a
// built-in infix, prefix or postfix operator. Built-in names are normalised to
// one spelling each:
//
//	/\ \/ ~ => <=> = /= < > <= >= \in \notin \subseteq \subset \supseteq
//	\supset \cup \cap \ (set minus) + - * / \div % ^ .. -. (unary minus)
//	\o :> @@ ' (prime) DOMAIN SUBSET UNION ENABLED UNCHANGED [] <> ~> -+->
//	\cdot
//
// A /\ or \/ between operands is a Junction and \X a Cross, never an OpApp
// (an OpApp named /\ or \/ does not occur). Fix says how it was written:
// infix and postfix OpApps have their operator's position as At.
// Synonyms map as follows: \land -> /\, \lor -> \/, \lnot and \neg -> ~,
// # -> /=, =< and \leq -> <=, \geq -> >=, \union -> \cup, \intersect -> \cap,
// \circ -> \o, \equiv -> <=>, \oplus -> (+), \ominus -> (-), \odot -> (.),
// \oslash -> (/), \otimes -> (\X). Other user-definable symbols (++, \prec, ...)
// keep their spelling. Prefix is the instance path of a module-qualified
// reference, nil otherwise.
type OpApp struct {
	At     Pos
	Prefix []*InstanceRef
	Name   string
	Args   []Expr
	Fix    Fixity
}

// Num is an integer (or decimal) literal. Value holds decimal digits: \b, \o
// and \h literals are converted to decimal; the text is kept because TLA+
// integers are unbounded and the evaluator decides what fits. A decimal such
// as 1.5 keeps its dot.
type Num struct {
	At    Pos
	Value string
}

// Str is a string literal; Value is unescaped.
type Str struct {
	At    Pos
	Value string
}

// Bool is TRUE or FALSE.
type Bool struct {
	At    Pos
	Value bool
}

// AtSign is @ inside an EXCEPT update: the old value at the updated path.
type AtSign struct {
	At Pos
}

// SetEnum is `{a, b, c}` (possibly empty).
type SetEnum struct {
	At    Pos
	Elems []Expr
}

// Bound binds names to the elements of a set: `x, y \in S`, or a tuple
// pattern `<<a, b>> \in S` (Tuple is true and Names are the components). Set
// is nil for the unbounded forms `\A x : P`, `\E x : P` and `CHOOSE x : P`.
type Bound struct {
	At    Pos
	Names []*Ident
	Tuple bool
	Set   Expr
}

// SetFilter is `{x \in S : Pred}` (Bound has exactly one name or one tuple
// pattern).
type SetFilter struct {
	At    Pos
	Bound *Bound
	Pred  Expr
}

// SetMap is `{Elem : x \in S, y, z \in T}`.
type SetMap struct {
	At     Pos
	Elem   Expr
	Bounds []*Bound
}

// QuantKind distinguishes \A from \E.
type QuantKind int

// Quantifier kinds.
const (
	Forall QuantKind = iota // \A, \forall
	Exists                  // \E, \exists
)

// Quant is `\A x \in S, y \in T : Body` or `\E ...`; unbounded when the
// Bounds' Set is nil.
type Quant struct {
	At     Pos
	Kind   QuantKind
	Bounds []*Bound
	Body   Expr
}

// Choose is `CHOOSE x \in S : Body` (Bound.Set nil when unbounded; Bound may
// be a tuple pattern).
type Choose struct {
	At    Pos
	Bound *Bound
	Body  Expr
}

// FuncCons is `[x \in S, y \in T |-> Body]`.
type FuncCons struct {
	At     Pos
	Bounds []*Bound
	Body   Expr
}

// FuncSet is `[Dom -> Rng]`.
type FuncSet struct {
	At  Pos
	Dom Expr
	Rng Expr
}

// Field is one `name |-> Val` of a RecordCons or `name : Val` of a RecordSet.
type Field struct {
	At   Pos
	Name string
	Val  Expr
}

// RecordCons is `[a |-> 1, b |-> 2]`.
type RecordCons struct {
	At     Pos
	Fields []*Field
}

// RecordSet is `[a : S, b : T]`; each Field.Val is a set.
type RecordSet struct {
	At     Pos
	Fields []*Field
}

// ExceptStep is one step of an EXCEPT path: `.field` (Field set, Index nil)
// or `[e1, e2]` (Index set; several expressions form a tuple argument).
type ExceptStep struct {
	At    Pos
	Field string
	Index []Expr
}

// ExceptUpdate is one `!path = Val` of an EXCEPT.
type ExceptUpdate struct {
	At   Pos
	Path []*ExceptStep
	Val  Expr
}

// Except is `[Func EXCEPT ![a] = x, !.f[b] = y]`.
type Except struct {
	At      Pos
	Func    Expr
	Updates []*ExceptUpdate
}

// FuncApp is `f[a]` or `f[a, b]` (several arguments form a tuple).
type FuncApp struct {
	At   Pos
	Func Expr
	Args []Expr
}

// FieldAccess is `r.field`.
type FieldAccess struct {
	At    Pos
	Rec   Expr
	Field string
}

// Tuple is `<<a, b>>` (possibly empty).
type Tuple struct {
	At    Pos
	Elems []Expr
}

// Cross is the Cartesian product `A \X B \X C`: n-ary, the set of n-tuples
// (not nested pairs). Parenthesised `(A \X B) \X C` stays nested.
type Cross struct {
	At   Pos
	Sets []Expr
}

// If is `IF Cond THEN Then ELSE Else`.
type If struct {
	At   Pos
	Cond Expr
	Then Expr
	Else Expr
}

// CaseArm is one `Cond -> Val` of a CASE.
type CaseArm struct {
	At   Pos
	Cond Expr
	Val  Expr
}

// Case is `CASE c1 -> v1 [] c2 -> v2 [] OTHER -> o`; Other is nil when absent.
type Case struct {
	At    Pos
	Arms  []*CaseArm
	Other Expr
}

// Let is `LET defs IN Body`; Defs holds *OpDef, *FuncDef and *Recursive.
type Let struct {
	At   Pos
	Defs []Unit
	Body Expr
}

// Lambda is `LAMBDA x, y : Body`.
type Lambda struct {
	At     Pos
	Params []*Param
	Body   Expr
}

// JunctionOp is the operator of a Junction.
type JunctionOp int

// Junction operators.
const (
	And JunctionOp = iota // /\
	Or                    // \/
)

// String returns "/\" or "\/".
func (o JunctionOp) String() string {
	if o == And {
		return `/\`
	}
	return `\/`
}

// Junction is a conjunction or disjunction of two or more items. Bulleted
// lists (column-aligned /\ or \/) and infix chains `a /\ b /\ c` both come out
// as one flat Junction; Bulleted says which form was written. An item of a
// bulleted list that is itself a junction of the same operator is spliced
// into the list. A one-item bulleted list is also a Junction with one item.
type Junction struct {
	At       Pos
	Op       JunctionOp
	Items    []Expr
	Bulleted bool
}

// ActionBox is `[Action]_Sub`: Action \/ UNCHANGED Sub.
type ActionBox struct {
	At     Pos
	Action Expr
	Sub    Expr
}

// ActionAngle is `<<Action>>_Sub`: Action /\ ~UNCHANGED Sub.
type ActionAngle struct {
	At     Pos
	Action Expr
	Sub    Expr
}

// Fairness is `WF_Sub(Action)` or, when Strong, `SF_Sub(Action)`.
type Fairness struct {
	At     Pos
	Strong bool
	Sub    Expr
	Action Expr
}

func (*Ident) exprNode()       {}
func (*OpApp) exprNode()       {}
func (*Num) exprNode()         {}
func (*Str) exprNode()         {}
func (*Bool) exprNode()        {}
func (*AtSign) exprNode()      {}
func (*SetEnum) exprNode()     {}
func (*SetFilter) exprNode()   {}
func (*SetMap) exprNode()      {}
func (*Quant) exprNode()       {}
func (*Choose) exprNode()      {}
func (*FuncCons) exprNode()    {}
func (*FuncSet) exprNode()     {}
func (*RecordCons) exprNode()  {}
func (*RecordSet) exprNode()   {}
func (*Except) exprNode()      {}
func (*FuncApp) exprNode()     {}
func (*FieldAccess) exprNode() {}
func (*Tuple) exprNode()       {}
func (*Cross) exprNode()       {}
func (*If) exprNode()          {}
func (*Case) exprNode()        {}
func (*Let) exprNode()         {}
func (*Lambda) exprNode()      {}
func (*Junction) exprNode()    {}
func (*ActionBox) exprNode()   {}
func (*ActionAngle) exprNode() {}
func (*Fairness) exprNode()    {}

// Pos implements Node.
func (n *Ident) Pos() Pos { return n.At }

// Pos implements Node.
func (n *InstanceRef) Pos() Pos { return n.At }

// Pos implements Node.
func (n *OpApp) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Num) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Str) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Bool) Pos() Pos { return n.At }

// Pos implements Node.
func (n *AtSign) Pos() Pos { return n.At }

// Pos implements Node.
func (n *SetEnum) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Bound) Pos() Pos { return n.At }

// Pos implements Node.
func (n *SetFilter) Pos() Pos { return n.At }

// Pos implements Node.
func (n *SetMap) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Quant) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Choose) Pos() Pos { return n.At }

// Pos implements Node.
func (n *FuncCons) Pos() Pos { return n.At }

// Pos implements Node.
func (n *FuncSet) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Field) Pos() Pos { return n.At }

// Pos implements Node.
func (n *RecordCons) Pos() Pos { return n.At }

// Pos implements Node.
func (n *RecordSet) Pos() Pos { return n.At }

// Pos implements Node.
func (n *ExceptStep) Pos() Pos { return n.At }

// Pos implements Node.
func (n *ExceptUpdate) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Except) Pos() Pos { return n.At }

// Pos implements Node.
func (n *FuncApp) Pos() Pos { return n.At }

// Pos implements Node.
func (n *FieldAccess) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Tuple) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Cross) Pos() Pos { return n.At }

// Pos implements Node.
func (n *If) Pos() Pos { return n.At }

// Pos implements Node.
func (n *CaseArm) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Case) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Let) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Lambda) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Junction) Pos() Pos { return n.At }

// Pos implements Node.
func (n *ActionBox) Pos() Pos { return n.At }

// Pos implements Node.
func (n *ActionAngle) Pos() Pos { return n.At }

// Pos implements Node.
func (n *Fairness) Pos() Pos { return n.At }
