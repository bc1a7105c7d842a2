package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// errNotTCP marks a packet that is fine but carries no TCP (ARP, UDP, ...):
// it is counted, not diagnosed.
var errNotTCP = errors.New("not TCP")

// errFragment marks an IP fragment: an IPv4 one (ipPacket.raw holds its
// IP packet) is reassembled, an IPv6 one is diagnosed.
var errFragment = errors.New("IP fragment")

// linkTypeError is a packet of a link type parseLink does not decode.
type linkTypeError LinkType

func (e linkTypeError) Error() string {
	return fmt.Sprintf("unsupported link type %d", LinkType(e))
}

// ipPacket is the network-layer view of one packet: addresses as raw
// bytes (4 or 16) and the TCP segment bytes.
type ipPacket struct {
	src, dst []byte
	tcp      []byte
	// truncated is how many bytes of the IP payload the snap length cut off.
	truncated int
	// raw is the IPv4 packet of a fragment (errFragment).
	raw []byte
}

const (
	etherIPv4 = 0x0800
	etherIPv6 = 0x86dd
	etherVLAN = 0x8100
	etherQinQ = 0x88a8
)

// parseLink strips the link-layer header and parses IPv4/IPv6 down to the
// TCP segment. It never panics on short input.
func parseLink(link LinkType, data []byte) (ipPacket, error) {
	var proto uint16
	switch link {
	case LinkEthernet:
		if len(data) < 14 {
			return ipPacket{}, fmt.Errorf("ethernet header: %d of 14 bytes", len(data))
		}
		proto, data = binary.BigEndian.Uint16(data[12:]), data[14:]
		for proto == etherVLAN || proto == etherQinQ {
			if len(data) < 4 {
				return ipPacket{}, fmt.Errorf("802.1Q tag: %d of 4 bytes", len(data))
			}
			proto, data = binary.BigEndian.Uint16(data[2:]), data[4:]
		}
	case LinkSLL:
		if len(data) < 16 {
			return ipPacket{}, fmt.Errorf("Linux SLL header: %d of 16 bytes", len(data))
		}
		proto, data = binary.BigEndian.Uint16(data[14:]), data[16:]
	case LinkSLL2:
		if len(data) < 20 {
			return ipPacket{}, fmt.Errorf("Linux SLL2 header: %d of 20 bytes", len(data))
		}
		proto, data = binary.BigEndian.Uint16(data), data[20:]
	case LinkNull, LinkLoop:
		if len(data) < 4 {
			return ipPacket{}, fmt.Errorf("loopback header: %d of 4 bytes", len(data))
		}
		// The family is in the writer's byte order for NULL; accept both.
		af := binary.LittleEndian.Uint32(data)
		if link == LinkLoop || af > 0xffff {
			af = binary.BigEndian.Uint32(data)
		}
		data = data[4:]
		switch af {
		case 2:
			proto = etherIPv4
		case 10, 24, 28, 30: // AF_INET6 on Linux, NetBSD/OpenBSD, FreeBSD, macOS
			proto = etherIPv6
		default:
			return ipPacket{}, errNotTCP
		}
	case LinkRaw, linkRawBSD, linkRawBSD14:
		if len(data) == 0 {
			return ipPacket{}, errors.New("empty raw IP packet")
		}
		switch data[0] >> 4 {
		case 4:
			proto = etherIPv4
		case 6:
			proto = etherIPv6
		default:
			return ipPacket{}, fmt.Errorf("raw IP version %d", data[0]>>4)
		}
	case LinkIPv4:
		proto = etherIPv4
	case LinkIPv6:
		proto = etherIPv6
	default:
		return ipPacket{}, linkTypeError(link)
	}
	switch proto {
	case etherIPv4:
		return parseIPv4(data)
	case etherIPv6:
		return parseIPv6(data)
	}
	return ipPacket{}, errNotTCP
}

func parseIPv4(b []byte) (ipPacket, error) {
	if len(b) < 20 {
		return ipPacket{}, fmt.Errorf("IPv4 header: %d of 20 bytes", len(b))
	}
	if v := b[0] >> 4; v != 4 {
		return ipPacket{}, fmt.Errorf("IPv4 header: version %d", v)
	}
	ihl := int(b[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(b[2:]))
	if ihl < 20 || len(b) < ihl {
		return ipPacket{}, fmt.Errorf("IPv4 header length %d (have %d bytes)", ihl, len(b))
	}
	if b[9] != 6 {
		return ipPacket{}, errNotTCP
	}
	p := ipPacket{src: b[12:16], dst: b[16:20]}
	// Total length 0 happens with TCP segmentation offload; trust the capture then.
	if total == 0 {
		total = len(b)
	}
	if total < ihl {
		return ipPacket{}, fmt.Errorf("IPv4 total length %d below header length %d", total, ihl)
	}
	if total > len(b) {
		p.truncated = total - len(b)
		total = len(b)
	}
	if frag := binary.BigEndian.Uint16(b[6:]); frag&0x3fff != 0 {
		if p.truncated > 0 {
			return ipPacket{}, fmt.Errorf("%w: IPv4 fragment cut by the snap length (%d bytes missing): cannot be reassembled", errFragment, p.truncated)
		}
		return ipPacket{raw: b[:total]}, errFragment
	}
	p.tcp = b[ihl:total]
	return p, nil
}

func parseIPv6(b []byte) (ipPacket, error) {
	if len(b) < 40 {
		return ipPacket{}, fmt.Errorf("IPv6 header: %d of 40 bytes", len(b))
	}
	if v := b[0] >> 4; v != 6 {
		return ipPacket{}, fmt.Errorf("IPv6 header: version %d", v)
	}
	payload := int(binary.BigEndian.Uint16(b[4:]))
	p := ipPacket{src: b[8:24], dst: b[24:40]}
	next := b[6]
	rest := b[40:]
	if payload == 0 { // jumbogram or offload: trust the capture
		payload = len(rest)
	}
	if payload > len(rest) {
		p.truncated = payload - len(rest)
	} else {
		rest = rest[:payload]
	}
	for {
		switch next {
		case 6:
			p.tcp = rest
			return p, nil
		case 0, 43, 60: // hop-by-hop, routing, destination options
			if len(rest) < 8 {
				return ipPacket{}, fmt.Errorf("IPv6 extension header %d: %d bytes", next, len(rest))
			}
			l := 8 + int(rest[1])*8
			if len(rest) < l {
				return ipPacket{}, fmt.Errorf("IPv6 extension header %d: %d of %d bytes", next, len(rest), l)
			}
			next, rest = rest[0], rest[l:]
		case 44:
			return ipPacket{}, fmt.Errorf("%w: IPv6 fragment (not reassembled)", errFragment)
		default:
			return ipPacket{}, errNotTCP
		}
	}
}
