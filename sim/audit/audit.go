package audit

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

// Input is one node to audit.
type Input struct {
	// Objects are the cluster's Services, EndpointSlices and Nodes.
	Objects *objects.Objects
	// Node names the node audited ("": the objects' choice, see
	// objects.LocalNode); NodeIP, when valid, overrides the address the
	// Node object gives (kube-proxy's --bind-address).
	Node   string
	NodeIP netip.Addr
	// Cluster holds the cluster settings that are not in the objects
	// (cluster CIDR, service CIDR, masquerade bit); the zero value is
	// model.DefaultCluster. Its node fields are replaced by Node's.
	Cluster *model.Cluster
	// Mode and Config are the node's kube-proxy: its mode, release (""
	// Version: the newest) and flags.
	Mode dataplane.Mode
	render.Config
	// Family is the proxier audited (IPv4 or IPv6): iptables-save and
	// IPVS hold one family, an nftables ruleset both.
	Family model.Family
	// Dump is the node's rules (analyze.Load of iptables-save, nft list
	// ruleset, or ipvsadm -Sn with IPSets and the iptables-save in IPT).
	Dump *analyze.Dump
	// Expected renders what kube-proxy should have written (nil: Native).
	Expected Renderer
	// OtherVersions are tried when the node has findings: the report
	// names those whose rules the node holds exactly (the node runs
	// another kube-proxy than Version).
	OtherVersions []render.KubeProxyVersion
}

// ErrInput marks an Input the audit cannot use (a dump of another mode,
// an unknown node); the message says what to give instead.
var ErrInput = errors.New("audit input")

// Run audits the node: what kube-proxy should have written, what the
// node has, the differences per Service and their effect on traffic.
func Run(in Input) (*Report, error) {
	m, err := NodeModel(in)
	if err != nil {
		return nil, err
	}
	if err := checkDump(in.Mode, in.Dump); err != nil {
		return nil, err
	}
	renderer := in.Expected
	if renderer == nil {
		renderer = Native
	}
	want, err := renderer(m, in.Mode, in.Config)
	if err != nil {
		return nil, fmt.Errorf("render what kube-proxy %s %s writes: %w", in.Mode, in.Version.OrLatest(), err)
	}
	projected := model.ForFamily(*m, in.Family)
	idx := newOwners(&projected)
	findings := compare(in.Mode, in.Family, want, in.Dump, idx)
	rep := &Report{Node: m.Cluster.NodeName, Mode: string(in.Mode), Version: string(in.Version.OrLatest()), Family: in.Family.String()}
	effects, paths, err := routeEffects(&projected, want, in.Dump, in.Family, findings)
	if err != nil {
		return nil, err
	}
	rep.Paths = paths
	rep.build(findings, effects, projected.Services)
	if len(findings) > 0 {
		rep.MatchesVersions = matchingVersions(in, m, renderer, idx)
	}
	return rep, nil
}

// matchingVersions are those of in.OtherVersions whose rules for m the
// node holds exactly.
func matchingVersions(in Input, m *model.Model, renderer Renderer, idx *owners) []string {
	var out []string
	for _, v := range in.OtherVersions {
		if v.OrLatest() == in.Version.OrLatest() {
			continue
		}
		cfg := in.Config
		cfg.Version = v
		want, err := renderer(m, in.Mode, cfg)
		if err == nil && len(compare(in.Mode, in.Family, want, in.Dump, idx)) == 0 {
			out = append(out, string(v))
		}
	}
	return out
}

// NodeModel is the whole model (both families) as kube-proxy on in's
// node sees it, with m.Family the proxier audited: the objects' Services,
// in.Cluster's settings and the node's name, zone and addresses.
func NodeModel(in Input) (*model.Model, error) {
	if in.Objects == nil {
		return nil, fmt.Errorf("%w: no objects", ErrInput)
	}
	if in.Node != "" && !in.Objects.KnownNode(in.Node) {
		return nil, fmt.Errorf("%w: node %q: no Node of that name in %s and no endpoint on it (nodes: %v)", ErrInput, in.Node, in.Objects.Source, in.Objects.NodeNames())
	}
	c := model.DefaultCluster()
	if in.Cluster != nil {
		c = *in.Cluster
	}
	in.Objects.LocalNode(in.Node).Apply(&c)
	if in.NodeIP.IsValid() {
		if in.NodeIP.Is4() {
			c.NodeIP = in.NodeIP
		} else {
			c.NodeIPv6 = in.NodeIP
		}
	}
	m := &model.Model{Cluster: c, Services: in.Objects.Services, Family: in.Family}
	return m, nil
}

// checkDump refuses a dump that is not the mode's.
func checkDump(mode dataplane.Mode, d *analyze.Dump) error {
	if d == nil {
		return fmt.Errorf("%w: no dump", ErrInput)
	}
	e, err := auditModeOf(mode)
	if err != nil {
		return err
	}
	if d.Kind != e.kind {
		return fmt.Errorf("%w: the dump holds %s rules, the node's mode is %s (give the mode's dump, or --mode %s)", ErrInput, d.Kind, mode, d.Kind)
	}
	if e.check != nil {
		return e.check(d)
	}
	return nil
}
