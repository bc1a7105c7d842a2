package subprocess

import (
	"fmt"

	"github.com/roomspec/roomspec/spec/model"
)

// execMsg is a channel message in an observed state.
type execMsg struct {
	Type string `json:"type"`
	Room int    `json:"room"`
	Rank int    `json:"rank"`
}

// execBatch is an entry of the worker queue: a request's chunks not yet
// taken.
type execBatch struct {
	Req  int `json:"req"`
	Left int `json:"left"`
}

// execState is the observed state of PROTOCOL.md: the spec's variables,
// with rooms, ranks and requests as indices into the reset's lists.
type execState struct {
	RequestStatus  []string    `json:"request_status"`
	TransferInfos  [][]int     `json:"transfer_infos"`
	Tombstones     []int       `json:"tombstones"`
	BootstrapAlive bool        `json:"bootstrap_alive"`
	PrefillCrashed bool        `json:"prefill_crashed"`
	Outstanding    []int       `json:"outstanding"`
	AckTarget      [][]int     `json:"ack_target"`
	Sender         []string    `json:"sender"`
	Wqueue         []execBatch `json:"wqueue"`
	Posted         []bool      `json:"posted"`
	Chan           [][]execMsg `json:"chan"`
	AckChan        [][]execMsg `json:"ack_chan"`
	TiSent         [][]int     `json:"ti_sent"`
	Aborted        []bool      `json:"aborted"`
	PagesReleased  [][]int     `json:"pages_released"`
}

func (es *execState) toModel(c *model.Config) (model.State, error) {
	nRooms, nReq, nRanks := c.Rooms.Size(), c.Requests.Size(), c.DecodeRanks.Size()
	if len(es.RequestStatus) != nRooms || len(es.TransferInfos) != nRooms || len(es.Sender) != nReq ||
		len(es.Outstanding) != nRooms || len(es.AckTarget) != nRooms || len(es.Posted) != nReq || len(es.Chan) != nRanks || len(es.AckChan) != nRanks ||
		len(es.TiSent) != nReq || len(es.Aborted) != nReq || len(es.PagesReleased) != nReq {
		return model.State{}, fmt.Errorf("exec: observe: state has the wrong sizes for %d rooms, %d requests, %d ranks", nRooms, nReq, nRanks)
	}
	str := func(s string) (model.Str, error) {
		v, ok := model.StrOf(s)
		if !ok {
			return 0, fmt.Errorf("exec: observe: unknown value %q", s)
		}
		return v, nil
	}
	set := func(xs []int, n int) (uint64, error) {
		var b uint64
		for _, x := range xs {
			if x < 0 || x >= n {
				return 0, fmt.Errorf("exec: observe: index %d out of range", x)
			}
			b |= model.Bit(x)
		}
		return b, nil
	}
	s := model.State{
		RequestStatus: make([]model.Str, nRooms), TransferInfos: make([]uint64, nRooms),
		BootstrapAlive: es.BootstrapAlive, PrefillCrashed: es.PrefillCrashed,
		Outstanding: es.Outstanding, AckTarget: make([]uint64, nRooms),
		Sender: make([]model.Str, nReq), Posted: es.Posted,
		Chan: make([][]model.Msg, nRanks), AckChan: make([][]model.Msg, nRanks),
		TiSent: make([]uint64, nReq), Aborted: es.Aborted, PagesReleased: make([]uint64, nReq),
	}
	var err error
	for r := range nRooms {
		if s.RequestStatus[r], err = str(es.RequestStatus[r]); err != nil {
			return s, err
		}
		if s.TransferInfos[r], err = set(es.TransferInfos[r], nRanks); err != nil {
			return s, err
		}
		if s.AckTarget[r], err = set(es.AckTarget[r], nRanks); err != nil {
			return s, err
		}
	}
	for _, b := range es.Wqueue {
		if b.Req < 0 || b.Req >= nReq || b.Left < 1 {
			return s, fmt.Errorf("exec: observe: worker queue entry %+v out of range", b)
		}
		s.Wqueue = append(s.Wqueue, model.Batch{Req: model.Requests(b.Req), Left: b.Left})
	}
	if s.Tombstones, err = set(es.Tombstones, nRooms); err != nil {
		return s, err
	}
	for q := range nReq {
		if s.Sender[q], err = str(es.Sender[q]); err != nil {
			return s, err
		}
		if s.TiSent[q], err = set(es.TiSent[q], nRanks); err != nil {
			return s, err
		}
		if s.PagesReleased[q], err = set(es.PagesReleased[q], nRanks); err != nil {
			return s, err
		}
	}
	msgs := func(in [][]execMsg) ([][]model.Msg, error) {
		out := make([][]model.Msg, len(in))
		for d, ms := range in {
			for _, m := range ms {
				t, err := str(m.Type)
				if err != nil {
					return nil, err
				}
				if m.Room < 0 || m.Room >= nRooms || m.Rank < 0 || m.Rank >= nRanks {
					return nil, fmt.Errorf("exec: observe: message %+v out of range", m)
				}
				out[d] = append(out[d], model.Msg{Type: t, Room: model.Rooms(m.Room), Rank: model.DecodeRanks(m.Rank)})
			}
		}
		return out, nil
	}
	if s.Chan, err = msgs(es.Chan); err != nil {
		return s, err
	}
	if s.AckChan, err = msgs(es.AckChan); err != nil {
		return s, err
	}
	return s, nil
}
