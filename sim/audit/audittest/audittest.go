// Package audittest holds what the tests of svclab audit share (sim/audit's
// and lab/auditcheck's): the test cluster and the out-of-date objects a
// node was programmed with (embedded), the tamperings' expectations and the
// check that a report meets them, and the line edits that tamper with a
// dump.
package audittest

import (
	"bytes"
	"embed"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

//go:embed testdata/*.yaml
var files embed.FS

// The objects a node was programmed with before the cluster changed
// (items appended to the cluster): ns8/old, since deleted, and a fourth
// endpoint of ns7/web, since gone.
const (
	DeletedService = "deleted-service.items.yaml"
	GoneEndpoint   = "gone-endpoint.items.yaml"
)

// ClusterFile is the test cluster's file name (testdata/cluster.yaml).
const ClusterFile = "cluster.yaml"

// Objects decodes the test cluster with the items of the extra files
// appended.
func Objects(t testing.TB, extra ...string) *objects.Objects {
	t.Helper()
	var raw []byte
	for _, name := range append([]string{ClusterFile}, extra...) {
		b, err := files.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, b...)
	}
	o, err := objects.Decode(strings.Join(append([]string{ClusterFile}, extra...), "+"), raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Tampering is one way a node's rules go wrong, and what the audit must
// say about it.
type Tampering struct {
	Name string
	// Mode limits the tampering to one mode ("": every mode tested).
	Mode dataplane.Mode
	// Extra is a testdata file of objects the node was programmed with
	// besides the cluster's; Version the kube-proxy that programmed it
	// ("": the audited one); MasqueradeAll, whether it ran with
	// --masquerade-all (a flag the audit is not told of).
	Extra         string
	Version       render.KubeProxyVersion
	MasqueradeAll bool
	// Drop edits the node's rules: every line holding one of the strings
	// goes; Del is an nft command run on a kernel node.
	Drop []string
	Del  []string
	// The audit must name Service with a finding of Kind, and a traffic
	// change holding Change ("": the traffic must not change).
	Service string
	Kind    audit.Kind
	Change  string
}

// Check holds a report to the tampering's expectations.
func Check(t testing.TB, tc Tampering, rep *audit.Report) {
	t.Helper()
	text := ReportText(rep)
	if rep.Clean() {
		t.Fatalf("a tampered node (%s) is reported clean", tc.Name)
	}
	i := slices.IndexFunc(rep.Services, func(s audit.ServiceReport) bool { return s.Service == tc.Service })
	if i < 0 {
		t.Fatalf("no finding for Service %q:\n%s", tc.Service, text)
	}
	if !slices.ContainsFunc(rep.Services[i].Findings, func(f audit.Finding) bool { return f.Kind == tc.Kind }) {
		t.Errorf("Service %q has no %s finding:\n%s", tc.Service, tc.Kind, text)
	}
	if tc.Version != "" && !slices.Contains(rep.MatchesVersions, string(tc.Version)) {
		t.Errorf("want the node's rules named kube-proxy %s's:\n%s", tc.Version, text)
	}
	switch {
	case tc.Change == "" && rep.Summary.Paths != 0:
		t.Errorf("want no traffic change, got:\n%s", text)
	case tc.Change != "" && !strings.Contains(text, tc.Change):
		t.Errorf("want a traffic change %q:\n%s", tc.Change, text)
	}
}

// ReportText is the report as svclab audit prints it.
func ReportText(rep *audit.Report) string {
	var b bytes.Buffer
	_ = rep.WriteText(&b)
	return b.String()
}

// DropLines removes every line holding one of drop; a drop that removes
// nothing fails the test.
func DropLines(t testing.TB, text string, drop []string) string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if !slices.ContainsFunc(drop, func(d string) bool { return strings.Contains(line, d) }) {
			out = append(out, line)
		}
	}
	if len(drop) > 0 && len(out) == strings.Count(text, "\n")+1 {
		t.Fatalf("no line holds %q in\n%s", drop, text)
	}
	return strings.Join(out, "\n")
}
