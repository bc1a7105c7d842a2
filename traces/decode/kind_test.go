package decode

import (
	"testing"

	"github.com/roomspec/roomspec/traces/zmtp"
)

// TestKinds: the kinds callers branch on are the names the stream
// diagnostics carry.
func TestKinds(t *testing.T) {
	for k, want := range map[zmtp.Kind]Kind{zmtp.KindGap: KindGap, zmtp.KindResynced: KindResynced} {
		if got := StreamKind(k); got != want {
			t.Errorf("StreamKind(%v) = %q, want %q", k, got, want)
		}
	}
}
