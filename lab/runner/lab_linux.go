package runner

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"strconv"

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

// LabSpec says what a lab must host.
type LabSpec struct {
	Prefix       string
	Targets      model.Slice    // services whose endpoints become real pods
	FillerCIDR   netip.Prefix   // owned by the sink pod when Fillers is true
	Fillers      bool           // synthetic services exist
	FillerPort   int            // the port synthetic endpoints listen on
	ServiceCIDRs []netip.Prefix // for a client on the node
	ClientOnNode bool
}

// newKernelLab builds the topology and starts a server on every endpoint port.
func newKernelLab(ctx context.Context, spec LabSpec) (*kernelLab, error) {
	pods, ports := podsFor(spec.Targets)
	tspec := topo.Spec{Prefix: spec.Prefix, Pods: pods, ClientOnNode: spec.ClientOnNode, ServiceCIDRs: spec.ServiceCIDRs}
	if spec.Fillers {
		tspec.SinkPrefixes = []netip.Prefix{spec.FillerCIDR}
	}
	t, err := topo.Build(ctx, tspec)
	if err != nil {
		return nil, fmt.Errorf("build lab topology %s: %w", spec.Prefix, err)
	}
	lab := &kernelLab{topo: t, servers: &podserver.Group{}, podOf: map[netip.Addr]string{}}
	if err := lab.serve(pods, ports, spec); err != nil {
		return nil, lab.closeWith(err)
	}
	return lab, nil
}

func (l *kernelLab) serve(pods []topo.Pod, ports map[netip.Addr][]int, spec LabSpec) error {
	for i, p := range pods {
		l.podOf[p.IP] = p.Name
		for _, port := range ports[p.IP] {
			if _, err := l.servers.Serve(l.topo.Pods[i].Netns, p.Name, netip.AddrPortFrom(netip.IPv4Unspecified(), uint16(port))); err != nil {
				return fmt.Errorf("serve pod %s port %d: %w", p.Name, port, err)
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

// podsFor turns every distinct endpoint IP of the targets into a pod named
// after the first service that uses it, with the target ports it serves.
func podsFor(targets model.Slice) ([]topo.Pod, map[netip.Addr][]int) {
	ports := map[netip.Addr][]int{}
	names := map[string]bool{}
	var pods []topo.Pod
	for i := range targets {
		s := &targets[i]
		for j, e := range s.Endpoints {
			if _, seen := ports[e.IP]; !seen {
				name := podName(s.Name, j)
				if names[name] {
					name += "-" + strconv.Itoa(len(pods))
				}
				names[name] = true
				pods = append(pods, topo.Pod{Name: name, IP: e.IP})
			}
			for _, p := range s.Ports {
				ports[e.IP] = appendUnique(ports[e.IP], p.TargetPort)
			}
		}
	}
	for ip := range ports {
		sort.Ints(ports[ip])
	}
	return pods, ports
}

// podName is "<service>-<j>", cut so the namespace name stays readable.
func podName(service string, j int) string {
	if len(service) > 40 {
		service = service[:40]
	}
	return service + "-" + strconv.Itoa(j)
}

func appendUnique(list []int, v int) []int {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// labSpecFor derives the lab a scenario needs.
func labSpecFor(sc *scenario.Scenario, prefix string, fillers bool, clientOnNode bool) LabSpec {
	targets := sc.Explicit()
	cidrs := []netip.Prefix{sc.Cluster().ServiceCIDR}
	for _, s := range targets {
		if !cidrs[0].Contains(s.ClusterIP) {
			cidrs = append(cidrs, netip.PrefixFrom(s.ClusterIP, 32))
		}
	}
	return LabSpec{
		Prefix: prefix, Targets: targets, FillerCIDR: sc.FillerCIDR(), Fillers: fillers,
		FillerPort: model.DefaultPort.TargetPort, ServiceCIDRs: cidrs, ClientOnNode: clientOnNode,
	}
}
