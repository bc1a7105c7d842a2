// Package report draws roomspec's answers as pictures: self-contained
// HTML pages (inline CSS, SVG and script; no network) of the rooms of a
// replay, the rooms of roomspec test -captures, and counterexamples of
// roomspec check, test and ITF traces.
//
// The picture of a behaviour is a Diagram: a sequence diagram whose lanes
// come from the spec's annotations (one per environment actor and decode
// rank, the wire, one per prefill thread, and the log), whose rows are
// spec steps, whose messages are the steps' @wire messages with the frame
// numbers and times the capture saw them at, and whose unseen steps
// (inferred by replay's search) are drawn apart from the observed ones. A
// pinned room shows the state it is pinned from, and an at-risk room the
// completion of its unseen steps that pins it. Hovering a step shows what
// it changed in the spec's state (package statediff).
//
// A Page gathers diagrams as rows of a table, with a summary and the
// room-status state diagram of the variant (the transitions its rows
// took, counted). Pages hold their data compactly and draw each diagram
// only when its row is opened, so the size of a page grows with its rows,
// not with the messages of the capture.
package report
