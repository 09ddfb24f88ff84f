package kubeproxy

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// driver returns the repository's built driver for v, skipping (failing
// under CI=true) when `make kube-proxy` has not been run.
func driver(t testing.TB, v render.KubeProxyVersion) string {
	t.Helper()
	t.Setenv(DirEnv, filepath.Join("..", "..", "bin"))
	bin, err := Find(string(v))
	if errors.Is(err, ErrNotBuilt) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestRenderTwoEndpoints renders kube-proxy's own two-endpoint example with
// each version's driver, then adds an endpoint: a full and a partial sync.
func TestRenderTwoEndpoints(t *testing.T) {
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{{
		Namespace: "ns3", Name: "svc3", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("172.30.0.43"),
		Ports: []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80}},
		Endpoints: []model.Endpoint{
			{IP: netip.MustParseAddr("10.0.3.2"), Ready: true, Serving: true, Node: "node-1"},
		},
	}}}
	next := &model.Model{Cluster: m.Cluster, Services: kube.AddEndpoint(m.Services, 0,
		model.Endpoint{IP: netip.MustParseAddr("10.0.3.3"), Ready: true, Serving: true, Node: "node-2"})}
	for _, v := range render.KubeProxyVersions {
		for _, tc := range []struct{ mode, want string }{
			{kube.ModeIPTables, `--comment "ns3/svc3:p80 -> 10.0.3.2:80" -m statistic --mode random --probability 0.5000000000`},
			{kube.ModeNFTables, "10.0.3.3"},
			{kube.ModeIPVS, "-A KUBE-POSTROUTING"},
		} {
			t.Run(string(v)+"/"+tc.mode, func(t *testing.T) {
				bin := driver(t, v)
				req, err := kube.NewRequest(tc.mode, render.Config{}, m, next)
				if err != nil {
					t.Fatal(err)
				}
				syncs, err := Render(context.Background(), bin, req)
				if err != nil {
					t.Fatal(err)
				}
				if !syncs[0].Full || syncs[0].Payload == "" {
					t.Errorf("first sync: full=%v, %d bytes; want a full sync with a payload", syncs[0].Full, len(syncs[0].Payload))
				}
				if !strings.Contains(syncs[1].Payload, tc.want) {
					t.Errorf("second sync lacks %q:\n%s", tc.want, syncs[1].Payload)
				}
			})
		}
	}
}
