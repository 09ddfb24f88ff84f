package topo

import (
	"net/netip"
	"sort"
	"strconv"

	"github.com/svclab/svclab/sim/model"
)

// mappedPodIPv6Prefix holds the IPv6 addresses of IPv4-only pods.
var mappedPodIPv6Prefix = netip.MustParsePrefix("fd5c:1ab::/96")

// PodsFor turns the targets' endpoint addresses into pods named after the
// first service that uses them, with the target ports each serves (by pod
// index). A service's i-th IPv6 endpoint joins the pod of its i-th IPv4
// endpoint on the same node, as one dual-stack pod has an address of each
// family; an IPv4-only pod gets a mapped IPv6 address, so every namespace is
// dual-stack. Endpoints of another node than nodeName go behind the second
// node.
func PodsFor(targets model.Slice, nodeName string) ([]Pod, map[int][]int) {
	b := podBuilder{index: map[netip.Addr]int{}, names: map[string]bool{}, ports: map[int][]int{}}
	for i := range targets {
		s := &targets[i]
		var v4pods []int
		v6seen := 0
		for j, e := range s.Endpoints {
			k := b.podFor(s, j, e, nodeName, v4pods, &v6seen)
			if e.IP.Is4() {
				v4pods = append(v4pods, k)
			}
			for _, p := range s.Ports {
				b.ports[k] = appendUnique(b.ports[k], p.TargetPort)
			}
		}
	}
	b.mapIPv6()
	for k := range b.ports {
		sort.Ints(b.ports[k])
	}
	return b.pods, b.ports
}

type podBuilder struct {
	pods  []Pod
	index map[netip.Addr]int // address → pod index
	names map[string]bool
	ports map[int][]int
}

// podFor returns the index of e's pod, making or extending one.
func (b *podBuilder) podFor(s *model.Service, j int, e model.Endpoint, nodeName string, v4pods []int, v6seen *int) int {
	if k, seen := b.index[e.IP]; seen {
		return k
	}
	remote := nodeName != "" && e.Node != "" && e.Node != nodeName
	if e.IP.Is6() {
		n := *v6seen
		*v6seen++
		if n < len(v4pods) {
			if k := v4pods[n]; !b.pods[k].IPv6.IsValid() && b.pods[k].OnSecondNode == remote {
				b.pods[k].IPv6 = e.IP
				b.index[e.IP] = k
				return k
			}
		}
	}
	name := podName(s.Name, j)
	if b.names[name] {
		name += "-" + strconv.Itoa(len(b.pods))
	}
	b.names[name] = true
	p := Pod{Name: name, OnSecondNode: remote}
	if e.IP.Is6() {
		p.IPv6 = e.IP
	} else {
		p.IP = e.IP
	}
	b.pods = append(b.pods, p)
	b.index[e.IP] = len(b.pods) - 1
	return len(b.pods) - 1
}

// mapIPv6 gives every IPv4-only pod its mapped IPv6 address.
func (b *podBuilder) mapIPv6() {
	for k := range b.pods {
		p := &b.pods[k]
		if p.IPv6.IsValid() {
			continue
		}
		a := MappedIPv6(p.IP)
		if _, used := b.index[a]; !used {
			p.IPv6 = a
			b.index[a] = k
		}
	}
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

// MappedIPv6 is the IPv6 address the lab gives an IPv4-only pod, so every
// namespace is dual-stack: fd5c:1ab::a.b.c.d.
func MappedIPv6(ip netip.Addr) netip.Addr {
	b := mappedPodIPv6Prefix.Addr().As16()
	v4 := ip.As4()
	copy(b[12:], v4[:])
	return netip.AddrFrom16(b)
}
