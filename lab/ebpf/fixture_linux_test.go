package ebpf

import (
	"context"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/model"
)

// lab is a built topology with one HTTP server per pod on :8080.
type lab struct {
	topo    *topo.Topology
	servers []*podserver.Server
}

// podIP is the address of pod i of a test lab.
func podIP(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 244, 0, byte(10 + i)}) }

// newLab builds a client, pods backend pods serving HTTP on :8080 and, when
// sink is set, a sink pod owning 10.128.0.0/9 (the generator's endpoints).
func newLab(t testing.TB, pods int, sink bool) *lab {
	t.Helper()
	labtest.RequireRoot(t)
	spec := topo.Spec{Prefix: topo.NewPrefix()}
	if sink {
		spec.SinkPrefixes = []netip.Prefix{model.DefaultEndpointCIDR}
	}
	for i := range pods {
		spec.Pods = append(spec.Pods, topo.Pod{IP: podIP(i)})
	}
	tp, err := topo.Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{topo: tp}
	t.Cleanup(func() {
		for _, s := range l.servers {
			_ = s.Close()
		}
		if err := tp.Close(); err != nil {
			t.Errorf("close topology: %v", err)
		}
	})
	for _, p := range tp.Pods {
		s, err := podserver.Serve(p.Netns, p.Netns, netip.AddrPortFrom(p.IP, 8080))
		if err != nil {
			t.Fatal(err)
		}
		l.servers = append(l.servers, s)
	}
	return l
}

// accepted is each pod server's accepted connections by "IP:8080".
func (l *lab) accepted() map[string]uint64 {
	out := map[string]uint64{}
	for _, s := range l.servers {
		out[s.Addr().String()] = s.Stats().Accepted
	}
	return out
}

// seam is the runner's dataplane seam, so tests run against both types.
type seam = apply.Dataplane

// newTCFor attaches the "ebpf" dataplane to the lab's client veth.
func newTCFor(t testing.TB, l *lab, mode AttachMode) *TC {
	t.Helper()
	d, err := NewTC(TCConfig{NodeNetns: l.topo.NodeNetns, Clients: []Veth{{Netns: l.topo.NodeNetns, Name: l.topo.ClientVeth}}, Attach: mode})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return d
}

// newSockFor creates the "ebpf-sock" dataplane for the lab's client and
// joins its cgroup until the test ends.
func newSockFor(t testing.TB, l *lab) *Sock {
	t.Helper()
	d, err := NewSock(SockConfig{Prefix: l.topo.Prefix, ClientNetns: l.topo.ClientNetns, ManualJoin: true})
	if err != nil {
		t.Fatal(err)
	}
	leave, err := d.Join()
	if err != nil {
		t.Fatal(errJoin(err, d.Close()))
	}
	t.Cleanup(func() {
		if err := leave(); err != nil {
			t.Errorf("leave cgroup: %v", err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return d
}

func errJoin(a, b error) error {
	if a == nil {
		return b
	}
	return a
}

// newDataplane makes the named dataplane for l.
func newDataplane(t testing.TB, l *lab, name string) seam {
	t.Helper()
	switch name {
	case "ebpf":
		return newTCFor(t, l, AttachAuto)
	case "ebpf-clsact":
		return newTCFor(t, l, AttachClsact)
	case "ebpf-sock":
		return newSockFor(t, l)
	}
	t.Fatalf("no dataplane %q", name)
	return nil
}

// webService is a TCP service on port 80 to the given pods' :8080.
func webService(name string, ip netip.Addr, pods ...int) model.Service {
	svc := model.Service{Namespace: "default", Name: name, Type: model.ClusterIP, ClusterIP: ip,
		Ports: []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}}}
	for _, i := range pods {
		svc.Endpoints = append(svc.Endpoints, model.Endpoint{IP: podIP(i), Ready: true, Serving: true})
	}
	return svc
}

func modelOf(svcs ...model.Service) *model.Model {
	return &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice(svcs)}
}
