package subprocess

import (
	"fmt"
	"sync"
)

// ring keeps the last StderrKeep bytes written to it (in at most twice
// that memory) and counts the rest.
type ring struct {
	mu      sync.Mutex
	buf     []byte
	dropped int64
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if len(p) > StderrKeep {
		r.dropped += int64(len(r.buf) + len(p) - StderrKeep)
		r.buf = append(r.buf[:0], p[len(p)-StderrKeep:]...)
		return n, nil
	}
	if len(r.buf)+len(p) > 2*StderrKeep {
		cut := len(r.buf) - StderrKeep
		r.dropped += int64(cut)
		r.buf = append(r.buf[:0], r.buf[cut:]...)
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

// String returns the last StderrKeep bytes, saying how many came before.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, dropped := r.buf, r.dropped
	if len(b) > StderrKeep {
		dropped += int64(len(b) - StderrKeep)
		b = b[len(b)-StderrKeep:]
	}
	if dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes not kept]\n%s", dropped, b)
	}
	return string(b)
}
