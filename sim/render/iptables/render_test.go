package iptables

import (
	"bytes"
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// svc builds a one-port TCP service with the given ready endpoints.
func svc(ns, name, clusterIP string, eps ...string) model.Service {
	s := model.Service{
		Namespace: ns, Name: name, Type: model.ClusterIP,
		ClusterIP: netip.MustParseAddr(clusterIP),
		Ports:     []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80}},
	}
	for _, e := range eps {
		s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.MustParseAddr(e), Ready: true})
	}
	return s
}

func withAffinity(s model.Service) model.Service {
	s.Affinity = model.Affinity{ClientIP: true, Timeout: 10800}
	return s
}

func withNodePort(s model.Service, port int) model.Service {
	s.Type = model.NodePort
	s.Ports[0].NodePort = port
	return s
}

func testModel(services ...model.Service) *model.Model {
	c := model.DefaultCluster()
	return &model.Model{Cluster: c, Services: model.Slice(services)}
}

func renderString(t *testing.T, m *model.Model, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	stats, err := Render(&b, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Bytes != b.Len() {
		t.Fatalf("stats say %d bytes, wrote %d", stats.Bytes, b.Len())
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name string
		m    *model.Model
		opts Options
	}{
		{"two-endpoints", testModel(svc("ns3", "svc3", "172.30.0.43", "10.0.3.2", "10.0.3.3")), DefaultOptions()},
		{"no-endpoints", testModel(svc("ns6", "svc6", "172.30.0.46")), DefaultOptions()},
		{"affinity", testModel(withAffinity(svc("ns5", "svc5", "172.30.0.45", "10.180.0.3"))), DefaultOptions()},
		{"nodeport", testModel(withNodePort(svc("ns3", "svc3", "172.30.0.43", "10.0.3.2"), 3003)), DefaultOptions()},
		{"nodeport-no-endpoints", testModel(withNodePort(svc("ns3", "svc3", "172.30.0.43"), 3003)), DefaultOptions()},
		{"three-endpoints-nfacct", testModel(svc("ns1", "svc1", "172.30.0.41", "10.180.0.1", "10.180.0.2", "10.180.0.3")),
			Options{Version: render.KubeProxy135, NFAcct: true, Flags: render.Flags{NoLocalhostNodePorts: true}, LargeClusterThreshold: 1000}},
		{"v1.37-random-fully", testModel(svc("ns1", "svc1", "172.30.0.41", "10.180.0.1")),
			Options{Version: render.KubeProxy137, RandomFully: false, LargeClusterThreshold: 1000}},
		{"large-cluster", testModel(svc("ns1", "svc1", "172.30.0.41", "10.180.0.1", "10.180.0.2")),
			Options{RandomFully: true, LargeClusterThreshold: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, renderString(t, tt.m, tt.opts)) })
	}
}

func TestRenderJumpsGolden(t *testing.T) {
	var b bytes.Buffer
	if _, err := RenderJumps(&b, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "jumps", b.String())
}
