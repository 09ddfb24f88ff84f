package host

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	cipvs "github.com/cloudflare/ipvs"
	"github.com/vishvananda/netlink"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/dataplane"
)

// probe checks one kernel feature inside the scratch namespace ns and
// returns a detail line; tool names the program it needs, if any.
type probe struct {
	tool string
	run  func(ns string) (string, error)
}

// probeRuns are how doctor checks each kernel feature of sim/dataplane's
// Features ("netns" is the scratch namespace itself); tool is the
// feature's Tool.
var probeRuns = map[dataplane.Feature]func(ns, tool string) (string, error){
	dataplane.FeatureVeth: func(ns, _ string) (string, error) { return probeVeth(ns) },
	dataplane.FeatureDummy: func(ns, _ string) (string, error) {
		return "dummy link created and deleted", withLink(ns, &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: "svlprobe2"}})
	},
	dataplane.FeatureIPTablesLegacy: restoreProbe,
	dataplane.FeatureIPTablesNFT:    restoreProbe,
	dataplane.FeatureNFTables:       func(ns, _ string) (string, error) { return probeNFTables(ns) },
	dataplane.FeatureIPVS:           func(ns, _ string) (string, error) { return probeIPVS(ns) },
	dataplane.FeatureConntrack:      func(ns, _ string) (string, error) { return probeConntrack(ns) },
	dataplane.FeatureIPSet: func(ns, tool string) (string, error) {
		_, err := netns.Output(ns, nil, tool, "create", "svl-probe", "hash:ip,port")
		return "hash:ip,port set created", err
	},
}

// probes are the kernel feature probes, by FeatureNames name, each with
// the tool sim/dataplane says it runs.
var probes = probesOf(probeRuns)

func probesOf(runs map[dataplane.Feature]func(ns, tool string) (string, error)) map[string]probe {
	out := map[string]probe{}
	for _, f := range dataplane.Features() {
		if run, ok := runs[f.Name]; ok {
			out[string(f.Name)] = probe{tool: f.Tool, run: func(ns string) (string, error) { return run(ns, f.Tool) }}
		}
	}
	return out
}

// iptablesProbe is what kube-proxy's iptables rules need: the nat table, a
// user chain, the statistic and comment matches, DNAT.
const iptablesProbe = "*nat\n:SVL-PROBE - [0:0]\n" +
	"-A SVL-PROBE -m comment --comment probe -m statistic --mode random --probability 0.5 -j RETURN\n" +
	"-A SVL-PROBE -p tcp -j DNAT --to-destination 10.244.0.2:80\nCOMMIT\n"

// nftablesProbe is what kube-proxy's nftables mode needs: an ip table, a
// nat chain, a verdict map and numgen.
const nftablesProbe = "table ip svl_probe {\n\tchain c {\n\t\ttype nat hook prerouting priority dstnat;\n" +
	"\t\tnumgen random mod 2 vmap { 0 : accept, 1 : accept }\n\t}\n}\n"

func probeVeth(ns string) (string, error) {
	return "veth pair created and deleted", withLink(ns, &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "svlprobe0"}, PeerName: "svlprobe1"})
}

// withLink creates link in ns and deletes it again.
func withLink(ns string, link netlink.Link) error {
	h, err := netns.Open(ns)
	if err != nil {
		return err
	}
	defer h.Close()
	nl, err := netlink.NewHandleAt(h)
	if err != nil {
		return err
	}
	defer nl.Close()
	if err := nl.LinkAdd(link); err != nil {
		return fmt.Errorf("add %s link %s: %w", link.Type(), link.Attrs().Name, err)
	}
	return nl.LinkDel(link)
}

func restoreProbe(ns, tool string) (string, error) {
	_, err := netns.Output(ns, []byte(iptablesProbe), tool, "--noflush")
	return "nat table, statistic, comment, DNAT", err
}

func probeNFTables(ns string) (string, error) {
	_, err := netns.Output(ns, []byte(nftablesProbe), "nft", "-f", "-")
	return "ip table, nat chain, numgen verdict map", err
}

// probeIPVS connects to the IPVS generic netlink family inside ns.
func probeIPVS(ns string) (string, error) {
	var info cipvs.Info
	err := netns.Do(ns, func() error {
		c, err := cipvs.New()
		if err != nil {
			return err
		}
		info, err = c.Info()
		if closer, ok := c.(interface{ Close() error }); ok {
			closer.Close()
		}
		return err
	})
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("no IPVS generic netlink family: %w", err)
	}
	return fmt.Sprintf("IPVS %d.%d.%d", info.Version[0], info.Version[1], info.Version[2]), err
}

// probeConntrack reads the namespace's conntrack table size.
func probeConntrack(ns string) (string, error) {
	var max []byte
	err := netns.Do(ns, func() (err error) {
		max, err = os.ReadFile("/proc/sys/net/netfilter/nf_conntrack_max")
		return err
	})
	return "nf_conntrack_max " + strings.TrimSpace(string(max)), err
}

// scratchNetns creates a uniquely named namespace for the probes.
func scratchNetns() (string, func() error, error) {
	var b [3]byte
	_, _ = rand.Read(b[:])
	name := "svl-doc" + hex.EncodeToString(b[:])
	if err := netns.Create(name); err != nil {
		return "", nil, err
	}
	return name, func() error { return netns.Delete(name) }, nil
}

// probeKernel runs every probe in one scratch namespace; toolOK says which
// tools are installed.
func probeKernel(scratch func() (string, func() error, error), toolOK func(string) bool) []Feature {
	ns, cleanup, err := scratch()
	checks := []Feature{{Name: "netns", Status: OK, Detail: "scratch namespace created and deleted"}}
	if err != nil {
		checks[0] = Feature{Name: "netns", Status: Missing, Detail: err.Error()}
	}
	for _, name := range FeatureNames[1:] {
		checks = append(checks, runProbe(name, probes[name], ns, err == nil, toolOK))
	}
	if err == nil {
		if err := cleanup(); err != nil {
			checks[0] = Feature{Name: "netns", Status: Missing, Detail: "delete scratch namespace: " + err.Error()}
		}
	}
	return checks
}

func runProbe(name string, p probe, ns string, haveNetns bool, toolOK func(string) bool) Feature {
	switch {
	case !haveNetns:
		return Feature{Name: name, Status: Unknown, Detail: "not probed: no scratch namespace"}
	case p.tool != "" && !toolOK(p.tool):
		return Feature{Name: name, Status: Unknown, Detail: "not probed: " + p.tool + " is not installed"}
	}
	detail, err := p.run(ns)
	if err != nil {
		return Feature{Name: name, Status: Missing, Detail: oneLine(err.Error())}
	}
	return Feature{Name: name, Status: OK, Detail: detail}
}

// oneLine squeezes a multi-line tool error onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
