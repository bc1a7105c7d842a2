package tla

// Op names a built-in operator: one of the language's own (=, \in, ',
// ENABLED, ...) or of a standard module that has no .tla file
// (StandardModules: Naturals, Sequences, TLC, ...). The resolver binds a
// name to its Op once; the evaluator and gen dispatch on it. Adding a
// built-in operator is one line of Builtins (and its meaning in the
// evaluator).
type Op uint8

// The built-in operators. OpNone is no built-in.
const (
	OpNone Op = iota

	// The language's own operators, visible in every module.
	OpEq         // =
	OpNeq        // /=
	OpIn         // \in
	OpNotIn      // \notin
	OpAnd        // /\ (as an operator argument; between operands it is a Junction)
	OpOr         // \/
	OpNot        // ~
	OpImplies    // =>
	OpEquiv      // <=>
	OpPrime      // '
	OpUnchanged  // UNCHANGED
	OpEnabled    // ENABLED
	OpAlways     // []
	OpEventually // <>
	OpLeadsTo    // ~>
	OpWhilePlus  // -+->
	OpCdot       // \cdot (action composition)
	OpPowerset   // SUBSET
	OpUnion      // UNION
	OpDomain     // DOMAIN
	OpSubseteq   // \subseteq
	OpSetMinus   // \
	OpCap        // \cap
	OpCup        // \cup
	OpBoolean    // BOOLEAN
	OpString     // STRING

	// Naturals.
	OpNat   // Nat
	OpPlus  // +
	OpMinus // -
	OpTimes // *
	OpExp   // ^
	OpLt    // <
	OpGt    // >
	OpLe    // <=
	OpGe    // >=
	OpMod   // %
	OpDiv   // \div
	OpRange // ..

	// Integers.
	OpInt // Int
	OpNeg // -. (unary minus)

	// Reals.
	OpReal     // Real
	OpRealDiv  // /
	OpInfinity // Infinity

	// Sequences.
	OpSeq       // Seq
	OpLen       // Len
	OpConcat    // \o
	OpAppend    // Append
	OpHead      // Head
	OpTail      // Tail
	OpSubSeq    // SubSeq
	OpSelectSeq // SelectSeq

	// FiniteSets.
	OpIsFiniteSet // IsFiniteSet
	OpCardinality // Cardinality

	// TLC.
	OpPrint         // Print
	OpPrintT        // PrintT
	OpAssert        // Assert
	OpJavaTime      // JavaTime
	OpTLCGet        // TLCGet
	OpTLCSet        // TLCSet
	OpSingleton     // :>
	OpMerge         // @@
	OpPermutations  // Permutations
	OpSortSeq       // SortSeq
	OpRandomElement // RandomElement
	OpAny           // Any
	OpToString      // ToString
	OpTLCEval       // TLCEval

	// TLCExt.
	OpAssertEq          // AssertEq
	OpAssertError       // AssertError
	OpTLCGetOrDefault   // TLCGetOrDefault
	OpTLCGetAndSet      // TLCGetAndSet
	OpTrace             // Trace
	OpCounterExample    // CounterExample
	OpToTrace           // ToTrace
	OpTLCModelValue     // TLCModelValue
	OpTLCDefer          // TLCDefer
	OpTLCNoOp           // TLCNoOp
	OpPickSuccessor     // PickSuccessor
	OpTLCCache          // TLCCache
	OpTLCFP             // TLCFP
	OpTLCEvalDefinition // TLCEvalDefinition

	// Randomization.
	OpRandomSubset           // RandomSubset
	OpRandomSetOfSubsets     // RandomSetOfSubsets
	OpTestRandomSetOfSubsets // TestRandomSetOfSubsets

	// Bags.
	OpIsABag         // IsABag
	OpBagToSet       // BagToSet
	OpSetToBag       // SetToBag
	OpBagIn          // BagIn
	OpEmptyBag       // EmptyBag
	OpBagAdd         // (+)
	OpBagSub         // (-)
	OpBagUnion       // BagUnion
	OpSqSubseteq     // \sqsubseteq
	OpSubBag         // SubBag
	OpBagOfAll       // BagOfAll
	OpBagCardinality // BagCardinality
	OpCopiesIn       // CopiesIn

	numOps
)

// Builtin describes a built-in operator.
type Builtin struct {
	Op   Op
	Name string // normalised as in OpApp
	// Module is the standard module that defines it, "" for the
	// language's own operators (visible everywhere).
	Module string
	// Params has one entry per argument: 0 for an ordinary argument, n
	// for an operator argument taking n arguments (SelectSeq's Test(_)).
	Params []int
	// Level is the level of an application with constant arguments and
	// ArgMax the highest level each argument may have; Weight says which
	// arguments' levels raise the application's (a primed expression is an
	// action whatever its argument). Nil ArgMax and Weight mean an
	// ordinary operator: every argument at most an action, the level that
	// of the highest argument. The values are SANY's.
	Level  int
	ArgMax []int
	Weight []bool
	// Effect marks an operator each evaluation of which counts (Print): an
	// expression that applies it is never evaluated once for all.
	Effect bool
}

// Levels of expressions, as SANY computes them.
const (
	ConstantLevel = 0
	StateLevel    = 1
	ActionLevel   = 2
	TemporalLevel = 3
)

// Builtins lists every built-in operator.
var Builtins = []*Builtin{
	{Op: OpEq, Name: "=", Params: args(2), ArgMax: []int{2, 2}},
	{Op: OpNeq, Name: "/=", Params: args(2), ArgMax: []int{2, 2}},
	{Op: OpIn, Name: `\in`, Params: args(2), ArgMax: []int{2, 2}},
	{Op: OpNotIn, Name: `\notin`, Params: args(2), ArgMax: []int{2, 2}},
	{Op: OpAnd, Name: `/\`, Params: args(2), ArgMax: []int{3, 3}},
	{Op: OpOr, Name: `\/`, Params: args(2), ArgMax: []int{3, 3}},
	{Op: OpNot, Name: "~", Params: args(1), ArgMax: []int{3}},
	{Op: OpImplies, Name: "=>", Params: args(2), ArgMax: []int{3, 3}},
	{Op: OpEquiv, Name: "<=>", Params: args(2), ArgMax: []int{3, 3}},
	{Op: OpPrime, Name: "'", Params: args(1), Level: ActionLevel, ArgMax: []int{1}, Weight: []bool{false}},
	{Op: OpUnchanged, Name: "UNCHANGED", Params: args(1), Level: ActionLevel, ArgMax: []int{1}, Weight: []bool{false}},
	{Op: OpEnabled, Name: "ENABLED", Params: args(1), Level: StateLevel, ArgMax: []int{2}, Weight: []bool{false}},
	{Op: OpAlways, Name: "[]", Params: args(1), Level: TemporalLevel, ArgMax: []int{3}, Weight: []bool{false}},
	{Op: OpEventually, Name: "<>", Params: args(1), Level: TemporalLevel, ArgMax: []int{3}, Weight: []bool{false}},
	{Op: OpLeadsTo, Name: "~>", Params: args(2), Level: TemporalLevel, ArgMax: []int{3, 3}, Weight: []bool{false, false}},
	{Op: OpWhilePlus, Name: "-+->", Params: args(2), Level: TemporalLevel, ArgMax: []int{3, 3}, Weight: []bool{false, false}},
	{Op: OpCdot, Name: `\cdot`, Params: args(2), Level: ActionLevel, ArgMax: []int{2, 2}, Weight: []bool{false, false}},
	{Op: OpPowerset, Name: "SUBSET", Params: args(1)},
	{Op: OpUnion, Name: "UNION", Params: args(1)},
	{Op: OpDomain, Name: "DOMAIN", Params: args(1)},
	{Op: OpSubseteq, Name: `\subseteq`, Params: args(2)},
	{Op: OpSetMinus, Name: `\`, Params: args(2)},
	{Op: OpCap, Name: `\cap`, Params: args(2)},
	{Op: OpCup, Name: `\cup`, Params: args(2)},
	{Op: OpBoolean, Name: "BOOLEAN"},
	{Op: OpString, Name: "STRING"},

	{Op: OpNat, Name: "Nat", Module: "Naturals"},
	{Op: OpPlus, Name: "+", Module: "Naturals", Params: args(2)},
	{Op: OpMinus, Name: "-", Module: "Naturals", Params: args(2)},
	{Op: OpTimes, Name: "*", Module: "Naturals", Params: args(2)},
	{Op: OpExp, Name: "^", Module: "Naturals", Params: args(2)},
	{Op: OpLt, Name: "<", Module: "Naturals", Params: args(2)},
	{Op: OpGt, Name: ">", Module: "Naturals", Params: args(2)},
	{Op: OpLe, Name: "<=", Module: "Naturals", Params: args(2)},
	{Op: OpGe, Name: ">=", Module: "Naturals", Params: args(2)},
	{Op: OpMod, Name: "%", Module: "Naturals", Params: args(2)},
	{Op: OpDiv, Name: `\div`, Module: "Naturals", Params: args(2)},
	{Op: OpRange, Name: "..", Module: "Naturals", Params: args(2)},

	{Op: OpInt, Name: "Int", Module: "Integers"},
	{Op: OpNeg, Name: "-.", Module: "Integers", Params: args(1)},

	{Op: OpReal, Name: "Real", Module: "Reals"},
	{Op: OpRealDiv, Name: "/", Module: "Reals", Params: args(2)},
	{Op: OpInfinity, Name: "Infinity", Module: "Reals"},

	{Op: OpSeq, Name: "Seq", Module: "Sequences", Params: args(1)},
	{Op: OpLen, Name: "Len", Module: "Sequences", Params: args(1)},
	{Op: OpConcat, Name: `\o`, Module: "Sequences", Params: args(2)},
	{Op: OpAppend, Name: "Append", Module: "Sequences", Params: args(2)},
	{Op: OpHead, Name: "Head", Module: "Sequences", Params: args(1)},
	{Op: OpTail, Name: "Tail", Module: "Sequences", Params: args(1)},
	{Op: OpSubSeq, Name: "SubSeq", Module: "Sequences", Params: args(3)},
	{Op: OpSelectSeq, Name: "SelectSeq", Module: "Sequences", Params: []int{0, 1}},

	{Op: OpIsFiniteSet, Name: "IsFiniteSet", Module: "FiniteSets", Params: args(1)},
	{Op: OpCardinality, Name: "Cardinality", Module: "FiniteSets", Params: args(1)},

	{Op: OpPrint, Name: "Print", Module: "TLC", Params: args(2), Effect: true},
	{Op: OpPrintT, Name: "PrintT", Module: "TLC", Params: args(1), Effect: true},
	{Op: OpAssert, Name: "Assert", Module: "TLC", Params: args(2)},
	{Op: OpJavaTime, Name: "JavaTime", Module: "TLC", Effect: true},
	{Op: OpTLCGet, Name: "TLCGet", Module: "TLC", Params: args(1), Effect: true},
	{Op: OpTLCSet, Name: "TLCSet", Module: "TLC", Params: args(2), Effect: true},
	{Op: OpSingleton, Name: ":>", Module: "TLC", Params: args(2)},
	{Op: OpMerge, Name: "@@", Module: "TLC", Params: args(2)},
	{Op: OpPermutations, Name: "Permutations", Module: "TLC", Params: args(1)},
	{Op: OpSortSeq, Name: "SortSeq", Module: "TLC", Params: []int{0, 2}},
	{Op: OpRandomElement, Name: "RandomElement", Module: "TLC", Params: args(1), Effect: true},
	{Op: OpAny, Name: "Any", Module: "TLC"},
	{Op: OpToString, Name: "ToString", Module: "TLC", Params: args(1)},
	{Op: OpTLCEval, Name: "TLCEval", Module: "TLC", Params: args(1)},

	{Op: OpAssertEq, Name: "AssertEq", Module: "TLCExt", Params: args(2)},
	{Op: OpAssertError, Name: "AssertError", Module: "TLCExt", Params: args(2)},
	{Op: OpTLCGetOrDefault, Name: "TLCGetOrDefault", Module: "TLCExt", Params: args(2), Effect: true},
	{Op: OpTLCGetAndSet, Name: "TLCGetAndSet", Module: "TLCExt", Params: []int{0, 2, 0, 0}, Effect: true},
	{Op: OpTrace, Name: "Trace", Module: "TLCExt", Effect: true},
	{Op: OpCounterExample, Name: "CounterExample", Module: "TLCExt", Effect: true},
	{Op: OpToTrace, Name: "ToTrace", Module: "TLCExt", Params: args(1)},
	{Op: OpTLCModelValue, Name: "TLCModelValue", Module: "TLCExt", Params: args(1)},
	{Op: OpTLCDefer, Name: "TLCDefer", Module: "TLCExt", Params: args(1)},
	{Op: OpTLCNoOp, Name: "TLCNoOp", Module: "TLCExt", Params: args(1)},
	{Op: OpPickSuccessor, Name: "PickSuccessor", Module: "TLCExt", Params: args(1)},
	{Op: OpTLCCache, Name: "TLCCache", Module: "TLCExt", Params: args(2)},
	{Op: OpTLCFP, Name: "TLCFP", Module: "TLCExt", Params: args(1)},
	{Op: OpTLCEvalDefinition, Name: "TLCEvalDefinition", Module: "TLCExt", Params: args(1)},

	{Op: OpRandomSubset, Name: "RandomSubset", Module: "Randomization", Params: args(2), Effect: true},
	{Op: OpRandomSetOfSubsets, Name: "RandomSetOfSubsets", Module: "Randomization", Params: args(3), Effect: true},
	{Op: OpTestRandomSetOfSubsets, Name: "TestRandomSetOfSubsets", Module: "Randomization", Params: args(3), Effect: true},

	{Op: OpIsABag, Name: "IsABag", Module: "Bags", Params: args(1)},
	{Op: OpBagToSet, Name: "BagToSet", Module: "Bags", Params: args(1)},
	{Op: OpSetToBag, Name: "SetToBag", Module: "Bags", Params: args(1)},
	{Op: OpBagIn, Name: "BagIn", Module: "Bags", Params: args(2)},
	{Op: OpEmptyBag, Name: "EmptyBag", Module: "Bags"},
	{Op: OpBagAdd, Name: "(+)", Module: "Bags", Params: args(2)},
	{Op: OpBagSub, Name: "(-)", Module: "Bags", Params: args(2)},
	{Op: OpBagUnion, Name: "BagUnion", Module: "Bags", Params: args(1)},
	{Op: OpSqSubseteq, Name: `\sqsubseteq`, Module: "Bags", Params: args(2)},
	{Op: OpSubBag, Name: "SubBag", Module: "Bags", Params: args(1)},
	{Op: OpBagOfAll, Name: "BagOfAll", Module: "Bags", Params: []int{1, 0}},
	{Op: OpBagCardinality, Name: "BagCardinality", Module: "Bags", Params: args(1)},
	{Op: OpCopiesIn, Name: "CopiesIn", Module: "Bags", Params: args(2)},
}

// args returns the parameters of an operator taking n ordinary arguments.
func args(n int) []int { return make([]int, n) }

// standardExtends says which standard modules a standard module EXTENDS,
// so that their operators come with it (Integers brings Naturals; the
// others instantiate what they use LOCALly, which brings nothing).
var standardExtends = map[string][]string{
	"Integers": {"Naturals"},
	"Reals":    {"Integers"},
	"Bags":     {"TLC"},
}

// builtinByOp indexes Builtins by Op; builtinsOf by standard module.
var builtinByOp, builtinsOf = indexBuiltins()

func indexBuiltins() (byOp [numOps]*Builtin, byModule map[string][]*Builtin) {
	byModule = map[string][]*Builtin{}
	for _, b := range Builtins {
		if byOp[b.Op] != nil {
			panic("tla: built-in operator listed twice: " + b.Name)
		}
		byOp[b.Op] = b
		byModule[b.Module] = append(byModule[b.Module], b)
	}
	for op := OpNone + 1; op < numOps; op++ {
		if byOp[op] == nil {
			panic("tla: built-in operator without an entry in Builtins")
		}
	}
	return byOp, byModule
}

// BuiltinOf returns the description of op.
func BuiltinOf(op Op) *Builtin { return builtinByOp[op] }

// String returns the operator's name.
func (op Op) String() string {
	if op == OpNone || op >= numOps {
		return "no operator"
	}
	return builtinByOp[op].Name
}

// Arity is the number of arguments of b.
func (b *Builtin) Arity() int { return len(b.Params) }

// argMax returns the highest level argument i of b may have.
func (b *Builtin) argMax(i int) int {
	if b.ArgMax == nil {
		return ActionLevel
	}
	return b.ArgMax[i]
}

// weighs reports whether argument i's level raises the level of b's
// applications.
func (b *Builtin) weighs(i int) bool { return b.Weight == nil || b.Weight[i] }
