// Package capture reads pcap and pcapng files as a stream and reassembles
// their TCP connections into ordered byte streams, one per direction, with
// the provenance of every byte: the Wireshark frame number and timestamp of
// the packet it arrived in.
//
// It knows nothing of ZeroMQ: callers get per-direction events (start,
// data, gap, end) and decide what the bytes mean. Memory is bounded by the
// number of open connections and the configured reassembly buffers, never
// by the size of the capture.
package capture
