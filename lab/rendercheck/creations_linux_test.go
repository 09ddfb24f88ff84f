package rendercheck

import (
	"bytes"
	"context"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
)

// TestPartialSyncsCreateServices creates services in one partial sync
// (apply.Change.Created, what a sweep's batch of Service creations times)
// on top of an endpoint change, through every dataplane the registry says
// does so, and checks that the kernel then holds what a full sync of the
// resulting model loads: the iptables nat table, or the nftables table's
// chains, rules and elements.
func TestPartialSyncsCreateServices(t *testing.T) {
	labtest.RequireRoot(t)
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 8, EndpointsPerService: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var all model.Slice
	for i := range gen.Len() {
		all = append(all, *gen.At(i))
	}
	before := &model.Model{Cluster: model.DefaultCluster(), Services: all[:5]}
	extra := model.Endpoint{IP: all[7].Endpoints[0].IP.Next(), Ready: true, Node: "node-1"}
	change := apply.Change{Service: 2, Endpoint: extra, Created: all[5:]}
	after := change.After(before)
	if after.Services.Len() != 8 || len(after.Services.At(2).Endpoints) != 3 || after.Services.At(7).Name != all[7].Name {
		t.Fatalf("Change.After: %d services, service 2 has %d endpoints", after.Services.Len(), len(after.Services.At(2).Endpoints))
	}
	for _, info := range dataplane.All() {
		if !info.PartialCreates {
			continue
		}
		for _, version := range []render.KubeProxyVersion{render.KubeProxy135, ""} {
			t.Run(string(info.Name)+"/"+string(version.OrLatest()), func(t *testing.T) {
				checkCreations(t, info, render.Config{Version: version}, before, change)
			})
		}
	}
}

// checkCreations loads before into a scratch namespace with dataplane
// info, applies change, and compares the kernel with a full sync of the
// model after it.
func checkCreations(t *testing.T, info dataplane.Info, config render.Config, before *model.Model, change apply.Change) {
	for _, tool := range info.Tools {
		labtest.RequireBinary(t, tool)
	}
	ctx := context.Background()
	after := change.After(before)
	open := func() (string, apply.Dataplane) {
		ns := labtest.ScratchNetns(t)
		dp, err := apply.Open(string(info.Name), apply.Node{Netns: ns}, apply.Settings{Config: config})
		if err != nil {
			t.Fatal(err)
		}
		return ns, dp
	}
	ns, dp := open()
	if _, err := dp.FullSync(ctx, before); err != nil {
		t.Fatal(err)
	}
	if _, err := dp.Apply(ctx, before, change); err != nil {
		t.Fatalf("partial sync creating %d services: %v", len(change.Created), err)
	}
	if info.Mode == dataplane.ModeNFTables {
		var want bytes.Buffer
		if _, err := rendernft.Render(&want, after, rendernft.OptionsFor(config)); err != nil {
			t.Fatal(err)
		}
		compareListing(t, want.String(), string(nft(t, ns, nil, "list", "table", "ip", "kube-proxy")))
		return
	}
	save := info.Tools[2]
	fresh, full := open()
	if _, err := full.FullSync(ctx, after); err != nil {
		t.Fatal(err)
	}
	if got, want := natRules(t, ns, save), natRules(t, fresh, save); got != want {
		t.Fatalf("after the partial sync the nat table is\n%s\nbut a full sync gives\n%s", got, want)
	}
}

// TestDataplanesWithoutPartialCreatesRefuseThem checks that the
// dataplanes the registry says create no services in a partial sync
// refuse a change that does, rather than dropping the creations.
func TestDataplanesWithoutPartialCreatesRefuseThem(t *testing.T) {
	c := apply.Change{Service: -1, Created: []model.Service{{Name: "new"}}}
	if err := c.RefuseCreations(string(dataplane.IPVS)); err == nil {
		t.Fatal("RefuseCreations accepted a creation")
	}
	if err := (apply.Change{Service: 0}).RefuseCreations(string(dataplane.IPVS)); err != nil {
		t.Fatalf("RefuseCreations refused an endpoint change: %v", err)
	}
	if _, err := apply.OneByOne(context.Background(), &model.Model{}, c, nil); err == nil {
		t.Fatal("OneByOne dropped the creations instead of refusing them")
	}
}
