package ipvs

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/sim/model"
)

// replayed is a rendered model replayed through the three fakes.
type replayed struct {
	combined []byte
	stats    Stats
	ipvs     *ipvsTable
	sets     *ipsetState
	ipt      *iptablesDump
}

// renderAndReplay renders m, splits the combined file, replays each part
// through its validating fake, and checks that the parts equal the
// separate renderers' output and that Stats agree with what was replayed.
func renderAndReplay(t *testing.T, m *model.Model, opts Options) replayed {
	t.Helper()
	var buf bytes.Buffer
	st, err := Render(&buf, m, opts)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	parts, err := Split(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	checkSameAsSeparate(t, m, opts, parts)
	r := replayed{combined: buf.Bytes(), stats: st}
	if r.ipvs, err = replayIPVSAdm(string(parts.IPVSAdm)); err != nil {
		t.Fatal(err)
	}
	if r.sets, err = replayIPSet(string(parts.IPSet)); err != nil {
		t.Fatal(err)
	}
	if r.ipt, err = checkIPTables(string(parts.IPTables), r.sets); err != nil {
		t.Fatal(err)
	}
	checkStats(t, r, len(buf.Bytes()))
	return r
}

func checkSameAsSeparate(t *testing.T, m *model.Model, opts Options, parts Parts) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  []byte
		fn   func(*bytes.Buffer) error
	}{
		{"ipvsadm", parts.IPVSAdm, func(b *bytes.Buffer) error { _, err := RenderIPVSAdm(b, m, opts); return err }},
		{"ipset", parts.IPSet, func(b *bytes.Buffer) error { _, err := RenderIPSet(b, m, opts); return err }},
		{"iptables", parts.IPTables, func(b *bytes.Buffer) error { _, err := RenderIPTables(b, m, opts); return err }},
	} {
		var b bytes.Buffer
		if err := c.fn(&b); err != nil {
			t.Fatalf("Render %s: %v", c.name, err)
		}
		if !bytes.Equal(b.Bytes(), c.got) {
			t.Errorf("%s part of the combined file differs from Render%s output", c.name, c.name)
		}
	}
}

func checkStats(t *testing.T, r replayed, size int) {
	t.Helper()
	if got, want := r.stats.IPVSAdm.Chains, len(r.ipvs.services); got != want {
		t.Errorf("ipvsadm stats: %d virtual servers, replay has %d", got, want)
	}
	if got, want := r.stats.IPVSAdm.Rules, len(r.ipvs.services)+r.ipvs.realServerCount(); got != want {
		t.Errorf("ipvsadm stats: %d servers, replay has %d", got, want)
	}
	if r.stats.IPSet.Sets != int(numSets) || len(r.sets.sets) != int(numSets) {
		t.Errorf("ipset: stats %d sets, replay %d, want %d", r.stats.IPSet.Sets, len(r.sets.sets), numSets)
	}
	if r.stats.IPTables.Rules != r.ipt.rules {
		t.Errorf("iptables stats: %d rules, replay has %d", r.stats.IPTables.Rules, r.ipt.rules)
	}
	if r.stats.Total.Bytes != size || r.stats.Total.Lines != bytes.Count(r.combined, []byte("\n")) {
		t.Errorf("total stats %d lines %d bytes, file has %d lines %d bytes",
			r.stats.Total.Lines, r.stats.Total.Bytes, bytes.Count(r.combined, []byte("\n")), size)
	}
}

func TestRenderGolden(t *testing.T) {
	withNodeIPs := DefaultOptions()
	withNodeIPs.NodeIPs = nodeIPs
	mh := DefaultOptions()
	mh.Scheduler = "mh"
	tests := []struct {
		name string
		m    *model.Model
		opts Options
	}{
		{"two-endpoints", testModel(svc3()), DefaultOptions()},
		{"no-endpoints", testModel(svc6()), DefaultOptions()},
		{"affinity", testModel(svcAffinity()), DefaultOptions()},
		{"nodeport", testModel(svcNodePort(), svcSCTPNodePort()), withNodeIPs},
		{"scheduler-mh", testModel(svc3()), mh},
		{"zero-options", testModel(svc3()), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := renderAndReplay(t, tt.m, tt.opts)
			compareGolden(t, filepath.Join("testdata", tt.name+".golden"), r.combined)
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got)
}
