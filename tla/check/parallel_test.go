package check

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParallel checks that every index is done once, by a worker of the
// given range, and that with failures the lowest failing index's error is
// returned after every index below it was done.
func TestParallel(t *testing.T) {
	for _, tt := range []struct {
		n, workers int
		fail       []int
	}{
		{n: 0, workers: 2},
		{n: 1, workers: 4},
		{n: 1000, workers: 2},
		{n: 1000, workers: 3, fail: []int{700, 41, 999}},
		{n: 100, workers: 1, fail: []int{99}},
		{n: 5000, workers: 4, fail: []int{4999, 2500}},
	} {
		t.Run(fmt.Sprintf("n=%d,workers=%d", tt.n, tt.workers), func(t *testing.T) {
			done := make([]atomic.Int32, tt.n)
			failing := map[int]bool{}
			lowest := tt.n
			for _, i := range tt.fail {
				failing[i] = true
				lowest = min(lowest, i)
			}
			err := parallel(tt.n, tt.workers, func(w, i int) error {
				if w < 0 || w >= tt.workers {
					t.Errorf("worker %d out of range", w)
				}
				done[i].Add(1)
				if failing[i] {
					return fmt.Errorf("fail %d", i)
				}
				return nil
			})
			if lowest < tt.n {
				require.EqualError(t, err, fmt.Sprintf("fail %d", lowest))
			} else {
				require.NoError(t, err)
			}
			for i := range tt.n {
				switch c := done[i].Load(); {
				case c > 1:
					t.Fatalf("index %d done %d times", i, c)
				case i <= lowest && c != 1:
					t.Fatalf("index %d below the failure at %d not done", i, lowest)
				}
			}
		})
	}
}
