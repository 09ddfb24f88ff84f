package audit_test

import (
	"testing"

	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
)

// tamperings are edits of native kube-proxy's rules, in every mode.
var tamperings = []audittest.Tampering{
	{Name: "rule deleted", Mode: dataplane.ModeIPTables, Drop: []string{"ns7/web:http -> 10.180.0.72:8080"},
		Service: "ns7/web", Kind: audit.Missing, Change: "endpoint 10.180.0.72:8080 gone"},
	{Name: "stale chains of a deleted Service", Mode: dataplane.ModeIPTables, Extra: audittest.DeletedService,
		Service: "ns8/old", Kind: audit.Stale, Change: "traffic still reaches 10.180.0.81:80"},
	{Name: "stale endpoint", Mode: dataplane.ModeIPTables, Extra: audittest.GoneEndpoint,
		Service: "ns7/web", Kind: audit.Stale, Change: "stale endpoint 10.180.0.74:8080 still receives 25%"},
	{Name: "jump from PREROUTING deleted", Mode: dataplane.ModeIPTables, Drop: []string{"-A PREROUTING"},
		Service: "", Kind: audit.Missing, Change: "traffic dropped"},
	{Name: "another version's layout", Mode: dataplane.ModeNFTables, Version: "1.35",
		Service: "ns7/web", Kind: audit.Missing},
	{Name: "map element missing", Mode: dataplane.ModeNFTables, Drop: []string{"service-ips { 172.30.0.47 . tcp . 80"},
		Service: "ns7/web", Kind: audit.Missing, Change: "traffic dropped"},
	{Name: "stale map elements of a deleted Service", Mode: dataplane.ModeNFTables, Extra: audittest.DeletedService,
		Service: "ns8/old", Kind: audit.Stale, Change: "traffic still reaches 10.180.0.81:80"},
	{Name: "stale endpoint", Mode: dataplane.ModeNFTables, Extra: audittest.GoneEndpoint,
		Service: "ns7/web", Kind: audit.Stale, Change: "stale endpoint 10.180.0.74:8080 still receives 25%"},
	{Name: "real server deleted", Mode: dataplane.ModeIPVS, Drop: []string{"-a -t 172.30.0.47:80 -r 10.180.0.72:8080"},
		Service: "ns7/web", Kind: audit.Missing, Change: "endpoint 10.180.0.72:8080 gone"},
	{Name: "virtual server of a deleted Service", Mode: dataplane.ModeIPVS, Extra: audittest.DeletedService,
		Service: "-t 172.30.0.48:80", Kind: audit.Stale, Change: "traffic still reaches 10.180.0.81:80"},
	{Name: "ipset member missing", Mode: dataplane.ModeIPVS, Drop: []string{"add KUBE-CLUSTER-IP 172.30.0.47,tcp:80"},
		Service: "ns7/web", Kind: audit.Missing, Change: "traffic dropped: no endpoint is reached (verdict REJECT)"},
}

func TestTamperingNative(t *testing.T) {
	o := audittest.Objects(t)
	for _, tc := range tamperings {
		t.Run(string(tc.Mode)+"/"+tc.Name, func(t *testing.T) {
			nodeObjects := o
			if tc.Extra != "" {
				nodeObjects = audittest.Objects(t, tc.Extra)
			}
			v := tc.Version
			if v == "" {
				v = render.LatestKubeProxy
			}
			text := audittest.DropLines(t, nodeText(t, nodeObjects, tc.Mode, v), tc.Drop)
			audittest.Check(t, tc, runText(t, o, tc.Mode, render.LatestKubeProxy, text))
		})
	}
}
