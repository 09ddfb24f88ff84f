package rendercheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
)

// TestNFTablesRenderSyncLoads runs random sequences of cluster states
// (services added, removed, changed; endpoints with random conditions on
// this node and others) through RenderSync in both layouts with the real
// nft: every partial transaction must load, and leave the table a full
// sync of the new state gives in a fresh namespace.
func TestNFTablesRenderSyncLoads(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	c := model.DefaultCluster()
	for _, v := range render.KubeProxyVersions {
		t.Run(string(v), func(t *testing.T) {
			opts := rendernft.Options{Version: v}
			ns, fresh := labtest.ScratchNetns(t), labtest.ScratchNetns(t)
			for seed := uint64(0); seed < 8; seed++ {
				rng := rand.New(rand.NewPCG(seed, 7))
				prev := &model.Model{Cluster: c, Services: randomCluster(rng, c.NodeName)}
				nft(t, ns, nil, "flush", "ruleset")
				nft(t, ns, renderNFT(t, prev, opts), "-f", "-")
				for step := 0; step < 4; step++ {
					next := &model.Model{Cluster: c, Services: randomCluster(rng, c.NodeName)}
					var tx bytes.Buffer
					if _, err := rendernft.RenderSync(&tx, prev, next, opts); err != nil {
						t.Fatal(err)
					}
					nft(t, ns, tx.Bytes(), "-f", "-")
					nft(t, fresh, nil, "flush", "ruleset")
					nft(t, fresh, renderNFT(t, next, opts), "-f", "-")
					if got, want := kernelState(t, ns).String(), kernelState(t, fresh).String(); got != want {
						t.Fatalf("seed %d step %d: after\n%s\nthe kernel holds\n%s\nbut a full sync gives\n%s", seed, step, tx.String(), got, want)
					}
					prev = next
				}
			}
		})
	}
}

// randomCluster draws up to four services from a small pool of names and
// endpoint addresses, so that changes touch every kind of object.
func randomCluster(rng *rand.Rand, node string) model.Slice {
	var out model.Slice
	for i := 0; i < 4; i++ {
		if rng.IntN(3) == 0 {
			continue
		}
		s := model.Service{Namespace: "ns", Name: fmt.Sprintf("svc%d", i), Type: model.ClusterIP, ClusterIP: netip.AddrFrom4([4]byte{10, 96, 0, byte(10 + i)}),
			Ports: []model.Port{{Name: "p", Protocol: []model.Protocol{model.TCP, model.UDP}[rng.IntN(2)], Port: 80, TargetPort: 8080}}}
		if rng.IntN(2) == 0 {
			s.Type, s.Ports[0].NodePort = model.NodePort, 30000+i
		}
		if rng.IntN(3) == 0 {
			s.Affinity = model.Affinity{ClientIP: true, Timeout: 600}
		}
		for e := 0; e < rng.IntN(4); e++ {
			s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.AddrFrom4([4]byte{10, 130, 0, byte(1 + rng.IntN(5))}),
				Ready: rng.IntN(3) > 0, Serving: rng.IntN(2) == 0, Terminating: rng.IntN(2) == 0, Node: []string{node, "other"}[rng.IntN(2)]})
		}
		out = append(out, s)
	}
	return out
}
