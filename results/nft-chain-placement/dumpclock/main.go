// Command dumpclock times, round after round, the kernel's nftables chain
// dump (a netlink dump of every chain of family ip, read as nft reads it),
// a userspace pointer chase over a list of as many nodes, and one
// kube-proxy-shaped incremental sync (nft -f INC). Run it as root inside the
// network namespace that holds the table:
//
//	ip netns exec NS dumpclock PERIOD_S ROUNDS INC.nft > rounds.tsv
//
// The kernel resumes a chain dump for every netlink message by walking the
// table's chain list from its start, so a dump of C chains in messages of
// k chains walks about C²/2k list steps. Each round dumps three times with
// nft's receive buffer (69,631 bytes: the kernel fills 32 KiB messages) and
// once with a 4 KiB buffer (about 8 times the messages, so 8 times the
// walk); the difference prices one step of the walk.
package main

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"time"
)

const (
	netlinkNetfilter   = 12
	nfnlSubsysNftables = 10
	nftMsgNewChain     = 3
	nftMsgGetChain     = 4
	// nftReceiveBuffer is nft's receive buffer (nftables' NFT_NLMSG_MAXSIZE,
	// 65,535 + a page, less one): the kernel caps the message it fills at
	// 32 KiB.
	nftReceiveBuffer = 69631
	smallBuffer      = 4096
)

// dumpResult is one chain dump: its time, the messages it came in, the
// chains it carried and the list steps the kernel walked to resume it
// (for each message, the chains sent before it).
type dumpResult struct {
	took                   time.Duration
	messages, chains, walk int
}

// dump reads every chain of family ip with a receive buffer of buf bytes,
// on a fresh socket (the kernel sizes a dump's messages by the largest
// receive a socket has made).
func dump(buf int) (dumpResult, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW, netlinkNetfilter)
	if err != nil {
		return dumpResult{}, fmt.Errorf("netfilter netlink socket: %w", err)
	}
	defer syscall.Close(fd)
	kernel := &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return dumpResult{}, fmt.Errorf("bind netlink socket: %w", err)
	}
	req := make([]byte, 20) // nlmsghdr and nfgenmsg
	binary.LittleEndian.PutUint32(req[0:], uint32(len(req)))
	binary.LittleEndian.PutUint16(req[4:], nfnlSubsysNftables<<8|nftMsgGetChain)
	binary.LittleEndian.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	binary.LittleEndian.PutUint32(req[8:], 1)
	req[16] = syscall.AF_INET
	start := time.Now()
	if err := syscall.Sendto(fd, req, 0, kernel); err != nil {
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
		done, err := countChains(b[:n], &r)
		if err != nil || done {
			r.took = time.Since(start)
			return r, err
		}
	}
}

// countChains adds the chains of one received message to r and says
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
			return true, fmt.Errorf("chain dump: message of %d bytes after %d chains", length, r.chains)
		}
		off += (length + 3) &^ 3
	}
	return false, nil
}

// node is a userspace list node of the size of the kernel's chain
// objects here (kmalloc-cg-128 holds struct nft_chain; 256 bytes keeps
// one node a line pair apart).
type node struct {
	next *node
	pad  [248]byte
}

// chase walks a list of n nodes, in their allocation order or shuffled,
// whole walks until about 2 million steps, and returns ns per step.
func chase(n int, shuffle bool) float64 {
	nodes := make([]*node, n)
	for i := range nodes {
		nodes[i] = new(node)
	}
	if shuffle {
		rand.Shuffle(n, func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	}
	for i := 0; i+1 < n; i++ {
		nodes[i].next = nodes[i+1]
	}
	steps := 0
	start := time.Now()
	for w := 0; w < max(1, 2_000_000/n); w++ {
		for p := nodes[0]; p != nil; p = p.next {
			steps++
		}
	}
	return float64(time.Since(start).Nanoseconds()) / float64(steps)
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// round is one line of the output.
func round(inc string) (string, error) {
	var times []float64
	var big dumpResult
	for range 3 {
		r, err := dump(nftReceiveBuffer)
		if err != nil {
			return "", err
		}
		times, big = append(times, ms(r.took)), r
	}
	small, err := dump(smallBuffer)
	if err != nil {
		return "", err
	}
	t := median(times)
	perStep := (ms(small.took) - t) * 1e6 / float64(small.walk-big.walk)
	c := big.chains
	random := median([]float64{chase(c, true), chase(c, true), chase(c, true)})
	ordered := median([]float64{chase(c, false), chase(c, false), chase(c, false)})
	cmd := exec.Command("nft", "-f", inc)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("nft -f %s: %w: %s", inc, err, out)
	}
	took := time.Since(start)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return fmt.Sprintf("%.1f\t%d\t%d\t%d\t%.1f\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.0f\t%.0f",
		t, big.messages, c, big.walk, ms(small.took), small.messages, small.walk, perStep,
		random, ordered, ms(took), ms(cpu)), nil
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: dumpclock PERIOD_S ROUNDS INC.nft   (as root, inside the table's network namespace)")
		os.Exit(2)
	}
	period, err1 := strconv.Atoi(os.Args[1])
	rounds, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil || period < 0 || rounds < 1 {
		fmt.Fprintln(os.Stderr, "dumpclock: PERIOD_S and ROUNDS are whole numbers (ROUNDS at least 1)")
		os.Exit(2)
	}
	fmt.Println("unix\tdump_ms\tmessages\tchains\twalk_steps\tdump_4k_ms\tmessages_4k\twalk_steps_4k\tns_per_walk_step\tchase_random_ns\tchase_ordered_ns\tinc_sync_ms\tinc_sync_cpu_ms")
	for range rounds {
		started := time.Now()
		line, err := round(os.Args[3])
		if err != nil {
			fmt.Fprintln(os.Stderr, "dumpclock:", err)
			os.Exit(1)
		}
		fmt.Printf("%d\t%s\n", started.Unix(), line)
		time.Sleep(time.Until(started.Add(time.Duration(period) * time.Second)))
	}
}
