package check

import (
	"sync"
	"sync/atomic"
)

// parallelBlock is how many indices a worker of parallel takes at once.
const parallelBlock = 16

// parallel calls f(w, i) for i in [0, n) on up to workers goroutines (w, in
// [0, workers), tells which), and returns the error of the lowest i for
// which f fails. The workers take blocks of indices in increasing order as
// they become free, so that one with cheap indices does not wait for
// another with costly ones; after a failure no block above it is taken,
// and every i below it has been done.
func parallel(n, workers int, f func(w, i int) error) error {
	if workers < 1 {
		workers = 1
	}
	var next atomic.Int64 // the start of the next block
	var mu sync.Mutex
	failed, firstErr := n, error(nil) // the lowest failing i, and its error
	lowestFailure := func() int {
		mu.Lock()
		defer mu.Unlock()
		return failed
	}
	var wg sync.WaitGroup
	for w := range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(parallelBlock)) - parallelBlock
				if lo >= n || lo > lowestFailure() {
					return
				}
				for i := lo; i < min(lo+parallelBlock, n); i++ {
					if err := f(w, i); err != nil {
						mu.Lock()
						if i < failed {
							failed, firstErr = i, err
						}
						mu.Unlock()
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}
