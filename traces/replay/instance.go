package replay

import "github.com/roomspec/roomspec/spec/model"

// Instance returns the spec instance replay checks a room with ranks
// decode ranks on, under the variant whose cfg text is cfgText: one room,
// DecodeRanks d1..dN, all of them required.
func Instance(cfgText []byte, ranks int) (*model.Config, error) {
	r, err := New(cfgText, Options{})
	if err != nil {
		return nil, err
	}
	a, err := r.automaton(ranks, false)
	if err != nil {
		return nil, err
	}
	return a.sr.c, nil
}
