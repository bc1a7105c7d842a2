package observe

import (
	"net/netip"
	"slices"
	"time"
)

// A room is a room id on one prefill endpoint (the PULL socket decode
// sends its TransferInfo and ABORT to), so that several prefill ranks in
// one capture are told apart; rooms the log shows belong to the log's
// endpoint (GroupOptions.LogEndpoint, else the first one seen). An
// ABORT_ACK (prefill to decode) is matched to the endpoint that holds the
// room for its decode rank, else to the one its connection was matched
// to before, else to the one on its source address.
//
// A room names its decode ranks in order of appearance: by decode's
// announced endpoint, or, for a message that does not carry it, by the
// TransferInfo seen on the same connection. ABORT_ACKs go to decode's
// address as prefill's routing sees it, which may differ from the
// address decode announced (NAT, loopback), while the port is decode's
// own: an ACK is matched by port where the address is unknown.
//
// Rooms are kept while they are active: one unobserved for longer than
// GroupOptions.Idle is handed to OnIdle and forgotten, and a later
// observation of its room id starts a new room. So memory follows the
// rooms in flight, not the capture.

// MaxRanks is the most decode ranks a room names.
const MaxRanks = 8

// Room is a room as the Grouper keeps it; Data is its consumer's state.
type Room[T any] struct {
	// ID is the room id.
	ID int64
	// First and Last are the times (unix nanoseconds) of the room's first
	// and last observations.
	First, Last int64
	// Data is the consumer's own state of the room.
	Data T

	prefill int32
	// ranks are the room's decode ranks in order of appearance
	// (numbered decode endpoints).
	ranks      [MaxRanks]uint16
	nranks     int
	sameID     *Room[T]
	prev, next *Room[T]
}

// OnLogEndpoint reports whether the room is on the prefill endpoint the
// log belongs to (the rooms the log shows are).
func (rm *Room[T]) OnLogEndpoint() bool { return rm.prefill == 0 }

// Live reports whether the Grouper still holds the room: it was neither
// handed over idle nor drained.
func (rm *Room[T]) Live() bool { return rm.next != nil }

// Ranks is the number of decode ranks the room has named.
func (rm *Room[T]) Ranks() int { return rm.nranks }

// GroupOptions tune a Grouper.
type GroupOptions struct {
	// Idle is how long a room may go unobserved before it is handed to
	// OnIdle and forgotten; zero keeps every room until Drain.
	Idle time.Duration
	// LogEndpoint is the prefill endpoint the log's rooms belong to;
	// zero means the first one seen.
	LogEndpoint netip.AddrPort
}

// Grouper groups observations, fed in time order, into rooms.
type Grouper[T any] struct {
	opt    GroupOptions
	onIdle func(*Room[T])
	// rooms chains the live rooms of each room id (one per prefill
	// endpoint); lru orders them by last observation.
	rooms map[int64]*Room[T]
	lru   Room[T]
	live  int
	// prefills numbers prefill endpoints; 0 is the log's.
	prefills   map[netip.AddrPort]int32
	endpoints  []netip.AddrPort
	ackPrefill map[netip.AddrPort]int32
	// connRank names the decode rank behind a connection's source
	// endpoint, from the TransferInfos sent on it.
	connRank map[netip.AddrPort]netip.AddrPort
	// eps numbers decode endpoints, which rooms name their ranks by.
	eps    map[netip.AddrPort]uint16
	epList []netip.AddrPort
	// The last lookups, which consecutive messages mostly repeat, and the
	// rooms seen last (a room's messages come close together, and a
	// lookup in a large map is a cache miss).
	lastPrefill       int32
	lastSrc, lastRank netip.AddrPort
	lastEps           [MaxRanks]uint16
	recent            [recentSize]*Room[T]
	started           bool
	start, now        int64
	midStream         bool
}

const (
	recentBits = 10
	recentSize = 1 << recentBits
)

// NewGrouper returns a Grouper that hands each room idle for longer than
// opt.Idle to onIdle (nil: none) before the observation that found it
// idle is grouped.
func NewGrouper[T any](opt GroupOptions, onIdle func(*Room[T])) *Grouper[T] {
	g := &Grouper[T]{opt: opt, onIdle: onIdle, rooms: map[int64]*Room[T]{}, prefills: map[netip.AddrPort]int32{},
		ackPrefill: map[netip.AddrPort]int32{}, connRank: map[netip.AddrPort]netip.AddrPort{}, eps: map[netip.AddrPort]uint16{}}
	g.lru.prev, g.lru.next = &g.lru, &g.lru
	if opt.LogEndpoint.IsValid() {
		g.prefill(opt.LogEndpoint)
	}
	return g
}

// Observe groups o: it returns o's room, created (new true) if no live
// room holds o, with o.Rank resolved for a message that names its rank by
// connection. Rooms idle for longer than Idle are handed over first.
func (g *Grouper[T]) Observe(o *Observation) (rm *Room[T], new bool) {
	now := o.Time.UnixNano()
	if !g.started && o.Kind.Wire() {
		// The capture's start (a log may begin earlier).
		g.started, g.start = true, now
	}
	g.now = max(g.now, now)
	g.sweep()
	if o.MidStream {
		g.midStream = true
	}
	if o.Kind == TransferInfo && !o.RankFromConn && (o.Src != g.lastSrc || o.Rank != g.lastRank) {
		g.connRank[o.Src] = o.Rank
		g.lastSrc, g.lastRank = o.Src, o.Rank
	}
	if o.RankFromConn {
		if rank, ok := g.connRank[o.Src]; ok {
			o.Rank = rank
		}
	}
	rm, new = g.room(o)
	rm.Last = now
	g.touch(rm)
	return rm, new
}

// Started reports whether a wire observation was seen, and the time
// (unix nanoseconds) of the first one: the capture's start.
func (g *Grouper[T]) Started() (bool, int64) { return g.started, g.start }

// MidStream reports whether the capture joined a connection after its
// handshake.
func (g *Grouper[T]) MidStream() bool { return g.midStream }

// Live returns how many rooms the Grouper holds.
func (g *Grouper[T]) Live() int { return g.live }

// Endpoint returns the prefill endpoint of rm (zero for a room only the
// log showed, when no LogEndpoint was given and none was seen before).
func (g *Grouper[T]) Endpoint(rm *Room[T]) netip.AddrPort {
	if int(rm.prefill) < len(g.endpoints) {
		return g.endpoints[rm.prefill]
	}
	return netip.AddrPort{}
}

// Rank returns the index of o's decode rank among rm's (ABORT_ACKs
// matched by port where only the port is known), or -1.
func (g *Grouper[T]) Rank(rm *Room[T], o *Observation) int {
	d := slices.Index(rm.ranks[:rm.nranks], g.endpoint(o.Rank))
	if d < 0 && o.Kind == AbortAck {
		d = g.samePort(rm, o.Rank)
	}
	return d
}

// AddRank names o's decode rank as rm's next one and returns its index,
// or -1 when rm already names MaxRanks ranks.
func (g *Grouper[T]) AddRank(rm *Room[T], o *Observation) int {
	if rm.nranks == MaxRanks {
		return -1
	}
	rm.ranks[rm.nranks] = g.endpoint(o.Rank)
	rm.nranks++
	return rm.nranks - 1
}

// RankName returns decode rank d of rm.
func (g *Grouper[T]) RankName(rm *Room[T], d int) netip.AddrPort { return g.epList[rm.ranks[d]] }

// RankNames returns rm's decode ranks.
func (g *Grouper[T]) RankNames(rm *Room[T]) []netip.AddrPort {
	out := make([]netip.AddrPort, rm.nranks)
	for i := range out {
		out[i] = g.RankName(rm, i)
	}
	return out
}

// Drain forgets every room and calls f with each, least recently
// observed first.
func (g *Grouper[T]) Drain(f func(*Room[T])) {
	first := g.lru.next
	g.lru.prev, g.lru.next = &g.lru, &g.lru
	g.rooms, g.recent, g.live = map[int64]*Room[T]{}, [recentSize]*Room[T]{}, 0
	for rm := first; rm != &g.lru; {
		next := rm.next
		rm.prev, rm.next = nil, nil
		f(rm)
		rm = next
	}
}

func (g *Grouper[T]) slot(id int64) **Room[T] {
	return &g.recent[uint64(id)*0x9E3779B97F4A7C15>>(64-recentBits)]
}

// room returns the live room o belongs to, creating it.
func (g *Grouper[T]) room(o *Observation) (*Room[T], bool) {
	var p int32
	switch {
	case !o.Kind.Wire():
		p = 0
	case o.Kind == AbortAck:
		p = g.ackRoom(o)
	default:
		p = g.prefill(o.Dst)
	}
	slot := g.slot(o.Room)
	if rm := *slot; rm != nil && rm.ID == o.Room && rm.prefill == p {
		return rm, false
	}
	head := g.rooms[o.Room]
	for rm := head; rm != nil; rm = rm.sameID {
		if rm.prefill == p {
			*slot = rm
			return rm, false
		}
	}
	rm := &Room[T]{ID: o.Room, prefill: p, sameID: head, First: o.Time.UnixNano()}
	g.rooms[o.Room] = rm
	*slot = rm
	g.live++
	return rm, true
}

// ackRoom returns the prefill endpoint an ABORT_ACK came from.
func (g *Grouper[T]) ackRoom(o *Observation) int32 {
	var cands []*Room[T]
	for rm := g.rooms[o.Room]; rm != nil; rm = rm.sameID {
		if slices.Contains(rm.ranks[:rm.nranks], g.endpoint(o.Rank)) || g.samePort(rm, o.Rank) >= 0 {
			cands = append(cands, rm)
		}
	}
	if len(cands) == 1 {
		g.ackPrefill[o.Src] = cands[0].prefill
		return cands[0].prefill
	}
	if p, ok := g.ackPrefill[o.Src]; ok {
		return p
	}
	var same []*Room[T]
	for _, rm := range cands {
		if int(rm.prefill) < len(g.endpoints) && g.endpoints[rm.prefill].Addr() == o.Src.Addr() {
			same = append(same, rm)
		}
	}
	switch {
	case len(same) == 1:
		g.ackPrefill[o.Src] = same[0].prefill
		return same[0].prefill
	case len(cands) > 0:
		return cands[0].prefill
	}
	return 0
}

// prefill numbers a prefill endpoint.
func (g *Grouper[T]) prefill(ep netip.AddrPort) int32 {
	if len(g.endpoints) > 0 && ep == g.endpoints[g.lastPrefill] {
		return g.lastPrefill
	}
	if id, ok := g.prefills[ep]; ok {
		g.lastPrefill = id
		return id
	}
	id := int32(len(g.endpoints))
	g.prefills[ep] = id
	g.endpoints = append(g.endpoints, ep)
	return id
}

// endpoint numbers a decode endpoint.
func (g *Grouper[T]) endpoint(ep netip.AddrPort) uint16 {
	// Consecutive messages come from a few ranks: look at the last ones.
	for _, id := range g.lastEps {
		if int(id) < len(g.epList) && g.epList[id] == ep {
			return id
		}
	}
	id, ok := g.eps[ep]
	if !ok {
		id = uint16(len(g.epList))
		if len(g.epList) == 1<<16-1 {
			id = 0 // (more endpoints than any capture has: they share one)
		} else {
			g.eps[ep] = id
			g.epList = append(g.epList, ep)
		}
	}
	copy(g.lastEps[1:], g.lastEps[:])
	g.lastEps[0] = id
	return id
}

// samePort returns the index of the only rank of rm whose endpoint has
// the port of endpoint ep, or -1.
func (g *Grouper[T]) samePort(rm *Room[T], ep netip.AddrPort) int {
	found := -1
	for i, id := range rm.ranks[:rm.nranks] {
		if g.epList[id].Port() == ep.Port() {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

func (rm *Room[T]) unlink() {
	rm.prev.next, rm.next.prev = rm.next, rm.prev
	rm.prev, rm.next = nil, nil
}

func (g *Grouper[T]) touch(rm *Room[T]) {
	if rm.next != nil {
		rm.unlink()
	}
	tail := g.lru.prev
	rm.prev, rm.next = tail, &g.lru
	tail.next, g.lru.prev = rm, rm
}

// sweep hands over and forgets the rooms idle for longer than Idle.
func (g *Grouper[T]) sweep() {
	if g.opt.Idle <= 0 {
		return
	}
	for rm := g.lru.next; rm != &g.lru && g.now-rm.Last > int64(g.opt.Idle); rm = g.lru.next {
		g.forget(rm)
		if g.onIdle != nil {
			g.onIdle(rm)
		}
	}
}

// forget drops rm from the live rooms.
func (g *Grouper[T]) forget(rm *Room[T]) {
	rm.unlink()
	g.live--
	if slot := g.slot(rm.ID); *slot == rm {
		*slot = nil
	}
	head := g.rooms[rm.ID]
	if head == rm {
		head = rm.sameID
	} else {
		for p := head; p != nil; p = p.sameID {
			if p.sameID == rm {
				p.sameID = rm.sameID
				break
			}
		}
	}
	if head == nil {
		delete(g.rooms, rm.ID)
	} else {
		g.rooms[rm.ID] = head
	}
}
