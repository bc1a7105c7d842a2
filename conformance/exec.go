package conformance

import "github.com/roomspec/roomspec/conformance/subprocess"

// ErrRefused wraps an implementation's refusal of a step ({"ok":false}).
var ErrRefused = subprocess.ErrRefused

// ErrNoIdle: the implementation runs no idle passes (Idler).
var ErrNoIdle = subprocess.ErrNoIdle

// NewExec returns an out-of-process implementation run as `sh -c command`
// and speaking the JSON-lines protocol of PROTOCOL.md, supervised with
// the default timeouts (package subprocess; subprocess.New takes others).
func NewExec(command string) Implementation { return subprocess.New(command, subprocess.Options{}) }
