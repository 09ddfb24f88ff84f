package nftdump

import (
	"cmp"
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
)

// Receive buffers a dump reads with.
const (
	// NftReceiveBuffer is nft's receive buffer (nftables'
	// NFT_NLMSG_MAXSIZE, 65,535 + a page, less one): the kernel caps the
	// messages it fills at 32 KiB.
	NftReceiveBuffer = 69631
	// SmallReceiveBuffer makes about 8 times the messages, so 8 times the
	// walk.
	SmallReceiveBuffer = 4096
)

// Dump is one chain dump: its time, the messages it came in, the chains
// it carried, each message's chains, and the list steps the kernel walked
// to resume it (Walk: for each message, the chains sent before it).
type Dump struct {
	Took                   time.Duration
	Messages, Chains, Walk int
	ByMessage              []int
}

// PerMessage is the chains a full message held: the mean of every message
// that held chains but the first (which the kernel fills before it knows
// the reader's buffer, about 4 KiB) and the last (which holds what is
// left).
func (r Dump) PerMessage() float64 {
	full := slices.DeleteFunc(slices.Clone(r.ByMessage), func(n int) bool { return n == 0 })
	if len(full) < 3 {
		return float64(r.Chains)
	}
	full = full[1 : len(full)-1]
	sum := 0
	for _, n := range full {
		sum += n
	}
	return float64(sum) / float64(len(full))
}

// DumpChains reads every chain of family ip in the calling thread's
// namespace with a receive buffer of buf bytes, on a fresh socket.
func DumpChains(buf int) (Dump, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, netlinkNetfilter)
	if err != nil {
		return Dump{}, fmt.Errorf("netfilter netlink socket: %w", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return Dump{}, fmt.Errorf("bind netfilter netlink socket: %w", err)
	}
	start := time.Now()
	if err := syscall.Sendto(fd, chainDumpRequest(), 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return Dump{}, fmt.Errorf("request the chain dump: %w", err)
	}
	b := make([]byte, buf)
	var r Dump
	for {
		n, _, err := syscall.Recvfrom(fd, b, 0)
		if err != nil {
			return Dump{}, fmt.Errorf("read the chain dump (message %d): %w", r.Messages+1, err)
		}
		r.Messages++
		r.Walk += r.Chains
		before := r.Chains
		done, err := countChains(b[:n], &r)
		r.ByMessage = append(r.ByMessage, r.Chains-before)
		if err != nil || done {
			r.Took = time.Since(start)
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
func countChains(b []byte, r *Dump) (bool, error) {
	for off := 0; off+16 <= len(b); {
		length := int(binary.LittleEndian.Uint32(b[off:]))
		switch binary.LittleEndian.Uint16(b[off+4:]) {
		case syscall.NLMSG_DONE:
			return true, nil
		case syscall.NLMSG_ERROR:
			return true, fmt.Errorf("chain dump: netlink error after %d chains", r.Chains)
		case nfnlSubsysNftables<<8 | nftMsgNewChain:
			r.Chains++
		}
		if length < 16 {
			return true, fmt.Errorf("chain dump: a message of %d bytes after %d chains", length, r.Chains)
		}
		off += (length + 3) &^ 3
	}
	return false, nil
}

// Round is one timing round: three dumps with nft's receive buffer (Nft,
// the one of median time) and one with a 4 KiB buffer (Small), whose
// extra messages make the kernel walk more.
type Round struct {
	Nft, Small Dump
}

// NsPerStep is the round's price of one walk step: the 4 KiB dump's time
// less the median nft-buffer dump's, over the steps the kernel walked
// more.
func (r Round) NsPerStep() float64 {
	return float64((r.Small.Took - r.Nft.Took).Nanoseconds()) / float64(r.Small.Walk-r.Nft.Walk)
}

// TimeRound times one round in the calling thread's namespace.
func TimeRound() (Round, error) {
	var dumps []Dump
	for range 3 {
		d, err := DumpChains(NftReceiveBuffer)
		if err != nil {
			return Round{}, err
		}
		dumps = append(dumps, d)
	}
	small, err := DumpChains(SmallReceiveBuffer)
	if err != nil {
		return Round{}, err
	}
	slices.SortFunc(dumps, func(a, b Dump) int { return cmp.Compare(a.Took, b.Took) })
	r := Round{Nft: dumps[1], Small: small}
	if small.Walk <= r.Nft.Walk {
		return r, fmt.Errorf("the 4 KiB dump walked %d steps, nft's %d: want more", small.Walk, r.Nft.Walk)
	}
	return r, nil
}
