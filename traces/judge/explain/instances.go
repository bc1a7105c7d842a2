package explain

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/gen/specrt"
)

// ErrConfig is wrapped by errors about the variant's configuration.
var ErrConfig = errors.New("explain: configuration")

// Instances are the spec instances the rooms of one variant are checked
// on: one room, the variant's constants, and the decode ranks of the
// room's TransferInfo, all of them required (DecodeRanks = {d1, ..., dn},
// RequiredDstInfoNum = n: the spec header's contract between the wire
// and the constants), with or without the event log. They share one mark
// table.
type Instances struct {
	base      *model.Config
	maxHidden int
	maxStates int
	marks     MarkTable
	byKey     map[instanceKey]*Instance
}

type instanceKey struct {
	ranks int
	log   bool
}

// NewInstances returns the instances of the variant base, which must
// model one room; maxHidden and maxStates bound each search.
func NewInstances(base *model.Config, maxHidden, maxStates int) (*Instances, error) {
	if base.Rooms.Size() != 1 {
		return nil, fmt.Errorf("%w: the variant models %d rooms; one room is checked at a time", ErrConfig, base.Rooms.Size())
	}
	return &Instances{base: base, maxHidden: maxHidden, maxStates: maxStates, byKey: map[instanceKey]*Instance{}}, nil
}

// Base is the variant's configuration.
func (is *Instances) Base() *model.Config { return is.base }

// Marks is the mark table the instances share.
func (is *Instances) Marks() *MarkTable { return &is.marks }

// Get returns the instance with n decode ranks, for rooms with (withLog)
// or without the event log.
func (is *Instances) Get(n int, withLog bool) (*Instance, error) {
	k := instanceKey{n, withLog}
	if a, ok := is.byKey[k]; ok {
		return a, nil
	}
	if n < 1 || n > 8 {
		return nil, fmt.Errorf("required_dst_info_num %d outside 1..8", n)
	}
	c := is.base
	if c.RequiredDstInfoNum != n || c.DecodeRanks.Size() != n {
		names := make([]string, n)
		for i := range names {
			names[i] = "d" + strconv.Itoa(i+1)
		}
		var err error
		c, err = is.base.With(map[string]*cfg.Value{"DecodeRanks": specrt.ModelSet(names...), "RequiredDstInfoNum": specrt.IntValue(n)})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	a := NewInstance(c, withLog, is.maxHidden, is.maxStates, &is.marks)
	is.byKey[k] = a
	return a, nil
}
