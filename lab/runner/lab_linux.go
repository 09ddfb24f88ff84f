package runner

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// kernelLab is a running topology with its pod servers.
type kernelLab struct {
	topo    *topo.Topology
	servers *podserver.Group
	podOf   map[netip.Addr]string // endpoint IP → pod
}

// topoSpecFor is the topology of a lab spec with its pods.
func topoSpecFor(spec machine.LabSpec, pods []topo.Pod) topo.Spec {
	t := topo.Spec{Prefix: spec.Prefix, Pods: pods, ClientOnNode: spec.ClientOnNode, ServiceCIDRs: spec.ServiceCIDRs,
		ClientIPv6: spec.ClientIPv6, NodeIP: spec.NodeIP, NodeIPv6: spec.NodeIPv6}
	if spec.ClientOnNode {
		t.ClientIPv6 = netip.Addr{}
	}
	if spec.Fillers {
		t.SinkPrefixes = []netip.Prefix{spec.FillerCIDR}
	}
	if len(spec.ExternalIPs) > 0 {
		t.External = &topo.External{IPs: spec.ExternalIPs}
	}
	if spec.SecondNode {
		t.SecondNode = &topo.SecondNode{}
	}
	return t
}

// newKernelLab builds the topology and starts a server on every endpoint port.
func newKernelLab(ctx context.Context, spec machine.LabSpec) (*kernelLab, error) {
	pods, ports := topo.PodsFor(spec.Targets, spec.NodeName)
	t, err := topo.Build(ctx, topoSpecFor(spec, pods))
	if err != nil {
		return nil, fmt.Errorf("build lab topology %s: %w", spec.Prefix, err)
	}
	lab := &kernelLab{topo: t, servers: &podserver.Group{}, podOf: map[netip.Addr]string{}}
	if err := apply.Plant(t.NodeNetns, spec.PlantRules); err != nil {
		return nil, lab.closeWith(err)
	}
	if err := lab.serve(pods, ports, spec); err != nil {
		return nil, lab.closeWith(err)
	}
	return lab, nil
}

// serve starts each pod's servers on its target ports, on the wildcard
// address of each family the pod has.
func (l *kernelLab) serve(pods []topo.Pod, ports map[int][]int, spec machine.LabSpec) error {
	for i, p := range pods {
		for _, ip := range p.Addrs() {
			l.podOf[ip] = p.Name
		}
		for _, port := range ports[i] {
			for _, any := range wildcards(p) {
				if _, err := l.servers.Serve(l.topo.Pods[i].Netns, p.Name, netip.AddrPortFrom(any, uint16(port))); err != nil {
					return fmt.Errorf("serve pod %s port %d: %w", p.Name, port, err)
				}
			}
		}
	}
	if spec.Fillers {
		if _, err := l.servers.Serve(l.topo.SinkNetns, "sink", netip.AddrPortFrom(netip.IPv4Unspecified(), uint16(spec.FillerPort))); err != nil {
			return fmt.Errorf("serve sink port %d: %w", spec.FillerPort, err)
		}
	}
	return nil
}

// wildcards are the unspecified addresses of the families p has.
func wildcards(p topo.Pod) []netip.Addr {
	var out []netip.Addr
	if p.IP.IsValid() {
		out = append(out, netip.IPv4Unspecified())
	}
	if p.IPv6.IsValid() {
		out = append(out, netip.IPv6Unspecified())
	}
	return out
}

func (l *kernelLab) closeWith(err error) error {
	if cerr := l.Close(); cerr != nil {
		return fmt.Errorf("%w (and teardown: %v)", err, cerr)
	}
	return err
}

// Close stops the servers and tears the topology down.
func (l *kernelLab) Close() error {
	serr := l.servers.Close()
	terr := l.topo.Close()
	if serr != nil {
		return serr
	}
	return terr
}

// labSpecFor derives the lab a scenario needs.
func labSpecFor(sc *scenario.Scenario, prefix string, fillers bool, clientOnNode bool) machine.LabSpec {
	targets := sc.Explicit()
	cidrs := []netip.Prefix{sc.Cluster().ServiceCIDR}
	for _, s := range targets {
		if s.ClusterIP.Is4() && !cidrs[0].Contains(s.ClusterIP) {
			cidrs = append(cidrs, netip.PrefixFrom(s.ClusterIP, 32))
		}
	}
	return machine.LabSpec{
		Prefix: prefix, Targets: targets, FillerCIDR: sc.FillerCIDR(), Fillers: fillers,
		FillerPort: model.DefaultPort.TargetPort, ServiceCIDRs: cidrs, ClientOnNode: clientOnNode,
		NodeName: sc.Cluster().NodeName, ClientIPv6: topo.DefaultClientIPv6,
	}
}
