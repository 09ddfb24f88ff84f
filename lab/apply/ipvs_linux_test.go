package apply

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"testing"

	cipvs "github.com/cloudflare/ipvs"
	"github.com/cloudflare/ipvs/netmask"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// ipvsTestModel is svcs in the default cluster.
func ipvsTestModel(svcs ...model.Service) *model.Model {
	return &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice(svcs)}
}

// twoEndpointService is ClusterIP vip:80 → ips:8080 on node-1.
func twoEndpointService(name, vip string, ips ...string) model.Service {
	s := model.Service{
		Namespace: "ns", Name: name, Type: model.ClusterIP, ClusterIP: netip.MustParseAddr(vip),
		Ports: []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}},
	}
	for _, ip := range ips {
		s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Node: "node-1"})
	}
	return s
}

func TestParseIPVSAdm(t *testing.T) {
	const vs = "-A -t 10.96.0.10:80 -s rr\n"
	mask := netmask.MaskFrom(32, 32)
	svc := cipvs.Service{Address: netip.MustParseAddr("10.96.0.10"), Port: 80, Family: cipvs.INET, Protocol: cipvs.TCP, Netmask: mask, Scheduler: "rr"}
	tests := []struct {
		name, in string
		want     []virtualServer // nil with wantErr
		wantErr  string
	}{
		{"service and real server", vs + "-a -t 10.96.0.10:80 -r 10.244.0.2:8080 -m -w 1\n", []virtualServer{{svc: svc, dests: []cipvs.Destination{
			{Address: netip.MustParseAddr("10.244.0.2"), Port: 8080, Family: cipvs.INET, FwdMethod: cipvs.Masquerade, Weight: 1}}}}, ""},
		{"persistence", "-A -u 10.96.0.10:80 -s rr -p 10800\n", []virtualServer{{svc: withSvc(svc, func(s *cipvs.Service) {
			s.Protocol, s.Flags, s.Timeout = cipvs.UDP, cipvs.ServicePersistent, 10800
		})}}, ""},
		{"mh-port", "-A --sctp-service 10.96.0.10:80 -s mh -b mh-port\n", []virtualServer{{svc: withSvc(svc, func(s *cipvs.Service) {
			s.Protocol, s.Scheduler, s.Flags = cipvs.SCTP, "mh", cipvs.ServiceSchedulerOpt2
		})}}, ""},
		{"real server first", "-a -t 10.96.0.10:80 -r 10.244.0.2:8080 -m -w 1\n", nil, "before its virtual server"},
		{"twice", vs + vs, nil, "given twice"},
		{"IPv6", "-A -t [fd00::1]:80 -s rr\n-a -t [fd00::1]:80 -r [fd00:10:244::2]:8080 -m -w 1\n", []virtualServer{{svc: withSvc(svc, func(s *cipvs.Service) {
			s.Address, s.Family, s.Netmask = netip.MustParseAddr("fd00::1"), cipvs.INET6, netmask.MaskFrom(128, 128)
		}), dests: []cipvs.Destination{{Address: netip.MustParseAddr("fd00:10:244::2"), Port: 8080, Family: cipvs.INET6, FwdMethod: cipvs.Masquerade, Weight: 1}}}}, ""},
		{"IPv4 real server of an IPv6 service", "-A -t [fd00::1]:80 -s rr\n-a -t [fd00::1]:80 -r 10.244.0.2:8080 -m -w 1\n", nil, "want the virtual server's family (IPv6)"},
		{"IPv6 real server of an IPv4 service", vs + "-a -t 10.96.0.10:80 -r [fd00:10:244::2]:8080 -m -w 1\n", nil, "want the virtual server's family (IPv4)"},
		{"direct routing", vs + "-a -t 10.96.0.10:80 -r 10.244.0.2:8080 -g -w 1\n", nil, "masquerading (-m)"},
		{"bad weight", vs + "-a -t 10.96.0.10:80 -r 10.244.0.2:8080 -m -w x\n", nil, "option -w: \"x\" is not a number"},
		{"unknown flag", "-A -t 10.96.0.10:80 -s mh -b fast\n", nil, "scheduler flag"},
		{"persistence netmask", "-A -t 10.96.0.10:80 -s rr -p 60 -M 255.255.255.0\n", nil, "netmask"},
		{"unknown option", "-A -t 10.96.0.10:80 -s rr -Z 1\n", nil, "unknown option"},
		{"firewall mark", "-A -f 10 -s rr\n", nil, "no firewall marks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseIPVSAdm([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("parse = %+v, %v; want %+v", got, err, tt.want)
			}
			for i := range got {
				if got[i].svc != tt.want[i].svc || !slicesEqual(got[i].dests, tt.want[i].dests) {
					t.Errorf("server %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func withSvc(s cipvs.Service, edit func(*cipvs.Service)) cipvs.Service { edit(&s); return s }

func slicesEqual(a, b []cipvs.Destination) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRenderedTablesParse: everything the renderer writes, for every
// scheduler and NodePort services, goes through the parser and into the
// fake kernel, with as many servers as the render counts.
func TestRenderedTablesParse(t *testing.T) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 40, EndpointsPerService: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	np := twoEndpointService("np", "10.96.5.5", "10.244.0.2", "10.244.0.3")
	np.Type, np.Ports[0].NodePort = model.NodePort, 30080
	np.Ports = append(np.Ports, model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 53, NodePort: 30053})
	aff := twoEndpointService("aff", "10.96.5.6", "10.244.0.4")
	aff.Affinity = model.Affinity{ClientIP: true, Timeout: 600}
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Place(model.Slice{np, aff}, gen, model.Position{Kind: model.PositionMiddle})}
	for _, sched := range []string{"rr", "wrr", "lc", "sh", "mh"} {
		t.Run(sched, func(t *testing.T) {
			opts := ipvs.Options{Scheduler: sched, NodeIPs: []netip.Addr{netip.MustParseAddr("192.168.0.2")}}
			d, fake, _ := fakeIPVSDataplane("unused", opts)
			p, err := renderIPVS(m, opts)
			if err != nil {
				t.Fatal(err)
			}
			servers, err := p.servers()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.syncServers(servers); err != nil {
				t.Fatal(err)
			}
			if len(fake.services) != p.stats.Chains || len(fake.services)+fake.realServers() != p.stats.Rules {
				t.Errorf("kernel holds %d virtual and %d real servers; render counts %d virtual, %d in all",
					len(fake.services), fake.realServers(), p.stats.Chains, p.stats.Rules)
			}
			for _, s := range fake.services {
				if s.svc.Scheduler != sched || (sched == "mh") != (s.svc.Flags&cipvs.ServiceSchedulerOpt2 != 0) {
					t.Fatalf("service %v: scheduler %s flags %v", keyOf(s.svc), s.svc.Scheduler, s.svc.Flags)
				}
			}
			if fake.open != 0 {
				t.Errorf("%d IPVS clients left open", fake.open)
			}
		})
	}
}

// fakeIPVSDataplane is the dataplane for nsName with a fake kernel IPVS
// table and a fake kube-ipvs0.
func fakeIPVSDataplane(nsName string, opts ipvs.Options) (*IPVS, *fakeIPVS, *fakeLinks) {
	fake, links := &fakeIPVS{}, &fakeLinks{}
	d := &IPVS{Netns: nsName, Options: opts, IPTables: &IPTables{Netns: nsName, Backend: "legacy"}, dial: fake.dial, links: links}
	return d, fake, links
}

// TestSyncServersReconciles: a second sync changes only what changed.
func TestSyncServersReconciles(t *testing.T) {
	d, fake, _ := fakeIPVSDataplane("unused", ipvs.DefaultOptions())
	sync := func(m *model.Model) {
		t.Helper()
		p, err := renderIPVS(m, d.Options)
		if err != nil {
			t.Fatal(err)
		}
		servers, err := p.servers()
		if err != nil {
			t.Fatal(err)
		}
		fake.calls = nil
		if _, err := d.syncServers(servers); err != nil {
			t.Fatal(err)
		}
	}
	a := twoEndpointService("a", "10.96.0.10", "10.244.0.2", "10.244.0.3")
	b := twoEndpointService("b", "10.96.0.11", "10.244.0.4")
	sync(ipvsTestModel(a, b))
	sync(ipvsTestModel(a, b))
	if len(fake.calls) != 0 {
		t.Errorf("unchanged model: calls %q, want none", fake.calls)
	}
	a.Endpoints = a.Endpoints[1:]
	a.Endpoints = append(a.Endpoints, model.Endpoint{IP: netip.MustParseAddr("10.244.0.9"), Ready: true, Node: "node-1"})
	aff := b
	aff.Affinity = model.Affinity{ClientIP: true, Timeout: 60}
	sync(ipvsTestModel(a, aff))
	want := []string{"del 10.96.0.10:80 -> 10.244.0.2:8080", "add 10.96.0.10:80 -> 10.244.0.9:8080",
		"remove TCP 10.96.0.11:80", "create TCP 10.96.0.11:80 rr", "add 10.96.0.11:80 -> 10.244.0.4:8080"}
	if strings.Join(fake.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(fake.calls, "\n"), strings.Join(want, "\n"))
	}
	sync(ipvsTestModel(a))
	if got := strings.Join(fake.calls, ","); got != "remove TCP 10.96.0.11:80" {
		t.Errorf("dropping a service: calls %s", got)
	}
}

// TestFakeIPVSRefuses: the fake refuses what the kernel refuses, or the
// tests above prove nothing.
func TestFakeIPVSRefuses(t *testing.T) {
	fake := &fakeIPVS{}
	c, _ := fake.dial()
	defer c.Close()
	svc := cipvs.Service{Address: netip.MustParseAddr("10.96.0.10"), Port: 80, Family: cipvs.INET, Protocol: cipvs.TCP, Scheduler: "rr"}
	dst := cipvs.Destination{Address: netip.MustParseAddr("10.244.0.2"), Port: 80, Family: cipvs.INET, Weight: 1}
	if err := c.CreateService(svc); !errors.Is(err, unix.EINVAL) {
		t.Errorf("service without netmask: %v, want EINVAL", err)
	}
	svc.Netmask = netmask.MaskFrom(32, 32)
	if err := c.CreateDestination(svc, dst); !errors.Is(err, unix.ESRCH) {
		t.Errorf("destination for a missing service: %v, want ESRCH", err)
	}
	if err := c.CreateService(withSvc(svc, func(s *cipvs.Service) { s.Scheduler = "fastest" })); !errors.Is(err, unix.ENOENT) {
		t.Errorf("unknown scheduler: %v, want ENOENT", err)
	}
	if err := c.CreateService(svc); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateService(svc); !errors.Is(err, unix.EEXIST) {
		t.Errorf("duplicate service: %v, want EEXIST", err)
	}
	if err := c.CreateDestination(svc, dst); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDestination(svc, dst); !errors.Is(err, unix.EEXIST) {
		t.Errorf("duplicate destination: %v, want EEXIST", err)
	}
}

func TestRealServerCounters(t *testing.T) {
	d, fake, _ := fakeIPVSDataplane("unused", ipvs.DefaultOptions())
	svc := cipvs.Service{Address: netip.MustParseAddr("10.96.0.10"), Port: 80, Family: cipvs.INET, Protocol: cipvs.UDP}
	fake.services = []*fakeService{{svc: svc, dests: []cipvs.DestinationExtended{
		{Destination: cipvs.Destination{Address: netip.MustParseAddr("10.244.0.3"), Port: 53}, Stats64: cipvs.Stats{Connections: 7, IncomingPackets: 9}},
		{Destination: cipvs.Destination{Address: netip.MustParseAddr("10.244.0.2"), Port: 53}, Stats: cipvs.Stats{Connections: 5, IncomingPackets: 6}},
	}}}
	got, err := d.RealServerCounters(netip.MustParseAddrPort("10.96.0.10:80"), model.UDP)
	if err != nil {
		t.Fatal(err)
	}
	want := []RealServerStat{{netip.MustParseAddrPort("10.244.0.2:53"), 5, 6}, {netip.MustParseAddrPort("10.244.0.3:53"), 7, 9}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("counters = %+v, want %+v", got, want)
	}
	if _, err := d.RealServerCounters(netip.MustParseAddrPort("10.96.0.10:80"), model.TCP); err == nil || !strings.Contains(err.Error(), "no such virtual server") {
		t.Errorf("counters of a missing service: %v, want no such virtual server", err)
	}
}

func TestMissingJumps(t *testing.T) {
	var jumps bytes.Buffer
	if _, err := ipvs.RenderJumps(&jumps); err != nil {
		t.Fatal(err)
	}
	all := missingJumps(jumps.Bytes(), nil)
	if !bytes.Equal(all, jumps.Bytes()) {
		t.Fatalf("nothing saved: got\n%s\nwant every jump\n%s", all, jumps.Bytes())
	}
	saved := "[0:0] -A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES\n"
	some := string(missingJumps(jumps.Bytes(), []byte(saved)))
	if strings.Contains(some, "-I PREROUTING") || !strings.Contains(some, "-I OUTPUT") || !strings.HasPrefix(some, "*nat\n") {
		t.Errorf("with PREROUTING's jump saved:\n%s", some)
	}
	var everything strings.Builder
	for _, line := range strings.Split(jumps.String(), "\n") {
		if f := strings.SplitN(line, " ", 4); len(f) == 4 {
			everything.WriteString("-A " + f[1] + " " + f[3] + "\n")
		}
	}
	if got := missingJumps(jumps.Bytes(), []byte(everything.String())); got != nil {
		t.Errorf("all saved: got\n%s", got)
	}
}

// BenchmarkParseIPVSAdm parses the rendered table of 10,000 services with
// 10 endpoints each (110,000 lines) into netlink requests.
func BenchmarkParseIPVSAdm(b *testing.B) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 10_000, EndpointsPerService: 10, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	p, err := renderIPVS(&model.Model{Cluster: model.DefaultCluster(), Services: gen}, ipvs.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(p.families[0].ipvsadm.Len()))
	for b.Loop() {
		if _, err := parseIPVSAdm(p.families[0].ipvsadm.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}

// kube-proxy sets conn_reuse_mode=0 only on kernels before 5.9.
func TestSysctlsForKernel(t *testing.T) {
	for _, tc := range []struct {
		release string
		reuse   bool
	}{{"4.19.0", true}, {"5.8.18", true}, {"5.9.0", false}, {"6.1.176", false}, {"garbage", true}} {
		_, has := sysctlsFor(tc.release)["conn_reuse_mode"]
		if has != tc.reuse {
			t.Errorf("kernel %s: conn_reuse_mode set %v, want %v", tc.release, has, tc.reuse)
		}
	}
}

// TestDualStackRendersOnePayloadPerFamily: a dual-stack service gives an
// IPv4 and an IPv6 payload, each only of its family, and the fake kernel
// takes both families' virtual servers with their own real servers.
func TestDualStackRendersOnePayloadPerFamily(t *testing.T) {
	s := twoEndpointService("dual", "10.96.0.120", "10.244.0.51", "fd00:10:244::51")
	s.SecondaryClusterIP = netip.MustParseAddr("fd00:10:96::120")
	d, fake, _ := fakeIPVSDataplane("unused", ipvs.DefaultOptions())
	p, err := renderIPVS(ipvsTestModel(s), d.Options)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.families) != 2 || p.families[0].family != model.IPv4 || p.families[1].family != model.IPv6 {
		t.Fatalf("%d payloads, want IPv4 then IPv6", len(p.families))
	}
	v6 := p.families[1]
	for name, text := range map[string]string{"ipvsadm": v6.ipvsadm.String(), "ipset": v6.ipset.String(), "ip6tables": v6.iptables.String()} {
		if strings.Contains(text, "10.96.0.120") || strings.Contains(text, "10.244.0.51") {
			t.Errorf("IPv6 %s payload names an IPv4 address:\n%s", name, text)
		}
	}
	if !strings.Contains(v6.ipset.String(), "family inet6") {
		t.Errorf("IPv6 ipsets are not inet6:\n%s", v6.ipset.String())
	}
	servers, err := p.servers()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.syncServers(servers); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, vs := range fake.services {
		for _, dst := range vs.dests {
			got[keyOf(vs.svc).addr.String()] += netip.AddrPortFrom(dst.Address, dst.Port).String()
		}
	}
	want := map[string]string{"10.96.0.120:80": "10.244.0.51:8080", "[fd00:10:96::120]:80": "[fd00:10:244::51]:8080"}
	if len(got) != 2 || got["10.96.0.120:80"] != want["10.96.0.120:80"] || got["[fd00:10:96::120]:80"] != want["[fd00:10:96::120]:80"] {
		t.Errorf("kernel holds %v, want %v", got, want)
	}
	if addrs := p.addrs(); len(addrs) != 2 || addrs[0] != s.ClusterIP || addrs[1] != s.SecondaryClusterIP {
		t.Errorf("kube-ipvs0 addresses %v, want both ClusterIPs", addrs)
	}
}
