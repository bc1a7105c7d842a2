// Package sglang runs SGLang's own prefill room handling, unmodified, under
// the conformance suite: the implementation behind
// `roomspec test -impl sglang:PATH` and `roomspec history`.
//
// The real code is Python. A harness (the roomspec_sglang package embedded
// here, harness/) loads sglang.srt.disaggregation from a source tree,
// serves every other import (torch, nixl, the rest of sglang.srt) from a
// permissive stub finder, and fakes exactly five boundaries: ZeroMQ
// sockets and context, the transfer queues, the NIXL agent, the clock and
// decode's registration. SGLang's bootstrap thread and transfer workers
// run for real and park at the fakes; each spec action resumes one thread
// (or calls one of prefill.py's scheduler functions) and waits until it
// parks again. The harness speaks the JSON-lines protocol of
// conformance/PROTOCOL.md, so the suite drives it through package
// subprocess like any other process.
//
// A source is a folder holding sglang/srt (a checkout's python/ folder, a
// site-packages folder, or a checkout), or GITDIR@COMMIT, extracted with
// git archive into a cache folder. What code must refine is not its own
// choice: the expectation table (Lifecycle, Expect) gives the
// configuration of the lifecycle PRs in a commit's history. Probe finds
// which ingredients of the room lifecycle the loaded code has (by
// running it, not by reading it), and Compare reports where they differ
// from the expectation; Choose names the configuration that models them,
// for code of which nothing is expected. Load does all of it.
package sglang
