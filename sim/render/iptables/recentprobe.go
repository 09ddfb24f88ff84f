package iptables

import (
	"bytes"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/kpname"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RecentProbeChain holds a recent probe's table-creating rules: never
// jumped to, it sorts before every chain kube-proxy writes a recent match
// in (KUBE-SEP-*, KUBE-SVC-*, KUBE-SERVICES), so iptables-legacy's
// restore, whose chains libiptc lays out sorted by name, checks its rules
// first, and it comes first in the payload, so iptables-nft's, which adds
// rules in payload order, does too.
const RecentProbeChain = "KUBE-RECENT-PROBE"

// RecentProbeList is the xt_recent table the probe's walked rules check:
// created after the RecentProbeChain's, so it is last in the kernel's list.
const RecentProbeList = "KUBE-SEP-RECENT-PROBE"

// MaxRecentProbeRules is the most walked recent rules a recent probe adds.
const MaxRecentProbeRules = 64

// RecentProbeRules is how many rules a sweep's recent probe
// (sweep.recentProbe) adds to check its last list: 4 walks of 8,000 lists
// add about 0.2 to 3 ms to a first packet (a step costs a few ns in the
// caches, tens beyond them), well above the walk probe's own 30 µs.
const RecentProbeRules = 4

// WalkProbeExtras are what a walk probe's variants add to it: AddrTypeRules
// addrtype rules (RenderAddrTypeProbe), RecentTables xt_recent lists
// ahead of RecentProbeRules rules checking one more (RenderRecentProbe).
type WalkProbeExtras struct {
	AddrTypeRules int
	RecentTables  int
}

// RenderWalkProbeWith is RenderWalkProbe's probe of m with extras added.
func RenderWalkProbeWith(m *model.Model, opts Options, keep []netip.Addr, extras WalkProbeExtras) ([]byte, render.Stats, error) {
	probe, stats, err := RenderWalkProbe(m, opts, keep)
	if err == nil && extras.AddrTypeRules > 0 {
		probe, stats, err = RenderAddrTypeProbe(m, opts, probe, extras.AddrTypeRules)
	}
	if err == nil && extras.RecentTables > 0 {
		probe, stats, err = RenderRecentProbe(probe, extras.RecentTables, RecentProbeRules)
	}
	return probe, stats, err
}

// RenderRecentProbe is a walk probe (RenderWalkProbe's probe) with tables
// xt_recent tables created ahead of one more, RecentProbeList, which rules
// recent rules at the top of the nat KUBE-SERVICES check as kube-proxy's
// ClientIP-affinity rules do ("-m recent --name ... --rcheck --seconds
// 10800 --reap"): the list holds no source, so they never match, and every
// first packet of the probe looks the list up rules times, each a walk of
// the kernel's list of tables by name past tables others
// (recent_table_lookup), which svclab plan calibrate times against the
// walk probe alone. The tables are named as kube-proxy names endpoint
// chains, so each name comparison costs what a cluster's does.
func RenderRecentProbe(probe []byte, tables, rules int) ([]byte, render.Stats, error) {
	if tables < 1 || rules < 1 || rules > MaxRecentProbeRules {
		return nil, render.Stats{}, fmt.Errorf("recent probe: %d tables and %d rules: want at least 1 of each, at most %d rules", tables, rules, MaxRecentProbeRules)
	}
	lines, err := payloadLines(probe)
	if err != nil {
		return nil, render.Stats{}, err
	}
	at := firstNatRule(lines)
	if at < 0 {
		return nil, render.Stats{}, fmt.Errorf("recent probe: the payload has no nat rule to put the probe's before")
	}
	var out bytes.Buffer
	for i, line := range lines {
		if i == at {
			writeRecentProbe(&out, tables, rules)
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	text := out.String()
	return out.Bytes(), render.Stats{Lines: strings.Count(text, "\n"), Bytes: out.Len(), Rules: strings.Count(text, "\n-A "),
		Chains: strings.Count(text, "\n:")}, nil
}

// firstNatRule is the index of the nat table's first rule line, -1 if it
// has none.
func firstNatRule(lines []string) int {
	current := ""
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "*"):
			current = line[1:]
		case current == "nat" && strings.HasPrefix(line, "-A "):
			return i
		}
	}
	return -1
}

// writeRecentProbe writes the probe chain's declaration, its tables'
// creating rules and the walked rules, in that order.
func writeRecentProbe(out *bytes.Buffer, tables, rules int) {
	fmt.Fprintf(out, ":%s - [0:0]\n", RecentProbeChain)
	for i := range tables {
		name := kpname.EndpointChain("recent-probe/table:p", "TCP", "10.0.0.1:"+strconv.Itoa(i))
		fmt.Fprintf(out, "-A %s -m recent --name %s --set\n", RecentProbeChain, name)
	}
	for range rules {
		fmt.Fprintf(out, "-A KUBE-SERVICES -m recent --name %s --rcheck --seconds 10800 --reap -j RETURN\n", RecentProbeList)
	}
}
