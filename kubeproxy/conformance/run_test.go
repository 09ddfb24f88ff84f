package conformance

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/klog/v2"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// nodeIP is the node address both engines are given (IPVS NodePorts).
var nodeIP = netip.MustParseAddr("192.168.0.2")

func TestMain(m *testing.M) {
	klog.InitFlags(nil)
	_ = flag.Set("logtostderr", "false")
	_ = flag.Set("alsologtostderr", "false")
	_ = flag.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	flag.Parse()
	os.Exit(m.Run())
}

// models returns the case's states as models of its cluster, for the
// proxier of family f (whole models: kube-proxy filters by family).
func models(tc *Case, f model.Family) []*model.Model {
	c := tc.Cluster
	if !c.ClusterCIDR.IsValid() { // a case built by hand
		c = model.DefaultCluster()
		c.NodeIP = nodeIP
	}
	var out []*model.Model
	for _, s := range tc.States() {
		out = append(out, &model.Model{Cluster: c, Services: s, Family: f})
	}
	return out
}

// project returns the models as the native renderer is given them: each
// projected onto its family (model.ForFamily).
func project(ms []*model.Model) []*model.Model {
	out := make([]*model.Model, len(ms))
	for i, m := range ms {
		p := model.ForFamily(*m, m.Family)
		out[i] = &p
	}
	return out
}

// families returns the families a case is compared for (IPv4 for a case
// built by hand).
func families(tc *Case) []model.Family {
	if len(tc.Families) == 0 {
		return []model.Family{model.IPv4}
	}
	return tc.Families
}

// kubeProxy renders the models with kube-proxy's own proxier in mode and
// flags: one Sync for the first sync and one per change.
func kubeProxy(mode string, flags render.Flags, ms []*model.Model) ([]kube.Sync, error) {
	req, err := kube.NewRequest(mode, render.Config{Flags: flags}, ms[0], ms[1:]...)
	if err != nil {
		return nil, err
	}
	return renderRequest(req)
}

// renderRequest runs req through the driver in render mode.
func renderRequest(req *kube.Request) ([]kube.Sync, error) {
	var syncs []kube.Sync
	err := driver.Run(context.Background(), req, true, nil, func(s kube.Sync) error {
		if s.Error != "" {
			return fmt.Errorf("sync %d: %s", s.Index, s.Error)
		}
		syncs = append(syncs, s)
		return nil
	})
	return syncs, err
}

// clusters is how many cases each mode runs (SVCLAB_CONFORMANCE_CLUSTERS,
// default 1000).
func clusters(t *testing.T) int {
	n := 1000
	if v := os.Getenv("SVCLAB_CONFORMANCE_CLUSTERS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("SVCLAB_CONFORMANCE_CLUSTERS=%q: want a positive number", v)
		}
	}
	return n
}

// enabled reports whether mode is in SVCLAB_CONFORMANCE_MODES (a comma
// list; unset or empty means every mode).
func enabled(mode string) bool {
	v := os.Getenv("SVCLAB_CONFORMANCE_MODES")
	if v == "" {
		return true
	}
	for _, m := range strings.Split(v, ",") {
		if strings.TrimSpace(m) == mode {
			return true
		}
	}
	return false
}

// comparer compares kube-proxy's syncs of a case with the native
// renderer's (of the models with kube-proxy's flags): "" when they agree,
// else a description and diff of the first sync that differs.
type comparer func(ms []*model.Model, flags render.Flags, kp []kube.Sync) (string, error)

// check runs one case through both engines, for each of its families:
// kube-proxy's proxier of that family is given the whole objects, the
// native renderer the model projected onto the family.
func check(mode string, cmp comparer, tc *Case) (string, int, error) {
	syncs := 0
	for _, f := range families(tc) {
		ms := models(tc, f)
		kp, err := kubeProxy(mode, tc.Flags, ms)
		if err != nil {
			return "", syncs, fmt.Errorf("kube-proxy %s %s: %w", mode, f, err)
		}
		syncs += len(kp)
		d, err := cmp(project(ms), tc.Flags, kp)
		if err != nil || d != "" {
			if d != "" && len(families(tc)) > 1 {
				d = strings.Replace(d, "\n", fmt.Sprintf(" [%s proxier]\n", f), 1)
			}
			return d, syncs, err
		}
	}
	return "", syncs, nil
}

// runSuite generates the cases of one mode and reports the differences,
// shrinking the first of each kind to the smallest case that still shows
// it.
func runSuite(t *testing.T, mode string, cmp comparer) {
	if !enabled(mode) {
		t.Skipf("%s not in SVCLAB_CONFORMANCE_MODES=%q", mode, os.Getenv("SVCLAB_CONFORMANCE_MODES"))
	}
	n := clusters(t)
	features, err := suiteFeatures(mode)
	if err != nil {
		t.Fatal(err)
	}
	syncs, differ := 0, 0
	kinds := map[string]int{}
	var shown int
	for seed := range uint64(n) {
		tc := Generate(seed, features)
		d, k, err := check(mode, cmp, tc)
		if err != nil {
			t.Fatalf("case %d: %v", seed, err)
		}
		syncs += k
		if d == "" {
			continue
		}
		differ++
		kind := syncKindOf(d) + ": " + diffKind(d)
		kinds[kind]++
		if kinds[kind] == 1 && shown < showLimit() {
			shown++
			small, sd := shrink(mode, cmp, tc, d)
			t.Errorf("%s %s: case %d differs; smallest case that still differs:\n%s\n%s", mode, driver.Version(), seed, describeCase(small), sd)
		}
	}
	report := t.Logf
	if differ > 0 {
		report = t.Errorf
	}
	report("%s %s: %d clusters, %d syncs, %d clusters differ (features: %s)", mode, driver.Version(), n, syncs, differ, features)
	for _, k := range sortedKeys(kinds) {
		report("  %d× %s", kinds[k], k)
	}
}

// syncKind names a sync for messages.
func syncKind(s kube.Sync) string {
	if s.Full {
		return "full"
	}
	return "partial"
}

// syncKindOf returns "full" or "partial" from a difference's first line.
func syncKindOf(d string) string {
	if strings.Contains(firstLine(d), "(partial)") {
		return "partial sync"
	}
	return "full sync"
}

// showLimit is how many kinds of difference are shrunk and printed
// (SVCLAB_CONFORMANCE_SHOW, default 3).
func showLimit() int {
	if n, err := strconv.Atoi(os.Getenv("SVCLAB_CONFORMANCE_SHOW")); err == nil {
		return n
	}
	return 3
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	return keys
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func describeCase(tc *Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, features %s, families %v, %d services:\n", tc.Seed, tc.Features, families(tc), len(tc.Services))
	if p := tc.Flags; p.MasqueradeAll || p.NoLocalhostNodePorts || p.NodePortPrimary || len(p.NodePortAddresses) > 0 || tc.Cluster.NodeZone != "" {
		fmt.Fprintf(&b, "  kube-proxy: masqueradeAll=%v localhostNodePorts=%v nodePortAddresses=%v primary=%v nodeZone=%q\n",
			p.MasqueradeAll, !p.NoLocalhostNodePorts, p.NodePortAddresses, p.NodePortPrimary, tc.Cluster.NodeZone)
	}
	for _, s := range tc.Services {
		fmt.Fprintf(&b, "  %s\n", describeService(&s))
	}
	for i, c := range tc.Changes {
		fmt.Fprintf(&b, "change %d: %s\n", i+1, c)
	}
	return b.String()
}
