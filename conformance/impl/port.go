package impl

import (
	"fmt"
	"maps"
	"slices"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/gen/specrt"
)

// Port runs a variant's KVManager with a decode emulator in front of it.
// It applies spec actions (model.Action) as steps of the implementation's
// threads or, for environment actions, as decode putting messages on the
// PULL sockets; Observe maps its dicts and queues onto the spec's
// variables (the refinement mapping).
type Port struct {
	V *Variant
	M *kvManager

	cfg  *model.Config
	reqs []request // request index -> (room, incarnation)

	// decode emulator
	tiSent        map[int]uint64 // request -> ranks that sent TransferInfo
	aborted       map[int]bool
	pagesReleased map[int]uint64
}

// NewPort returns a port of v; Reset must be called before use.
func NewPort(v *Variant) *Port { return &Port{V: v} }

// Reset starts over with the rooms, decode ranks and requests of c. Only
// deployment facts are read from c (set sizes, required_dst_info_num,
// chunks per request): the port's behaviour is its variant's.
func (p *Port) Reset(c *model.Config) error {
	p.cfg = c
	nr := c.DecodeRanks.Size()
	p.M = &kvManager{
		v:                  p.V,
		RequestStatus:      map[int]status{},
		TransferInfos:      map[int]map[int]bool{},
		Tombstones:         map[int]bool{},
		Outstanding:        map[int]int{},
		AckTargets:         map[int][]int{},
		BootstrapAlive:     true,
		Pull:               make([][]message, nr),
		AckPush:            make([][]message, nr),
		TransferQueue:      nil,
		Posted:             map[int]bool{},
		Senders:            map[int]*sender{},
		requiredDstInfoNum: c.RequiredDstInfoNum,
		numChunks:          c.NumChunks,
	}
	p.reqs = make([]request, c.Requests.Size())
	for q := range p.reqs {
		p.reqs[q] = request{Room: c.Requests.Comp(q, 0), Incarnation: c.Requests.Comp(q, 1)}
	}
	p.tiSent = map[int]uint64{}
	p.aborted = map[int]bool{}
	p.pagesReleased = map[int]uint64{}
	return nil
}

// Close does nothing: a port holds no resources.
func (p *Port) Close() error { return nil }

// Clone returns an independent copy of the port's current state.
func (p *Port) Clone() *Port {
	m := *p.M
	m.RequestStatus = maps.Clone(p.M.RequestStatus)
	m.TransferInfos = make(map[int]map[int]bool, len(p.M.TransferInfos))
	for r, infos := range p.M.TransferInfos {
		m.TransferInfos[r] = maps.Clone(infos)
	}
	m.Tombstones = maps.Clone(p.M.Tombstones)
	m.Outstanding = maps.Clone(p.M.Outstanding)
	m.AckTargets = make(map[int][]int, len(p.M.AckTargets))
	for r, ts := range p.M.AckTargets {
		m.AckTargets[r] = slices.Clone(ts)
	}
	m.Pull = cloneQueues(p.M.Pull)
	m.AckPush = cloneQueues(p.M.AckPush)
	m.TransferQueue = slices.Clone(p.M.TransferQueue)
	m.Posted = maps.Clone(p.M.Posted)
	m.Senders = make(map[int]*sender, len(p.M.Senders))
	for q, s := range p.M.Senders {
		c := *s
		m.Senders[q] = &c
	}
	return &Port{V: p.V, M: &m, cfg: p.cfg, reqs: p.reqs,
		tiSent: maps.Clone(p.tiSent), aborted: maps.Clone(p.aborted), pagesReleased: maps.Clone(p.pagesReleased)}
}

func cloneQueues(qs [][]message) [][]message {
	out := make([][]message, len(qs))
	for i, q := range qs {
		out[i] = append([]message(nil), q...)
	}
	return out
}

// started: decode starts incarnation i+1 of a room only after it aborted
// incarnation i (a retry).
func (p *Port) started(q int) bool {
	r := p.reqs[q]
	if r.Incarnation <= 1 {
		return true
	}
	for o, ro := range p.reqs {
		if ro.Room == r.Room && ro.Incarnation == r.Incarnation-1 {
			return p.aborted[o]
		}
	}
	return false
}

// Apply performs one step. It returns an error wrapping ErrNotEnabled when
// the implementation cannot take the step.
func (p *Port) Apply(a model.Action) error {
	if a.ID < 0 || int(a.ID) >= len(model.Actions) {
		return fmt.Errorf("impl: unknown action %d", a.ID)
	}
	for i, t := range model.Actions[a.ID].ParamTypes {
		n := 0
		switch t {
		case "Requests":
			n = len(p.reqs)
		case "DecodeRanks":
			n = len(p.M.Pull)
		case "Rooms":
			n = p.cfg.Rooms.Size()
		}
		if a.Params[i] < 0 || a.Params[i] >= n {
			return fmt.Errorf("impl: %s: parameter %d = %d out of range: %w", model.Actions[a.ID].Name, i+1, a.Params[i], errNotEnabled)
		}
	}
	m := p.M
	x, y := a.Params[0], a.Params[1]
	switch a.ID {
	case model.ActSchedulerCreateSender:
		if !p.started(x) {
			return errNotEnabled
		}
		return m.CreateSender(x, p.reqs[x])
	case model.ActSchedulerPollBootstrap:
		return m.PollBootstrap(x)
	case model.ActSchedulerSend:
		return m.Send(x)
	case model.ActSchedulerPollInFlight:
		return m.PollInflight(x)
	case model.ActBootstrapRecvTransferInfo:
		return m.Recv(x, "TransferInfo")
	case model.ActBootstrapRecvAbort:
		return m.Recv(x, "ABORT")
	case model.ActWorkerPost:
		return m.WorkerPost(x)
	case model.ActWorkerComplete:
		return m.WorkerComplete(x)
	case model.ActBootstrapTimeout:
		return m.BootstrapTimeout(x)

	// decode: the environment
	case model.ActDecodeSendTransferInfo:
		d, q := x, y
		if !p.started(q) || p.aborted[q] || p.tiSent[q]&specrt.Bit(d) != 0 {
			return errNotEnabled
		}
		p.tiSent[q] |= specrt.Bit(d)
		m.Pull[d] = append(m.Pull[d], message{Kind: "TransferInfo", Room: p.reqs[q].Room, Rank: d})
		return nil
	case model.ActDecodeAbort:
		q := x
		if !p.started(q) || p.aborted[q] {
			return errNotEnabled
		}
		p.aborted[q] = true
		for d := range m.Pull {
			m.Pull[d] = append(m.Pull[d], message{Kind: "ABORT", Room: p.reqs[q].Room, Rank: d})
		}
		if !p.V.DecodeWaitsForAck {
			p.pagesReleased[q] = p.cfg.DecodeRanks.All()
		}
		return nil
	case model.ActDecodeRecvAbortAck:
		d := x
		if len(m.AckPush[d]) == 0 {
			return errNotEnabled
		}
		ack := m.AckPush[d][0]
		m.AckPush[d] = m.AckPush[d][1:]
		for q, r := range p.reqs {
			if r.Room == ack.Room && p.aborted[q] {
				p.pagesReleased[q] |= specrt.Bit(d)
			}
		}
		return nil
	}
	return fmt.Errorf("impl: unknown action %d", a.ID)
}

var statusStr = [...]model.Str{model.StrFailed, model.StrBootstrapping, model.StrWaitingForInput, model.StrTransferring, model.StrSuccess}

var positionStr = map[string]model.Str{
	bootstrapQueue: model.StrBootstrapQueue,
	waitingQueue:   model.StrWaitingQueue,
	inflightQueue:  model.StrInflightQueue,
	released:       model.StrReleased,
}

var kindStr = map[string]model.Str{
	"TransferInfo": model.StrTransferInfo,
	"ABORT":        model.StrABORT,
	"ABORT_ACK":    model.StrABORT_ACK,
}

// Observe is the refinement mapping: the port's dicts, queues and sockets,
// and the decode emulator's bookkeeping, as a state of Room.tla.
func (p *Port) Observe() (model.State, error) {
	c, m := p.cfg, p.M
	nRooms, nReq, nRanks := c.Rooms.Size(), c.Requests.Size(), c.DecodeRanks.Size()
	s := model.State{
		RequestStatus:  make([]model.Str, nRooms),
		TransferInfos:  make([]uint64, nRooms),
		BootstrapAlive: m.BootstrapAlive,
		PrefillCrashed: m.Crashed,
		Outstanding:    make([]int, nRooms),
		AckTarget:      make([]uint64, nRooms),
		Sender:         make([]model.Str, nReq),
		Posted:         make([]bool, nReq),
		Chan:           make([][]model.Msg, nRanks),
		AckChan:        make([][]model.Msg, nRanks),
		TiSent:         make([]uint64, nReq),
		Aborted:        make([]bool, nReq),
		PagesReleased:  make([]uint64, nReq),
	}
	for r := range nRooms {
		s.RequestStatus[r] = model.StrAbsent
		if st, ok := m.RequestStatus[r]; ok {
			s.RequestStatus[r] = statusStr[st]
		}
		for d := range m.TransferInfos[r] {
			s.TransferInfos[r] |= specrt.Bit(d)
		}
		if m.Tombstones[r] {
			s.Tombstones |= specrt.Bit(r)
		}
		s.Outstanding[r] = m.Outstanding[r]
		for _, d := range m.AckTargets[r] {
			s.AckTarget[r] |= specrt.Bit(d)
		}
	}
	// The worker queue, one batch per run of a request's chunks.
	for _, q := range m.TransferQueue {
		if n := len(s.Wqueue); n > 0 && int(s.Wqueue[n-1].Req) == q {
			s.Wqueue[n-1].Left++
			continue
		}
		s.Wqueue = append(s.Wqueue, model.Batch{Req: model.Requests(q), Left: 1})
	}
	for q := range nReq {
		s.Sender[q] = model.StrNoSender
		if snd, ok := m.Senders[q]; ok {
			s.Sender[q] = positionStr[snd.Position]
		}
		s.Posted[q] = m.Posted[q]
		s.TiSent[q] = p.tiSent[q]
		s.Aborted[q] = p.aborted[q]
		s.PagesReleased[q] = p.pagesReleased[q]
	}
	conv := func(qs [][]message) [][]model.Msg {
		out := make([][]model.Msg, len(qs))
		for d, q := range qs {
			if len(q) == 0 {
				continue
			}
			out[d] = make([]model.Msg, len(q))
			for i, msg := range q {
				out[d][i] = model.Msg{Rank: model.DecodeRanks(msg.Rank), Room: model.Rooms(msg.Room), Type: kindStr[msg.Kind]}
			}
		}
		return out
	}
	s.Chan = conv(m.Pull)
	s.AckChan = conv(m.AckPush)
	return s, nil
}
