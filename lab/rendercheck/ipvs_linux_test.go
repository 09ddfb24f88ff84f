package rendercheck

import (
	"bytes"
	"fmt"
	"net/netip"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// The IPVS table itself (ipvsadm -R) cannot be loaded here: the host
// kernel has no IPVS. sim/render/ipvs checks that payload against a replay
// of ipvsadm's own parser instead.

// TestIPVSPayloadsLoad loads the ipset payload with the real ipset in a
// scratch namespace, then the iptables payload with both iptables backends:
// --test first, then for real with the jump rules, and reads both back.
func TestIPVSPayloadsLoad(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "ipset")
	m, opts := ipvsLabModel(t)
	var combined bytes.Buffer
	st, err := ipvs.Render(&combined, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := ipvs.Split(&combined)
	if err != nil {
		t.Fatal(err)
	}
	rootSets := ipvsRootSets(t)
	for _, backend := range []string{"legacy", "nft"} {
		t.Run(backend, func(t *testing.T) {
			restore := "iptables-" + backend + "-restore"
			labtest.RequireBinary(t, restore)
			ns := labtest.ScratchNetns(t)
			ipvsRestoreSets(t, ns, parts.IPSet, st.IPSet.Elements)
			if _, err := netns.Output(ns, parts.IPTables, restore, "--test", "--noflush"); err != nil {
				t.Fatalf("%s --test rejected the ipvs-mode payload: %v", restore, err)
			}
			if _, err := netns.Output(ns, parts.IPTables, restore, "--noflush", "--counters"); err != nil {
				t.Fatalf("%s rejected the ipvs-mode payload: %v", restore, err)
			}
			var jumps bytes.Buffer
			jst, err := ipvs.RenderJumps(&jumps)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := netns.Output(ns, jumps.Bytes(), restore, "--noflush"); err != nil {
				t.Fatalf("%s rejected the ipvs-mode jump rules: %v", restore, err)
			}
			saved, err := netns.Output(ns, nil, "iptables-"+backend+"-save")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Count(string(saved), "\n-A "), st.IPTables.Rules+jst.Rules; got != want {
				t.Fatalf("kernel holds %d rules, want %d:\n%s", got, want, saved)
			}
			if refs := ipvsSetHeader(t, ns, "KUBE-CLUSTER-IP", "References"); refs == 0 {
				t.Error("KUBE-CLUSTER-IP has no references after loading the iptables payload")
			}
		})
	}
	if after := ipvsRootSets(t); after != rootSets {
		t.Fatalf("root namespace ipsets changed: before %q, after %q", rootSets, after)
	}
}

// TestIPVSMaxElemRaised loads a set with more than 65536 members, which
// only works because the renderer raises maxelem, and shows the kernel
// refusing the same payload with kube-proxy's fixed maxelem 65536.
func TestIPVSMaxElemRaised(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "ipset")
	if testing.Short() {
		t.Skip("-short: skipping the 70,000-member ipset load")
	}
	const services = 70_000
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: services, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var payload bytes.Buffer
	st, err := ipvs.RenderIPSet(&payload, &model.Model{Cluster: model.DefaultCluster(), Services: gen}, ipvs.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ns := labtest.ScratchNetns(t)
	ipvsRestoreSets(t, ns, payload.Bytes(), st.Elements)
	if got := ipvsSetHeader(t, ns, "KUBE-CLUSTER-IP", "maxelem"); got != 131072 {
		t.Errorf("KUBE-CLUSTER-IP maxelem = %d, want 131072", got)
	}
	if got := ipvsSetHeader(t, ns, "KUBE-CLUSTER-IP", "Number of entries"); got != services {
		t.Errorf("KUBE-CLUSTER-IP holds %d entries, want %d", got, services)
	}

	fixed := bytes.ReplaceAll(payload.Bytes(), []byte("maxelem 131072"), []byte("maxelem 65536"))
	strict := labtest.ScratchNetns(t)
	if _, err := netns.Output(strict, fixed, "ipset", "restore"); err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("ipset restore with maxelem 65536 and %d members: err = %v, want a full-set error", services, err)
	}
}

// ipvsLabModel is a generated cluster plus NodePort services on every
// protocol, so every rule kube-proxy can write for this model appears.
func ipvsLabModel(t *testing.T) (*model.Model, ipvs.Options) {
	t.Helper()
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 200, EndpointsPerService: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var nodePorts model.Slice
	for i, proto := range []model.Protocol{model.TCP, model.UDP, model.SCTP} {
		nodePorts = append(nodePorts, model.Service{
			Namespace: "np", Name: "svc-" + proto.Lower(), Type: model.NodePort,
			ClusterIP: netip.AddrFrom4([4]byte{172, 30, 0, byte(50 + i)}),
			Ports:     []model.Port{{Name: "p", Protocol: proto, Port: 80, TargetPort: 8080, NodePort: 30080 + i}},
			Endpoints: []model.Endpoint{{IP: netip.AddrFrom4([4]byte{10, 244, 0, byte(2 + i)}), Ready: true, Node: "node-1"}},
		})
	}
	opts := ipvs.DefaultOptions()
	opts.NodeIPs = []netip.Addr{netip.MustParseAddr("192.168.0.2")}
	return &model.Model{Cluster: model.DefaultCluster(), Services: model.Place(nodePorts, gen, model.Position{Kind: model.PositionMiddle})}, opts
}

// ipvsRestoreSets loads an ipset payload into ns and checks that the
// kernel holds all 17 sets and every member.
func ipvsRestoreSets(t *testing.T, ns string, payload []byte, members int) {
	t.Helper()
	if _, err := netns.Output(ns, payload, "ipset", "restore"); err != nil {
		t.Fatalf("ipset restore rejected the payload: %v", err)
	}
	names, err := netns.Output(ns, nil, "ipset", "list", "-n")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, name := range strings.Fields(string(names)) {
		total += ipvsSetHeader(t, ns, name, "Number of entries")
	}
	if n := len(strings.Fields(string(names))); n != 17 || total != members {
		t.Fatalf("netns %s holds %d sets with %d members, want 17 sets with %d", ns, n, total, members)
	}
}

// ipvsSetHeader reads a number from `ipset list -t`: "maxelem",
// "References" or "Number of entries".
func ipvsSetHeader(t *testing.T, ns, set, field string) int {
	t.Helper()
	out, err := netns.Output(ns, nil, "ipset", "list", "-t", set)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(regexp.QuoteMeta(field) + `:? (\d+)`)
	match := re.FindSubmatch(out)
	if match == nil {
		t.Fatalf("no %q in `ipset list -t %s` in netns %s:\n%s", field, set, ns, out)
	}
	n, _ := strconv.Atoi(string(match[1]))
	return n
}

// ipvsRootSets lists the root namespace's ipsets, to prove the tests leave
// them alone.
func ipvsRootSets(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("ipset", "list", "-n").Output()
	if err != nil {
		t.Fatal(fmt.Errorf("list root namespace ipsets: %w", err))
	}
	return string(out)
}
