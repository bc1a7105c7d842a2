//go:build !linux

package source

import (
	"errors"

	"github.com/roomspec/roomspec/traces/capture"
)

// ErrNoInterface: live interfaces are read through Linux's AF_PACKET
// sockets only.
var ErrNoInterface = errors.New("source: capturing from an interface needs Linux (AF_PACKET); pipe tcpdump -w - into standard input instead")

// PortRange is an inclusive range of TCP ports.
type PortRange struct{ Lo, Hi uint16 }

// Interface is not available off Linux.
type Interface struct{}

// OpenInterface fails off Linux.
func OpenInterface(name string, ports []PortRange) (*Interface, error) { return nil, ErrNoInterface }

// Next fails.
func (*Interface) Next() (capture.Record, error) { return capture.Record{}, ErrNoInterface }

// Close does nothing.
func (*Interface) Close() error { return nil }
