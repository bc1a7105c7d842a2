package check

import "sync"

// parallel calls f(w, i) for i in [0, n) on up to workers goroutines, each
// taking a contiguous range in order (w, in [0, workers), tells which), and
// returns the first error (a worker stops at its first error).
func parallel(n, workers int, f func(w, i int) error) error {
	if workers < 1 {
		workers = 1
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				if err := f(w, i); err != nil {
					errs[w] = err
					return
				}
			}
		}(w, lo, hi)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
