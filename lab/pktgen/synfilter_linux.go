package pktgen

import (
	"fmt"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// synFilter is a classic BPF program over an Ethernet frame that accepts
// IPv4 TCP segments (first fragments only) with SYN set and ACK clear, the
// first packet of each new flow, and rejects everything else.
var synFilter = []bpf.Instruction{
	bpf.LoadAbsolute{Off: 12, Size: 2},                           // EtherType
	bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 0x0800, SkipTrue: 9}, // not IPv4
	bpf.LoadAbsolute{Off: 23, Size: 1},                           // IP protocol
	bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.IPPROTO_TCP, SkipTrue: 7},
	bpf.LoadAbsolute{Off: 20, Size: 2},                          // flags, fragment offset
	bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x1fff, SkipTrue: 5}, // a later fragment
	bpf.LoadMemShift{Off: ethLen},                               // X = IP header length
	bpf.LoadIndirect{Off: ethLen + 13, Size: 1},                 // TCP flags
	bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: tcpFlagSYN | tcpFlagACK},
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: tcpFlagSYN, SkipFalse: 1},
	bpf.RetConstant{Val: frameLen}, // accept: keep the headers
	bpf.RetConstant{Val: 0},        // reject
}

// TCP flag bits in the 14th byte of the TCP header.
const (
	tcpFlagSYN = 0x02
	tcpFlagACK = 0x10
)

// attachSynFilter assembles synFilter and attaches it to the socket fd.
func attachSynFilter(fd int) error {
	raw, err := bpf.Assemble(synFilter)
	if err != nil {
		return fmt.Errorf("assemble SYN filter: %w", err)
	}
	prog := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		prog[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &fprog); err != nil {
		return fmt.Errorf("attach SYN filter: %w", err)
	}
	return nil
}
