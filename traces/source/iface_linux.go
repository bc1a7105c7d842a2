//go:build linux

package source

import (
	"fmt"
	"os"
	"strings"

	"github.com/google/gopacket/pcapgo"
	"golang.org/x/net/bpf"

	"github.com/roomspec/roomspec/traces/capture"
)

// Interface captures the TCP packets of a network interface through a
// Linux AF_PACKET socket (gopacket's pcapgo.EthernetHandle: pure Go, no
// libpcap), as "tcpdump -i IFACE tcp portrange LO-HI" would: a classic BPF
// program in the kernel passes TCP over IPv4 and IPv6 only, of the given
// ports if any, and on a loopback interface
// drops each packet's outgoing copy (a packet socket sees loopback traffic
// twice, once leaving and once arriving; libpcap drops the first copy
// too). Ethernet and loopback interfaces only (their frames have an
// Ethernet header); it needs CAP_NET_RAW.
//
// Close does not interrupt a Next that is waiting for a packet (the
// handle's read is a blocking system call); the process exits around it.
type Interface struct {
	h      *pcapgo.EthernetHandle
	frames int
}

// OpenInterface opens a capture of interface name, of the TCP packets
// to or from ports (all TCP packets when none are given).
func OpenInterface(name string, ports []PortRange) (*Interface, error) {
	kind, err := os.ReadFile("/sys/class/net/" + name + "/type")
	if err != nil {
		return nil, fmt.Errorf("source: interface %s: %w", name, err)
	}
	loopback := false
	switch t := strings.TrimSpace(string(kind)); t {
	case "1": // ARPHRD_ETHER
	case "772": // ARPHRD_LOOPBACK
		loopback = true
	default:
		return nil, fmt.Errorf("source: interface %s has ARPHRD type %s: only Ethernet (1) and loopback (772) interfaces frame packets with an Ethernet header", name, t)
	}
	h, err := pcapgo.NewEthernetHandle(name)
	if err != nil {
		return nil, fmt.Errorf("source: interface %s: %w", name, err)
	}
	// The handle's buffer is the MTU, which leaves no room for the
	// Ethernet header and none for the super-packets GRO hands up.
	if err := h.SetCaptureLength(256 << 10); err != nil {
		h.Close()
		return nil, err
	}
	prog, err := bpf.Assemble(tcpFilter(loopback, ports))
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("source: BPF: %w", err)
	}
	if err := h.SetBPF(prog); err != nil {
		h.Close()
		return nil, fmt.Errorf("source: interface %s: attaching the BPF filter: %w", name, err)
	}
	return &Interface{h: h}, nil
}

// PortRange is an inclusive range of TCP ports.
type PortRange struct{ Lo, Hi uint16 }

// tcpFilter passes TCP over IPv4 and IPv6 in Ethernet frames (the kernel
// has removed any VLAN tag) whose source or destination port is in one of
// ports (any port when there are none) and, on loopback, drops outgoing
// copies. IPv4 fragments after the first, and IPv6 packets with extension
// headers before TCP, are dropped when ports are given.
func tcpFilter(loopback bool, ports []PortRange) []bpf.Instruction {
	var a asm
	if loopback {
		const packetOutgoing = 4
		a.add(bpf.LoadExtension{Num: bpf.ExtType})
		a.jump(bpf.JumpEqual, packetOutgoing, "drop", "")
	}
	a.add(bpf.LoadAbsolute{Off: 12, Size: 2}) // EtherType
	a.jump(bpf.JumpEqual, 0x86dd, "ipv6", "")
	a.jump(bpf.JumpNotEqual, 0x0800, "drop", "")
	a.add(bpf.LoadAbsolute{Off: 14 + 9, Size: 1}) // IPv4 protocol
	a.jump(bpf.JumpNotEqual, 6, "drop", "")
	if len(ports) > 0 {
		a.add(bpf.LoadAbsolute{Off: 14 + 6, Size: 2}) // flags and fragment offset
		a.jump(bpf.JumpBitsSet, 0x1fff, "drop", "")
		a.add(bpf.LoadMemShift{Off: 14}) // X = IPv4 header length
		for _, off := range []uint32{14, 16} {
			a.add(bpf.LoadIndirect{Off: off, Size: 2})
			a.ranges(ports)
		}
		a.jump(bpf.JumpEqual, 0, "drop", "drop")
	} else {
		a.jump(bpf.JumpEqual, 0, "accept", "accept")
	}
	a.label("ipv6")
	a.add(bpf.LoadAbsolute{Off: 14 + 6, Size: 1}) // IPv6 next header
	a.jump(bpf.JumpNotEqual, 6, "drop", "")
	for _, off := range []uint32{14 + 40, 14 + 42} {
		if len(ports) == 0 {
			break
		}
		a.add(bpf.LoadAbsolute{Off: off, Size: 2})
		a.ranges(ports)
	}
	if len(ports) > 0 {
		a.jump(bpf.JumpEqual, 0, "drop", "drop")
	}
	a.label("accept")
	a.add(bpf.RetConstant{Val: 256 << 10})
	a.label("drop")
	a.add(bpf.RetConstant{Val: 0})
	return a.resolve()
}

// asm assembles a classic BPF program with jumps to labels (forward only,
// as BPF allows).
type asm struct {
	prog   []bpf.Instruction
	jumps  map[int][2]string
	labels map[string]int
}

func (a *asm) add(i bpf.Instruction) { a.prog = append(a.prog, i) }

// jump adds a conditional jump to label t when the condition holds, to f
// when not ("" is the next instruction).
func (a *asm) jump(c bpf.JumpTest, val uint32, t, f string) {
	if a.jumps == nil {
		a.jumps = map[int][2]string{}
	}
	a.jumps[len(a.prog)] = [2]string{t, f}
	a.add(bpf.JumpIf{Cond: c, Val: val})
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// ranges jumps to accept when A is in one of ports.
func (a *asm) ranges(ports []PortRange) {
	for _, r := range ports {
		// Past this range's checks when A < Lo; accept when A <= Hi.
		a.add(bpf.JumpIf{Cond: bpf.JumpLessThan, Val: uint32(r.Lo), SkipTrue: 1})
		a.jump(bpf.JumpLessOrEqual, uint32(r.Hi), "accept", "")
	}
}

func (a *asm) resolve() []bpf.Instruction {
	skip := func(at int, label string) uint8 {
		if label == "" {
			return 0
		}
		return uint8(a.labels[label] - at - 1)
	}
	for at, to := range a.jumps {
		j := a.prog[at].(bpf.JumpIf)
		j.SkipTrue, j.SkipFalse = skip(at, to[0]), skip(at, to[1])
		a.prog[at] = j
	}
	return a.prog
}

// Next returns the next packet, waiting for it.
func (i *Interface) Next() (capture.Record, error) {
	data, ci, err := i.h.ZeroCopyReadPacketData()
	if err != nil {
		return capture.Record{}, fmt.Errorf("source: %w", err)
	}
	i.frames++
	return capture.Record{Frame: i.frames, Time: ci.Timestamp.UTC(), Link: capture.LinkEthernet, Data: data, Length: ci.Length}, nil
}

// Dropped returns the packets the kernel dropped since the last call.
func (i *Interface) Dropped() (uint64, error) {
	st, err := i.h.Stats()
	if err != nil {
		return 0, err
	}
	return uint64(st.Drops), nil
}

// Close closes the socket.
func (i *Interface) Close() error {
	i.h.Close()
	return nil
}
