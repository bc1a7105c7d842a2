package check

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/roomspec/roomspec/internal/sharedpath"
)

// benchModel checks a shared model b.N times and reports states per second.
func benchModel(b *testing.B, dir, module, config string, workers int) {
	root := sharedpath.Require(b, "tla-examples")
	m := loadModel(b, filepath.Join(root, dir), module, config)
	b.ResetTimer()
	var distinct int64
	for i := 0; i < b.N; i++ {
		r := Check(context.Background(), m, Options{Workers: workers})
		if r.Err != nil {
			b.Fatal(r.Err)
		}
		distinct = r.Distinct
	}
	b.ReportMetric(float64(distinct)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
}

func BenchmarkTokenRing(b *testing.B) {
	benchModel(b, "ewd426--TokenRing", "TokenRing", "TokenRing.cfg", 0)
}

// BenchmarkPaxosCommit explores PaxosCommit's 1,321,761 states, too many for
// the default test run.
func BenchmarkPaxosCommit(b *testing.B) {
	benchModel(b, "transaction_commit--PaxosCommit", "PaxosCommit", "PaxosCommit.cfg", 0)
}
