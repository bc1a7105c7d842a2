package replay

import "math/bits"

// Observations of one room that come close together (a burst) may have
// happened in another order than the capture shows them: separate TCP
// connections are not ordered with each other (libzmq flushes each
// socket from its own I/O thread, so decode's ABORT on one rank's
// connection can reach the wire microseconds before another rank's
// earlier TransferInfo), and the log's clock is not the capture's. Each
// source keeps its own order exactly. A burst is explained when some
// order of its observations that keeps each source's order, and swaps
// observations of different sources only when they are at most the skew
// apart, is explained; the states after it are the union over all such
// orders.

// maxBurst bounds the observations one burst reorders (masks are uint16
// and a burst explores at most 2^maxBurst orders' prefixes); a longer run
// of close observations is cut into bursts of this size.
const maxBurst = 8

// order is the constraint on a burst's orders: observation i may come
// only after every observation in need[i], and before every one in
// forbid[i] (bit j is observation j of the burst).
type order struct {
	n            int
	need, forbid [maxBurst]uint16
}

// constrain returns the orders allowed for observations from sources src
// at times t (capture order) with the given skew.
func constrain(src []int32, t []int64, skew int64) order {
	o := order{n: len(src)}
	for i := range src {
		for j := range src {
			switch {
			case j < i && (src[j] == src[i] || t[i]-t[j] > skew):
				o.need[i] |= 1 << j
			case j > i && (src[j] == src[i] || t[j]-t[i] > skew):
				o.forbid[i] |= 1 << j
			}
		}
	}
	return o
}

// space is what a burst is explained in: sets of nodes, as interned sets
// (the memoized path) or as node lists with trails (reconstruction).
type space[S any] interface {
	// step explains the burst's observation i after the nodes of s.
	step(s S, i int) (next S, depth int, hit bool)
	union(a, b S) S
	empty(s S) bool
	closed(s S) bool
	released(s S) bool
}

// explained is what explaining a burst found.
type explained[S any] struct {
	// final: the nodes after every observation, in any allowed order;
	// empty when no order explains them all.
	final S
	// closedAt is the smallest k >= 1 such that the burst's first j
	// observations (capture order) are explained and leave the room
	// closed for every j >= k: when, within the burst, the room closed
	// for good; 0 if it is not closed at the end. releasedAt is the same
	// for released.
	closedAt, releasedAt int
	// blame is, when final is empty, the observation no order explains
	// (of the orders that explain the most observations, the one that
	// follows capture order longest), and from the nodes it was checked
	// from; blame is -1 otherwise.
	blame int
	from  S
	depth int
	hit   bool
}

// maxOrderSteps bounds the steps one burst's orders may take together: a
// burst of a few observations of two sources takes a few, the scenarios'
// bursts (both ranks' messages, their ACKs and log lines) up to about a
// hundred, maxBurst observations of as many sources 1,024. Past it only
// the capture's order is explained, and the result says a bound was hit.
const maxOrderSteps = 256

// explain explains a burst of o.n observations after start.
func explain[S any](sp space[S], start S, o order) explained[S] {
	if steps := orderSteps(o); steps > maxOrderSteps {
		strict := order{n: o.n}
		for i := 0; i < o.n; i++ {
			strict.need[i] = 1<<i - 1
			strict.forbid[i] = uint16(1<<o.n-1) &^ (1<<(i+1) - 1)
		}
		res := explainOrders(sp, start, strict)
		res.hit = true
		return res
	}
	return explainOrders(sp, start, o)
}

// orderSteps counts the steps explainOrders would take if every one
// explained its observation: the edges between the allowed prefixes.
func orderSteps(o order) int {
	n, steps := o.n, 0
	reach := make([]bool, 1<<n)
	reach[0] = true
	for m := 0; m < 1<<n; m++ {
		if !reach[m] {
			continue
		}
		for i := 0; i < n; i++ {
			if bit := 1 << i; m&bit == 0 && int(o.need[i])&^m == 0 && int(o.forbid[i])&m == 0 {
				reach[m|bit] = true
				steps++
			}
		}
	}
	return steps
}

func explainOrders[S any](sp space[S], start S, o order) explained[S] {
	n := o.n
	full := 1<<n - 1
	dp := make([]S, 1<<n)
	has := make([]bool, 1<<n)
	dp[0], has[0] = start, true
	var res explained[S]
	// A step adds a bit, so every mask's predecessors come before it.
	for m := 0; m <= full; m++ {
		if !has[m] {
			continue
		}
		for i := 0; i < n; i++ {
			bit := 1 << i
			if m&bit != 0 || int(o.need[i])&^m != 0 || int(o.forbid[i])&m != 0 {
				continue
			}
			next, d, h := sp.step(dp[m], i)
			res.depth, res.hit = max(res.depth, d), res.hit || h
			if sp.empty(next) {
				continue
			}
			if has[m|bit] {
				dp[m|bit] = sp.union(dp[m|bit], next)
			} else {
				dp[m|bit], has[m|bit] = next, true
			}
		}
	}
	// From the end backwards, while each capture-order prefix is
	// explained and keeps the property.
	closed, released := true, true
	for k := n; k >= 1 && (closed || released); k-- {
		p := 1<<k - 1
		closed = closed && has[p] && sp.closed(dp[p])
		released = released && has[p] && sp.released(dp[p])
		if closed {
			res.closedAt = k
		}
		if released {
			res.releasedAt = k
		}
	}
	res.blame = -1
	if has[full] {
		res.final = dp[full]
		return res
	}
	best, bestCount, bestMiss := 0, -1, -1
	for m := 0; m < full; m++ {
		if !has[m] {
			continue
		}
		count, miss := bits.OnesCount(uint(m)), bits.TrailingZeros(uint(^m))
		if count > bestCount || count == bestCount && miss > bestMiss {
			best, bestCount, bestMiss = m, count, miss
		}
	}
	res.final = dp[full] // the zero S: empty
	res.blame, res.from = bestMiss, dp[best]
	return res
}
