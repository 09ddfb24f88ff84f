//go:build linux

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
// walk); the difference prices one step of the walk. The dumps and the
// round are lab/nftdump's (DumpChains, TimeRound), which svclab's runs
// time the same way.
package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"

	"github.com/svclab/svclab/lab/nftdump"
)

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
	r, err := nftdump.TimeRound()
	if err != nil {
		return "", err
	}
	big, small := r.Nft, r.Small
	c := big.Chains
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
		ms(big.Took), big.Messages, c, big.Walk, ms(small.Took), small.Messages, small.Walk, r.NsPerStep(),
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
