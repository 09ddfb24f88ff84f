package labfake

import (
	"bytes"
	"fmt"
	"net/netip"

	simipvs "github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	renderipvs "github.com/svclab/svclab/sim/render/ipvs"
)

// ipvsTable is the fake kernel's IPVS table: each virtual server's real
// servers ("IP:port"), as sim/render/ipvs renders kube-proxy's syncEndpoint
// choice (Local policies per virtual server, the cluster fallback) and
// sim/ipvs reads it back, the way `ipvsadm -R` would.
type ipvsTable map[netip.AddrPort]map[string]bool

// renderIPVSTable renders m (one family's model) as ipvsadm text, checks
// that it parses, and returns its virtual servers.
func renderIPVSTable(m *model.Model) (ipvsTable, render.Stats, error) {
	var text bytes.Buffer
	stats, err := renderipvs.RenderIPVSAdm(&text, m, renderipvs.DefaultOptions())
	if err != nil {
		return nil, stats, err
	}
	parsed, err := simipvs.ParseIPVSAdm(&text)
	if err != nil {
		return nil, stats, fmt.Errorf("fake ipvs: ipvsadm -R would refuse the table: %w", err)
	}
	table := ipvsTable{}
	for _, s := range parsed.Services {
		dests := map[string]bool{}
		for _, d := range s.Dests {
			dests[d.Addr.String()] = true
		}
		table[s.Addr] = dests
	}
	return table, stats, nil
}

// ipvsTableOf is the table of every family of m.
func ipvsTableOf(m *model.Model) ipvsTable {
	out := ipvsTable{}
	for _, f := range model.Families(m.Services) {
		mf := model.ForFamily(*m, f)
		if t, _, err := renderIPVSTable(&mf); err == nil { // validate refused the rest
			for vip, dests := range t {
				out[vip] = dests
			}
		}
	}
	return out
}

// realServers filters eps down to target's real servers.
func (t ipvsTable) realServers(target netip.AddrPort, eps []model.PortEndpoint) []model.PortEndpoint {
	var out []model.PortEndpoint
	for _, ep := range eps {
		if t[target][ep.Addr] {
			out = append(out, ep)
		}
	}
	return out
}
