package audit

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

// Objects the node was programmed with before the cluster changed
// (items appended to cluster.yaml): ns8/old, since deleted, and a fourth
// endpoint of ns7/web, since gone.
const (
	deletedService = "deleted-service.items.yaml"
	goneEndpoint   = "gone-endpoint.items.yaml"
)

// tampering is one way a node's rules go wrong, and what the audit must say.
type tampering struct {
	name string
	mode dataplane.Mode
	// extra objects the node was programmed with (a testdata file); version it was
	// programmed by ("" is the audited one); drop removes every line
	// holding one of its strings.
	extra   string
	version render.KubeProxyVersion
	drop    []string
	// The audit must name service with a finding of kind, and a traffic
	// change holding change ("" when the traffic is the same).
	service string
	kind    Kind
	change  string
}

var tamperings = []tampering{
	{name: "rule deleted", mode: dataplane.ModeIPTables, drop: []string{"ns7/web:http -> 10.180.0.72:8080"},
		service: "ns7/web", kind: Missing, change: "endpoint 10.180.0.72:8080 gone"},
	{name: "stale chains of a deleted Service", mode: dataplane.ModeIPTables, extra: deletedService,
		service: "ns8/old", kind: Stale, change: "traffic still reaches 10.180.0.81:80"},
	{name: "stale endpoint", mode: dataplane.ModeIPTables, extra: goneEndpoint,
		service: "ns7/web", kind: Stale, change: "stale endpoint 10.180.0.74:8080 still receives 25%"},
	{name: "jump from PREROUTING deleted", mode: dataplane.ModeIPTables, drop: []string{"-A PREROUTING"},
		service: "", kind: Missing, change: "traffic dropped"},
	{name: "another version's layout", mode: dataplane.ModeNFTables, version: "1.35",
		service: "ns7/web", kind: Missing},
	{name: "map element missing", mode: dataplane.ModeNFTables, drop: []string{"service-ips { 172.30.0.47 . tcp . 80"},
		service: "ns7/web", kind: Missing, change: "traffic dropped"},
	{name: "stale map elements of a deleted Service", mode: dataplane.ModeNFTables, extra: deletedService,
		service: "ns8/old", kind: Stale, change: "traffic still reaches 10.180.0.81:80"},
	{name: "stale endpoint", mode: dataplane.ModeNFTables, extra: goneEndpoint,
		service: "ns7/web", kind: Stale, change: "stale endpoint 10.180.0.74:8080 still receives 25%"},
	{name: "real server deleted", mode: dataplane.ModeIPVS, drop: []string{"-a -t 172.30.0.47:80 -r 10.180.0.72:8080"},
		service: "ns7/web", kind: Missing, change: "endpoint 10.180.0.72:8080 gone"},
	{name: "virtual server of a deleted Service", mode: dataplane.ModeIPVS, extra: deletedService,
		service: "-t 172.30.0.48:80", kind: Stale, change: "traffic still reaches 10.180.0.81:80"},
	{name: "ipset member missing", mode: dataplane.ModeIPVS, drop: []string{"add KUBE-CLUSTER-IP 172.30.0.47,tcp:80"},
		service: "ns7/web", kind: Missing, change: "traffic dropped: no endpoint is reached (verdict REJECT)"},
}

// withExtra decodes the test cluster with the items of testdata/extra
// appended.
func withExtra(t *testing.T, extra string) *objects.Objects {
	t.Helper()
	raw, err := os.ReadFile("testdata/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	items, err := os.ReadFile("testdata/" + extra)
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.Decode("testdata/cluster.yaml+"+extra, append(raw, items...))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// dropLines removes every line holding one of drop.
func dropLines(t *testing.T, text string, drop []string) string {
	t.Helper()
	var out []string
	removed := 0
	for _, line := range strings.Split(text, "\n") {
		hit := false
		for _, d := range drop {
			hit = hit || strings.Contains(line, d)
		}
		if hit {
			removed++
			continue
		}
		out = append(out, line)
	}
	if removed == 0 && len(drop) > 0 {
		t.Fatalf("no line holds %q in\n%s", drop, text)
	}
	return strings.Join(out, "\n")
}

// checkFound holds a report to the tampering's expectations.
func checkFound(t *testing.T, tc tampering, rep *Report) {
	t.Helper()
	var text bytes.Buffer
	_ = rep.WriteText(&text)
	if rep.Clean() {
		t.Fatalf("a tampered node (%s) is reported clean", tc.name)
	}
	var sr *ServiceReport
	for i := range rep.Services {
		if rep.Services[i].Service == tc.service {
			sr = &rep.Services[i]
		}
	}
	if sr == nil {
		t.Fatalf("no finding for Service %q:\n%s", tc.service, text.String())
	}
	kinds := map[Kind]bool{}
	for _, f := range sr.Findings {
		kinds[f.Kind] = true
	}
	if !kinds[tc.kind] {
		t.Errorf("Service %q has no %s finding:\n%s", tc.service, tc.kind, text.String())
	}
	if tc.version != "" && !slices.Contains(rep.MatchesVersions, string(tc.version)) {
		t.Errorf("want the node's rules named kube-proxy %s's:\n%s", tc.version, text.String())
	}
	if tc.change == "" {
		if rep.Summary.Paths != 0 {
			t.Errorf("want no traffic change, got:\n%s", text.String())
		}
		return
	}
	if !strings.Contains(text.String(), tc.change) {
		t.Errorf("want a traffic change %q:\n%s", tc.change, text.String())
	}
}

func TestTamperingNative(t *testing.T) {
	o := testObjects(t)
	for _, tc := range tamperings {
		t.Run(string(tc.mode)+"/"+tc.name, func(t *testing.T) {
			nodeObjects := o
			if tc.extra != "" {
				nodeObjects = withExtra(t, tc.extra)
			}
			v := tc.version
			if v == "" {
				v = render.LatestKubeProxy
			}
			text := dropLines(t, nodeText(t, nodeObjects, tc.mode, v), tc.drop)
			checkFound(t, tc, runText(t, o, tc.mode, render.LatestKubeProxy, text))
		})
	}
}
