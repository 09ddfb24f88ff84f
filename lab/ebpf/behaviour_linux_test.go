package ebpf

import (
	"context"
	"errors"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/model"
)

var dataplaneNames = []string{"ebpf", "ebpf-clsact", "ebpf-sock"}

// lbOf is the shared core of either dataplane.
func lbOf(d seam) *lb {
	switch x := d.(type) {
	case *TC:
		return x.lb
	case *Sock:
		return x.lb
	}
	return nil
}

// TestRejectWithoutEndpoints: a service port with no endpoints refuses TCP
// connects and UDP datagrams (ECONNREFUSED, as kube-proxy's REJECT gives),
// while a service with endpoints on the same lab still works.
func TestRejectWithoutEndpoints(t *testing.T) {
	for _, name := range dataplaneNames {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 1, false)
			d := newDataplane(t, l, name)
			empty := webService("empty", netip.MustParseAddr("10.96.0.20"))
			empty.Ports = append(empty.Ports, model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353})
			// A pod that is serving but not terminating is no fallback.
			empty.Endpoints = []model.Endpoint{{IP: podIP(0), Serving: true}}
			web := webService("web", netip.MustParseAddr("10.96.0.21"), 0)
			if _, err := d.FullSync(context.Background(), modelOf(empty, web)); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				_, err := askUDP(l.topo.ClientNetns, netip.AddrPortFrom(empty.ClusterIP, 53), 0, 2*time.Second)
				if !errors.Is(err, syscall.ECONNREFUSED) {
					t.Errorf("UDP to a service without endpoints: %v, want ECONNREFUSED", err)
				}
				_, err = getPod(l.topo.ClientNetns, netip.AddrPortFrom(empty.ClusterIP, 80), 0, 2*time.Second)
				if !errors.Is(err, syscall.ECONNREFUSED) {
					t.Fatalf("TCP to a service without endpoints: %v, want ECONNREFUSED", err)
				}
			}
			if _, err := getPod(l.topo.ClientNetns, netip.AddrPortFrom(web.ClusterIP, 80), 0, 2*time.Second); err != nil {
				t.Fatalf("service with an endpoint: %v", err)
			}
		})
	}
}

// TestTerminatingFallback: with no ready endpoint, the serving and
// terminating ones take the traffic.
func TestTerminatingFallback(t *testing.T) {
	l := newLab(t, 2, false)
	d := newDataplane(t, l, "ebpf")
	svc := webService("web", netip.MustParseAddr("10.96.0.22"))
	svc.Endpoints = []model.Endpoint{{IP: podIP(0)}, {IP: podIP(1), Serving: true, Terminating: true}}
	if _, err := d.FullSync(context.Background(), modelOf(svc)); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		pod, err := getPod(l.topo.ClientNetns, netip.AddrPortFrom(svc.ClusterIP, 80), 0, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if pod != l.topo.Pods[1].Netns {
			t.Fatalf("connection went to %s, want the terminating pod %s", pod, l.topo.Pods[1].Netns)
		}
	}
}

// TestAffinity: with ClientIP affinity every connection goes to one pod;
// once the entry is older than the timeout (aged in the map rather than by
// sleeping), a new choice is made, so over many expiries both pods appear.
func TestAffinity(t *testing.T) {
	for _, name := range dataplaneNames {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 2, false)
			d := newDataplane(t, l, name)
			svc := webService("sticky", netip.MustParseAddr("10.96.0.30"), 0, 1)
			svc.Affinity = model.Affinity{ClientIP: true, Timeout: 60}
			if _, err := d.FullSync(context.Background(), modelOf(svc)); err != nil {
				t.Fatal(err)
			}
			target := netip.AddrPortFrom(svc.ClusterIP, 80)
			first := ""
			for range 50 {
				pod, err := getPod(l.topo.ClientNetns, target, 0, 2*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if first == "" {
					first = pod
				} else if pod != first {
					t.Fatalf("affinity broken: %s after %s", pod, first)
				}
			}
			seen := map[string]int{}
			for range 40 {
				ageAffinity(t, lbOf(d), 61*time.Second)
				pod, err := getPod(l.topo.ClientNetns, target, 0, 2*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				seen[pod]++
			}
			if len(seen) != 2 {
				t.Errorf("after 40 expiries the pods chosen were %v, want both", seen)
			}
		})
	}
}

// ageAffinity moves every affinity entry's last use back by age.
func ageAffinity(t *testing.T, l *lb, age time.Duration) {
	t.Helper()
	var k svclbAffKey
	var v svclbAffVal
	var keys []svclbAffKey
	var vals []svclbAffVal
	it := l.objs.Affinity.Iterate()
	for it.Next(&k, &v) {
		v.LastNs -= min(v.LastNs, uint64(age))
		keys, vals = append(keys, k), append(vals, v)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if err := l.objs.Affinity.Put(keys[i], vals[i]); err != nil {
			t.Fatal(err)
		}
	}
	if len(keys) == 0 {
		t.Fatal("no affinity entry to age")
	}
}

// TestUDP: datagrams to a UDP service are balanced over both pods, replies
// come back from the ClusterIP (the socket is connected to it), and the BPF
// counters equal what the pods answered.
func TestUDP(t *testing.T) {
	for _, name := range dataplaneNames {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 2, false)
			d := newDataplane(t, l, name)
			svc := model.Service{Namespace: "default", Name: "dns", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("10.96.0.40"),
				Ports:     []model.Port{{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353}},
				Endpoints: []model.Endpoint{{IP: podIP(0), Ready: true}, {IP: podIP(1), Ready: true}}}
			var echoes []*udpEcho
			for _, p := range l.topo.Pods {
				e, err := serveUDP(p.Netns, p.Netns, netip.AddrPortFrom(p.IP, 5353))
				if err != nil {
					t.Fatal(err)
				}
				echoes = append(echoes, e)
			}
			ctx := context.Background()
			if _, err := d.FullSync(ctx, modelOf(svc)); err != nil {
				t.Fatal(err)
			}
			count, err := d.Count(ctx, Target{Service: &svc, Port: svc.Ports[0]})
			if err != nil {
				t.Fatal(err)
			}
			const n = 400
			answers := map[string]int{}
			for i := range n {
				// Distinct client ports: each datagram is a new flow.
				pod, err := askUDP(l.topo.ClientNetns, netip.AddrPortFrom(svc.ClusterIP, 53), 20000+i, 2*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				answers[pod]++
			}
			got, err := count.Stop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range echoes {
				ep := netip.AddrPortFrom(l.topo.Pods[i].IP, 5353).String()
				served := e.stop()
				if uint64(served) != got.Endpoints[ep] || answers[l.topo.Pods[i].Netns] != served {
					t.Errorf("%s: answered %d, client got %d answers, BPF counted %d", ep, served, answers[l.topo.Pods[i].Netns], got.Endpoints[ep])
				}
				if served < n/4 {
					t.Errorf("%s: only %d of %d datagrams", ep, served, n)
				}
			}
		})
	}
}

// TestReusedClientPort: one client port is used for a ClusterIP
// connection, direct connections to each pod, and the ClusterIP again, over
// and over; each must succeed (a stale reverse entry would rewrite a direct
// reply to the ClusterIP and hang it). Each may take one SYN retransmission
// (1 s): a clean clone's CI once timed out a 1 s dial (ebpf-sock, round 7;
// not reproduced in 8 runs here), probably the 4-tuple reused while the
// server's side of the reset connection was still open (an RST outside its
// window draws a challenge ACK, RFC 5961, and the SYN is retried).
func TestReusedClientPort(t *testing.T) {
	for _, name := range dataplaneNames {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 2, false)
			d := newDataplane(t, l, name)
			svc := webService("web", netip.MustParseAddr("10.96.0.50"), 0, 1)
			if _, err := d.FullSync(context.Background(), modelOf(svc)); err != nil {
				t.Fatal(err)
			}
			targets := []netip.AddrPort{netip.AddrPortFrom(svc.ClusterIP, 80),
				netip.AddrPortFrom(podIP(0), 8080), netip.AddrPortFrom(podIP(1), 8080)}
			const port = 40123
			for round := range 100 {
				for _, target := range targets {
					if _, err := getPod(l.topo.ClientNetns, target, port, 3*time.Second); err != nil {
						t.Fatalf("round %d, %s from port %d: %v", round, target, port, err)
					}
				}
			}
		})
	}
}
