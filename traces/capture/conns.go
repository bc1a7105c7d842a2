package capture

import (
	"bytes"
	"net/netip"
	"time"
)

// connKey names a connection by its two endpoints, the lower first, so
// that both directions find it. It holds no pointer (netip.Addr does), which
// keeps the connection table small and cheap for the garbage collector.
type connKey struct{ lo, hi endpoint }

type endpoint struct {
	ip   [16]byte
	port uint16
}

func endpointOf(ap netip.AddrPort) endpoint {
	return endpoint{ip: ap.Addr().As16(), port: ap.Port()}
}

func (e endpoint) less(f endpoint) bool {
	if c := bytes.Compare(e.ip[:], f.ip[:]); c != 0 {
		return c < 0
	}
	return e.port < f.port
}

func keyOf(a, b netip.AddrPort) connKey {
	x, y := endpointOf(a), endpointOf(b)
	if y.less(x) {
		x, y = y, x
	}
	return connKey{x, y}
}

// conn is one tracked TCP connection.
type conn struct {
	key       connKey
	halves    [2]Half // [0]: the direction of the first packet seen
	lastSeen  time.Time
	lastFrame int
	// prev and next link the idle list.
	prev, next *conn
}

// idleList orders the tracked connections by their last packet, least
// recently seen first: expiry and eviction take from its front, so
// neither visits the connections that stay.
type idleList struct{ root conn }

func (l *idleList) init() { l.root.prev, l.root.next = &l.root, &l.root }

func (l *idleList) front() *conn {
	if l.root.next == &l.root {
		return nil
	}
	return l.root.next
}

// toBack moves c (tracked or new) to the back of the list.
func (l *idleList) toBack(c *conn) {
	if c.next != nil {
		l.remove(c)
	}
	c.prev, c.next = l.root.prev, &l.root
	l.root.prev.next = c
	l.root.prev = c
}

func (l *idleList) remove(c *conn) {
	c.prev.next, c.next.prev = c.next, c.prev
	c.prev, c.next = nil, nil
}

// open tracks a new connection whose first packet goes from src to dst,
// evicting the connection idle longest when MaxConns are open.
func (a *Assembler) open(src, dst netip.AddrPort) *conn {
	if a.opt.MaxConns > 0 && len(a.conns) >= a.opt.MaxConns {
		old := a.idle.front()
		if !a.evicted {
			a.evicted = true
			a.diagK(DiagEvicted, a.frame, a.now, "%d connections open at once: closing the one idle longest (%s, last packet frame %d, idle %v); further evictions are only counted",
				len(a.conns), old.halves[0].String(), old.lastFrame, a.now.Sub(old.lastSeen))
		}
		a.stats.Evicted++
		a.close(old)
	}
	var c *conn
	if n := len(a.free); n > 0 {
		c, a.free = a.free[n-1], a.free[:n-1]
	} else {
		c = new(conn)
	}
	c.key = keyOf(src, dst)
	c.halves[0] = Half{Conn: a.nextCon, Src: src, Dst: dst}
	c.halves[1] = Half{Conn: a.nextCon, Src: dst, Dst: src}
	c.halves[0].peer, c.halves[1].peer = &c.halves[1], &c.halves[0]
	a.nextCon++
	a.stats.Connections++
	a.conns[c.key] = c
	a.stats.MaxOpen = max(a.stats.MaxOpen, len(a.conns))
	return c
}

// maxFree bounds Assembler.free, so that a burst of connections does not
// keep its memory after it.
const maxFree = 256

// release forgets c and keeps its memory for a later connection; it is
// idempotent until then.
func (a *Assembler) release(c *conn) {
	if a.conns[c.key] != c {
		return
	}
	delete(a.conns, c.key)
	a.idle.remove(c)
	for i := range c.halves {
		h := &c.halves[i]
		if len(h.buf) > 0 {
			a.unbuffer(h, len(h.buf))
		}
	}
	if len(a.free) < maxFree {
		*c = conn{}
		a.free = append(a.free, c)
	}
}
