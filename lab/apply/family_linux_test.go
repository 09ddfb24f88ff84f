package apply

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
)

// TestIPTablesAppliesEachFamilyWithItsOwnTool loads a hand-written IPv6
// payload with ip6tables-restore and checks that it lands in the IPv6
// tables only, that its counters are read back, and that Reset of the
// dataplane flushes both families once IPv6 was loaded.
func TestIPTablesAppliesEachFamilyWithItsOwnTool(t *testing.T) {
	for _, backend := range []string{"nft", "legacy"} {
		t.Run(backend, func(t *testing.T) {
			labtest.RequireBinary(t, "ip6tables-"+backend+"-restore")
			ns := labtest.ScratchNetns(t)
			ipt, err := NewIPTables(ns, "iptables-"+backend)
			if err != nil {
				t.Fatal(err)
			}
			ipt6 := ipt.ForFamily(model.IPv6)
			if ipt6.tool("-restore") != "ip6tables-"+backend+"-restore" || ipt.tool("-restore") != "iptables-"+backend+"-restore" {
				t.Fatalf("tools %s, %s", ipt.tool("-restore"), ipt6.tool("-restore"))
			}
			payload := "*nat\n:KUBE-SVC-V6 - [0:0]\n-A KUBE-SVC-V6 -d fd00:96::10/128 -p tcp --dport 80 -j DNAT --to-destination [fd00:10:244::10]:8080\nCOMMIT\n"
			if _, err := ipt6.Restore([]byte(payload), true); err != nil {
				t.Fatal(err)
			}
			rules, err := ipt6.Counters("nat", "KUBE-SVC-V6")
			if err != nil || len(rules) != 1 || rules[0].Rule.Target != "DNAT" {
				t.Fatalf("IPv6 chain: %+v, %v", rules, err)
			}
			v4, err := ipt.Save("nat")
			if err != nil || strings.Contains(string(v4), "KUBE-SVC-V6") {
				t.Fatalf("the IPv6 payload reached the IPv4 tables: %s, %v", v4, err)
			}
			d := &iptablesDataplane{ipt: ipt, ipt6: ipt6, v6: true}
			if err := d.Reset(context.Background()); err != nil {
				t.Fatal(err)
			}
			v6, err := ipt6.Save("nat")
			if err != nil || strings.Contains(string(v6), "KUBE-SVC-V6") {
				t.Fatalf("Reset left the IPv6 chain: %s, %v", v6, err)
			}
		})
	}
}

// TestNFTablesResetRemovesBothFamiliesTables loads kube-proxy tables in
// the ip and ip6 families and checks that Reset removes both.
func TestNFTablesResetRemovesBothFamiliesTables(t *testing.T) {
	labtest.RequireBinary(t, "nft")
	ns := labtest.ScratchNetns(t)
	p := &NFTables{Netns: ns}
	script := "table ip kube-proxy {\n}\ntable ip6 kube-proxy {\n\tchain services {\n\t\tip6 daddr fd00:96::10 tcp dport 80 accept\n\t}\n}\n"
	if _, err := p.Load([]byte(script)); err != nil {
		t.Fatal(err)
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	out, err := netns.Output(ns, nil, "nft", "list", "tables")
	if err != nil || strings.Contains(string(out), "kube-proxy") {
		t.Fatalf("tables after Reset: %s, %v", out, err)
	}
	if err := p.Reset(); err != nil {
		t.Fatalf("Reset without tables: %v", err)
	}
}

// TestIPTablesCountsBothFamiliesRecentLists: the namespace's xt_recent
// lists are one set for both families, and the dataplane counts them all
// (apply.RecentLister, what a sweep expects beside its memory charge).
func TestIPTablesCountsBothFamiliesRecentLists(t *testing.T) {
	labtest.RequireBinary(t, "ip6tables-legacy-restore")
	ns := labtest.ScratchNetns(t)
	ipt, err := NewIPTables(ns, "iptables-legacy")
	if err != nil {
		t.Fatal(err)
	}
	var d RecentLister = &iptablesDataplane{ipt: ipt, ipt6: ipt.ForFamily(model.IPv6), v6: true}
	if n, err := d.RecentLists(); err != nil || n != 0 {
		t.Fatalf("lists in a fresh namespace: %d, %v; want 0", n, err)
	}
	v4 := "*filter\n:T - [0:0]\n-A T -m recent --name A4 --set\n-A T -m recent --name B4 --set\nCOMMIT\n"
	v6 := "*filter\n:T - [0:0]\n-A T -m recent --name A6 --set\nCOMMIT\n"
	if _, err := ipt.Restore([]byte(v4), true); err != nil {
		t.Fatal(err)
	}
	if _, err := ipt.ForFamily(model.IPv6).Restore([]byte(v6), true); err != nil {
		t.Fatal(err)
	}
	if n, err := d.RecentLists(); err != nil || n != 3 {
		t.Errorf("lists after two IPv4 and one IPv6: %d, %v; want 3", n, err)
	}
	if err := d.(*iptablesDataplane).Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestIPTablesPartialSyncRestoresTheChangedFamilyOnly: on a dual-stack
// Service, an IPv4 endpoint's partial sync restores the IPv4 partial
// payload alone (the IPv6 proxier hears nothing of an IPv4 EndpointSlice),
// and an IPv6 endpoint's the IPv6 one.
func TestIPTablesPartialSyncRestoresTheChangedFamilyOnly(t *testing.T) {
	labtest.RequireBinary(t, "ip6tables-legacy-restore")
	web, ep := labtest.DualStackService(), labtest.ReadyEndpoint
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{web}}
	for _, tc := range []struct {
		added  string
		family model.Family
	}{{"10.244.0.2", model.IPv4}, {"fd00:244::2", model.IPv6}} {
		t.Run(tc.family.String(), func(t *testing.T) {
			d, err := newIPTablesDataplane(dataplane.IPTablesLegacy, Node{Netns: labtest.ScratchNetns(t)}, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = d.Close() })
			if _, err := d.FullSync(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			c := Change{Service: 0, Endpoint: ep(tc.added)}
			sync, err := d.Apply(context.Background(), m, c)
			if err != nil {
				t.Fatal(err)
			}
			mf := model.ForFamily(*c.After(m), tc.family)
			want, err := iptables.RenderPartial(io.Discard, &mf, d.(*iptablesDataplane).opts, c.Updated(m.Services.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if sync.Payload.Rules != want.Rules || sync.Payload.Bytes != want.Bytes {
				t.Errorf("partial sync restored %d rules, %d bytes; want the %s payload's alone, %d rules, %d bytes", sync.Payload.Rules, sync.Payload.Bytes, tc.family, want.Rules, want.Bytes)
			}
		})
	}
}
