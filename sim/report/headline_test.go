package report

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
)

func TestHeadline(t *testing.T) {
	connP := 0.8415
	ipt, nft, ebpf := string(dataplane.IPTablesNFT), string(dataplane.NFTables), string(dataplane.EBPF)
	two := []results.Endpoint{{Count: 10135, Share: 0.50675, Expected: 0.5}, {Count: 9865, Share: 0.49325, Expected: 0.5}}
	tests := []struct {
		name string
		s    results.Summary
		meta *results.Meta
		want []string
	}{
		{"split with witness", results.Summary{Runs: []results.FairnessRun{{Dataplane: ipt, Mode: "http", Endpoints: two, ChiSquareP: 0.056, KernelCounter: "DNAT rule packets", CountsAgree: true}}},
			&results.Meta{KubeProxyVersion: "1.37", Engine: "kube-proxy"},
			[]string{"rules: written by kube-proxy v1.37.2 itself",
				"iptables-nft: 50.7% / 49.3% of 20,000 connections (expected 50.0% each); chi-square p = 0.0560: consistent with the expected split; the kernel's counters agree (DNAT rule packets)"}},
		{"dropped", results.Summary{Runs: []results.FairnessRun{{Dataplane: nft, ExpectDropped: true, Connections: 100, Errors: 100, Endpoints: []results.Endpoint{{}}}}}, nil,
			[]string{"nftables: dropped, as the rules promise: no endpoint served any of the 100 connections (100 failed)"}},
		{"keep-alive names requests and connections", results.Summary{Runs: []results.FairnessRun{{Dataplane: ipt, Mode: "keepalive", Endpoints: []results.Endpoint{
			{Count: 6500, Share: 0.52, Expected: 0.5, Connections: 13, DNAT: 13}, {Count: 6000, Share: 0.48, Expected: 0.5, Connections: 12, DNAT: 12}},
			ChiSquareP: 8e-6, ConnChiSquareP: &connP, KernelCounter: "DNAT rule packets", CountsAgree: true}}}, nil,
			[]string{"iptables-nft: requests 52.0% / 48.0% of 12,500 (expected 50.0% each; chi-square p < 0.0001: NOT the expected split); connections 13 / 12 of 25 (chi-square p = 0.8415: consistent with it): SKEW SHOWN",
				"the kernel's counters agree with the connections (DNAT rule packets)"}},
		{"slopes", results.Summary{Fits: []results.Fit{
			{Dataplane: ipt, Position: "last", Metric: "p50_us", SlopeNsPerService: 9.7, SlopeCI95: [2]float64{8.1, 11.3}, R2: 0.88},
			{Dataplane: nft, Position: "last", Metric: "p50_us", SlopeNsPerService: 0.2, SlopeCI95: [2]float64{0.1, 0.3}},
			{Dataplane: ebpf, Position: "last", Metric: "p50_us", SlopeNsPerService: 3, SlopeCI95: [2]float64{-1, 7}},
			{Dataplane: nft, Position: "first", Metric: "p50_us", SlopeNsPerService: 50, SlopeCI95: [2]float64{40, 60}},
		}, Points: []results.Point{{Dataplane: nft, Services: 1000, SyncFullS: 8.907e-05}, {Dataplane: nft, Services: 10000, SyncFullS: 0.0123}}}, nil,
			[]string{"first-packet p50 to the last service, per added service: iptables-nft +9.7 ns per service [8.10, 11.3] (R² 0.88); nftables, ebpf: flat",
				"full sync: nftables 12.3 ms at 10,000 services"}},
		{"kube-proxy's own order qualifies the slope", results.Summary{Fits: []results.Fit{
			{Dataplane: ipt, Position: "last", Metric: "p50_us", SlopeNsPerService: 9.7, SlopeCI95: [2]float64{8.1, 11.3}, R2: 0.88}}},
			&results.Meta{KubeProxyVersion: "1.37", Engine: "kube-proxy"},
			[]string{"(R² 0.88)" + KubeProxyOrderNote}},
	}
	for _, tt := range tests {
		got := strings.Join(Headline(&tt.s, tt.meta), "\n")
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: headline\n%s\nlacks %q", tt.name, got, w)
			}
		}
		if strings.Contains(got, "e-0") {
			t.Errorf("%s: scientific notation in %s", tt.name, got)
		}
	}
}
