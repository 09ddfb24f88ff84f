package verifytrace

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace/hosttrace"
)

// hostNFTExt is the extension of the nft ruleset that goes with an
// iptables-nft dump in the corpus (DUMP.hostnft next to DUMP.rules): the
// host's own tables, walked with the dump's as one.
const hostNFTExt = ".hostnft"

// verifyHost checks an iptables-nft dump and the host's nftables ruleset
// as one walk: the dump loaded with iptables-nft-restore, the ruleset with
// nft -f, both traced by the kernel (nft monitor trace sees iptables-nft's
// chains too, they are nftables chains) packet by packet. It also checks
// that the host's full `nft list ruleset` has exactly the dump's tables as
// iptables-nft's, as hosttrace recognises them.
func verifyHost(text, ruleset []byte, meta Meta, opts Options) (Result, error) {
	d, err := iptables.ParseString(string(text))
	if err != nil {
		return Result{}, &analyze.DumpError{Err: err}
	}
	prog, _, err := hosttrace.Compile(d, "ip", ruleset, hosttrace.Options{LocalAddrs: append(meta.Local, NodeAddr)})
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: compile: %w", err)
	}
	l, err := newLab(meta)
	if err != nil {
		return Result{}, err
	}
	defer l.close()
	if _, err := netns.Output(l.node, text, "iptables-nft-restore"); err != nil {
		return Result{}, fmt.Errorf("load the dump with iptables-nft-restore: %w", err)
	}
	if _, err := netns.Output(l.node, ruleset, "nft", "-f", "-"); err != nil {
		return Result{}, fmt.Errorf("load the host ruleset: %w", err)
	}
	if err := checkSkipped(l.node, d); err != nil {
		return Result{}, err
	}
	return traceLoaded(l, prog, meta, nftPool(string(text)+string(ruleset), meta), opts)
}

// checkSkipped lists the kernel's ruleset and checks that hosttrace takes
// exactly the dump's tables for iptables-nft's.
func checkSkipped(ns string, d *iptables.Dump) error {
	out, err := netns.Output(ns, nil, "nft", "list", "ruleset")
	if err != nil {
		return err
	}
	_, skipped := hosttrace.StripIPTablesNFT(out)
	var want []string
	for _, t := range d.Tables {
		want = append(want, "ip "+t.Name)
	}
	slices.Sort(skipped)
	slices.Sort(want)
	if !slices.Equal(skipped, want) {
		return fmt.Errorf("verify-trace: nft list ruleset has iptables-nft tables %s, hosttrace recognises %s",
			strings.Join(want, ", "), strings.Join(skipped, ", "))
	}
	return nil
}
