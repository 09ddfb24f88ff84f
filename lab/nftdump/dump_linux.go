package nftdump

import (
	"encoding/binary"
	"fmt"
	"slices"
	"syscall"
	"time"
)

// The netlink constants of an nftables chain dump (linux/netfilter/
// nfnetlink.h, nf_tables.h). Raw syscalls, not a netlink library: the
// kernel sizes a dump's messages by the largest receive buffer the socket
// has read with, so the reads must be exactly nft's or 4 KiB, which
// libraries that peek or grow their buffer do not keep.
const (
	netlinkNetfilter   = 12
	nfnlSubsysNftables = 10
	nftMsgNewChain     = 3
	nftMsgGetChain     = 4
	// nftReceiveBuffer is nft's receive buffer (nftables'
	// NFT_NLMSG_MAXSIZE, 65,535 + a page, less one): the kernel caps the
	// messages it fills at 32 KiB.
	nftReceiveBuffer = 69631
	// smallReceiveBuffer makes about 8 times the messages, so 8 times the
	// walk.
	smallReceiveBuffer = 4096
)

// dumpResult is one chain dump: its time, the messages it came in, the
// chains it carried, each message's chains, and the list steps the kernel
// walked to resume it (for each message, the chains sent before it).
type dumpResult struct {
	took                   time.Duration
	messages, chains, walk int
	byMessage              []int
}

// perMessage is the chains a full message held: the mean of every message
// that held chains but the first (which the kernel fills before it knows
// the reader's buffer, about 4 KiB) and the last (which holds what is
// left).
func (r dumpResult) perMessage() float64 {
	full := slices.DeleteFunc(slices.Clone(r.byMessage), func(n int) bool { return n == 0 })
	if len(full) < 3 {
		return float64(r.chains)
	}
	full = full[1 : len(full)-1]
	sum := 0
	for _, n := range full {
		sum += n
	}
	return float64(sum) / float64(len(full))
}

// dumpChains reads every chain of family ip in the calling thread's
// namespace with a receive buffer of buf bytes, on a fresh socket.
func dumpChains(buf int) (dumpResult, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, netlinkNetfilter)
	if err != nil {
		return dumpResult{}, fmt.Errorf("netfilter netlink socket: %w", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return dumpResult{}, fmt.Errorf("bind netfilter netlink socket: %w", err)
	}
	start := time.Now()
	if err := syscall.Sendto(fd, chainDumpRequest(), 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return dumpResult{}, fmt.Errorf("request the chain dump: %w", err)
	}
	b := make([]byte, buf)
	var r dumpResult
	for {
		n, _, err := syscall.Recvfrom(fd, b, 0)
		if err != nil {
			return dumpResult{}, fmt.Errorf("read the chain dump (message %d): %w", r.messages+1, err)
		}
		r.messages++
		r.walk += r.chains
		before := r.chains
		done, err := countChains(b[:n], &r)
		r.byMessage = append(r.byMessage, r.chains-before)
		if err != nil || done {
			r.took = time.Since(start)
			return r, err
		}
	}
}

// chainDumpRequest is a GETCHAIN dump request for family ip: a netlink
// header and nfgenmsg.
func chainDumpRequest() []byte {
	req := make([]byte, 20)
	binary.LittleEndian.PutUint32(req[0:], uint32(len(req)))
	binary.LittleEndian.PutUint16(req[4:], nfnlSubsysNftables<<8|nftMsgGetChain)
	binary.LittleEndian.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	binary.LittleEndian.PutUint32(req[8:], 1)
	req[16] = syscall.AF_INET
	return req
}

// countChains adds the chains of one received buffer to r and says
// whether the dump is done.
func countChains(b []byte, r *dumpResult) (bool, error) {
	for off := 0; off+16 <= len(b); {
		length := int(binary.LittleEndian.Uint32(b[off:]))
		switch binary.LittleEndian.Uint16(b[off+4:]) {
		case syscall.NLMSG_DONE:
			return true, nil
		case syscall.NLMSG_ERROR:
			return true, fmt.Errorf("chain dump: netlink error after %d chains", r.chains)
		case nfnlSubsysNftables<<8 | nftMsgNewChain:
			r.chains++
		}
		if length < 16 {
			return true, fmt.Errorf("chain dump: a message of %d bytes after %d chains", length, r.chains)
		}
		off += (length + 3) &^ 3
	}
	return false, nil
}
