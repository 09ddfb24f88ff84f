package host

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
)

// NodeRules reads the rules kube-proxy's mode keeps in the current
// network namespace, read-only, with the tools kube-proxy's mode uses:
// `iptables-save` (`ip6tables-save` for IPv6; backend "legacy" or "nft"
// picks `iptables-legacy-save` or `iptables-nft-save`, "" the system's
// choice), `nft list ruleset`, or `ipvsadm -Sn`, `ipset save` and
// iptables-save. It returns them parsed as svclab audit and trace read a
// dump.
func NodeRules(ctx context.Context, mode dataplane.Mode, fam model.Family, backend string) (*analyze.Dump, error) {
	save := string(dataplane.ModeIPTables)
	if fam == model.IPv6 {
		save = "ip6tables"
	}
	if backend != "" {
		save += "-" + backend
	}
	save += "-save"
	read, ok := ruleReaders[mode]
	if !ok {
		return nil, fmt.Errorf("read the node's rules: unknown mode %q", mode)
	}
	return read(ctx, save)
}

// ruleReaders read each kube-proxy mode's rules with its tools (save is
// the iptables-save of the family and backend asked for);
// TestEveryModeHasARuleReader fails on a mode sim/dataplane names without
// one.
var ruleReaders = map[dataplane.Mode]func(ctx context.Context, save string) (*analyze.Dump, error){
	dataplane.ModeIPTables: func(ctx context.Context, save string) (*analyze.Dump, error) {
		return readLoad(ctx, dataplane.ModeIPTables, save)
	},
	dataplane.ModeNFTables: func(ctx context.Context, _ string) (*analyze.Dump, error) {
		return readLoad(ctx, dataplane.ModeNFTables, "nft", "list", "ruleset")
	},
	dataplane.ModeIPVS: readIPVS,
}

// readIPVS reads IPVS mode's three parts.
func readIPVS(ctx context.Context, save string) (*analyze.Dump, error) {
	d, err := readLoad(ctx, dataplane.ModeIPVS, "ipvsadm", "-Sn")
	if err != nil {
		return nil, err
	}
	sets, err := run(ctx, "ipset", "save")
	if err != nil {
		return nil, err
	}
	if d.IPSets, err = ipvs.ParseIPSetSave(bytes.NewReader(sets)); err != nil {
		return nil, fmt.Errorf("ipset save: %w", err)
	}
	ipt, err := run(ctx, save)
	if err != nil {
		return nil, err
	}
	if d.IPT, err = iptables.Parse(bytes.NewReader(ipt)); err != nil {
		return nil, fmt.Errorf("%s: %w", save, err)
	}
	return d, nil
}

// readLoad runs a tool and loads its output as a dump of mode (empty
// output: a node without rules).
func readLoad(ctx context.Context, mode dataplane.Mode, name string, args ...string) (*analyze.Dump, error) {
	out, err := run(ctx, name, args...)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return &analyze.Dump{Kind: string(mode), IPT: &iptables.Dump{}, NFT: &nftables.Ruleset{}, IPVS: &ipvs.Table{}}, nil
	}
	d, err := analyze.Load(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

func run(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w: %s", name, args, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}
