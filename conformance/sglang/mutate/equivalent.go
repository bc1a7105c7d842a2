package mutate

import "strings"

// Equivalence marks surviving mutants as equivalent to the original, with
// the reason: which configuration could tell them apart, or why none
// could. It is a reviewed table: an entry is a claim about SGLang's code
// that a reviewer checked, matched on what the mutant changes rather than
// on line numbers, so it holds across commits as long as the code it
// names does.
type Equivalence struct {
	// File (relative to the source root, as Mutant.File), Function (the
	// qualified name) and Operator must equal the mutant's; What must be
	// part of its What. An empty field matches anything.
	File, Function, Operator, What string
	// Reason says why no run of the suite could tell the mutant from the
	// original, naming the configuration (or boundary) that could.
	Reason string
}

// Equivalents is the reviewed table.
var Equivalents = []Equivalence{}

// equivalent returns the reason of the first entry of table that matches
// m.
func equivalent(table []Equivalence, m Mutant) (string, bool) {
	for _, e := range table {
		if (e.File == "" || e.File == m.File) && (e.Function == "" || e.Function == m.Function) &&
			(e.Operator == "" || e.Operator == m.Operator) && strings.Contains(m.What, e.What) {
			return e.Reason, true
		}
	}
	return "", false
}
