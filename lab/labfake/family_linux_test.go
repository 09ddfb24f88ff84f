package labfake

import (
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// TestFakeAppliesTheChangedFamilyOnly: on a dual-stack Service, a change of
// one family's endpoint validates and loads that family's partial payload
// alone, as kube-proxy's proxier of that family alone syncs; the other
// family's tables stay the ones the full sync left.
func TestFakeAppliesTheChangedFamilyOnly(t *testing.T) {
	web, ep := labtest.DualStackService(), labtest.ReadyEndpoint
	c := model.DefaultCluster()
	c.NodeIP = topo.DefaultNodeIP
	m := &model.Model{Cluster: c, Services: model.Slice{web}}
	for _, tc := range []struct {
		name           string
		added          string
		changed, stays model.Family
	}{
		{"an IPv4 endpoint", "10.244.0.2", model.IPv4, model.IPv6},
		{"an IPv6 endpoint", "fd00:244::2", model.IPv6, model.IPv4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := (&Machine{Seed: 1}).BuildLab(t.Context(), machine.LabSpec{Prefix: "t", Targets: model.Slice{web}, NodeName: "node-1", NodeIP: topo.DefaultNodeIP})
			if err != nil {
				t.Fatal(err)
			}
			dp, err := l.(*Lab).Dataplane(string(dataplane.IPTablesLegacy), apply.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			d := dp.(*Dataplane)
			if _, err := d.FullSync(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			before := d.dumps
			if before[model.IPv4] == nil || before[model.IPv6] == nil {
				t.Fatalf("the full sync loaded tables %v, want both families'", before)
			}
			if _, err := d.Apply(t.Context(), m, apply.Change{Service: 0, Endpoint: ep(tc.added)}); err != nil {
				t.Fatal(err)
			}
			if d.dumps[tc.stays] != before[tc.stays] {
				t.Errorf("%s tables reloaded for a change of %s", tc.stays, tc.changed)
			}
			if d.dumps[tc.changed] == before[tc.changed] {
				t.Errorf("%s tables not reloaded for a change of its endpoint", tc.changed)
			}
		})
	}
}
