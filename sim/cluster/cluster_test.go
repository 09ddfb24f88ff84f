package cluster

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/results"
)

func testMatrix() Matrix {
	return Matrix{
		Scenarios:  []string{"split-2"},
		Dataplanes: []string{string(dataplane.IPTablesNFT), string(dataplane.NFTables)},
		Versions:   []string{string(render.LatestKubeProxy)},
		Pools: []Pool{
			{Name: "a", Selector: map[string]string{"pool": "a"}},
			{Name: "b", Selector: map[string]string{"pool": "b"}},
		},
	}
}

func TestParsePool(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Pool
		wantErr string
	}{
		{in: "c5=node.kubernetes.io/instance-type=c5.xlarge", want: Pool{Name: "c5", Selector: map[string]string{"node.kubernetes.io/instance-type": "c5.xlarge"}}},
		{in: "p=a=1,b=2", want: Pool{Name: "p", Selector: map[string]string{"a": "1", "b": "2"}}},
		{in: "nolabels", wantErr: "want NAME=LABEL=VALUE"},
		{in: "Big=a=1", wantErr: "lower-case"},
		{in: "p=a=1,b", wantErr: `"b" is not LABEL=VALUE`},
	} {
		got, err := ParsePool(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParsePool(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got.Name != tc.want.Name || len(got.Selector) != len(tc.want.Selector) {
			t.Errorf("ParsePool(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		for k, v := range tc.want.Selector {
			if got.Selector[k] != v {
				t.Errorf("ParsePool(%q) selector %s = %q, want %q", tc.in, k, got.Selector[k], v)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(*Matrix)
		wantErr string
	}{
		{name: "ok", edit: func(*Matrix) {}},
		{name: "no pool", edit: func(m *Matrix) { m.Pools = nil }, wantErr: "no pool"},
		{name: "repeated dataplane", edit: func(m *Matrix) { m.Dataplanes = append(m.Dataplanes, m.Dataplanes[0]) }, wantErr: "listed twice"},
		{name: "unknown dataplane", edit: func(m *Matrix) { m.Dataplanes = []string{"pf"} }, wantErr: `dataplane "pf"`},
		{name: "unknown version", edit: func(m *Matrix) { m.Versions = []string{"1.20"} }, wantErr: `version "1.20"`},
	} {
		m := testMatrix()
		tc.edit(&m)
		err := m.Validate()
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestJobsOnePerPoolOneIndexPerCell(t *testing.T) {
	m := testMatrix()
	jobs, err := Jobs(m, JobOptions{Image: "svclab:test", Namespace: "lab", RunID: "r1", Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != len(m.Pools) {
		t.Fatalf("%d jobs, want one per pool (%d)", len(jobs), len(m.Pools))
	}
	for i, j := range jobs {
		pool := m.Pools[i]
		spec := j.Spec.Template.Spec
		c := spec.Containers[0]
		switch {
		case j.Name != JobName("r1", pool.Name):
			t.Errorf("job %d name %q", i, j.Name)
		case *j.Spec.Completions != 2 || *j.Spec.CompletionMode != "Indexed":
			t.Errorf("job %s: completions %d mode %s, want 2 Indexed", j.Name, *j.Spec.Completions, *j.Spec.CompletionMode)
		case *j.Spec.BackoffLimitPerIndex != 2:
			t.Errorf("job %s: backoffLimitPerIndex %d", j.Name, *j.Spec.BackoffLimitPerIndex)
		case spec.NodeSelector["pool"] != pool.Name:
			t.Errorf("job %s: node selector %v", j.Name, spec.NodeSelector)
		case c.SecurityContext == nil || !*c.SecurityContext.Privileged:
			t.Errorf("job %s: not privileged", j.Name)
		case spec.HostNetwork:
			t.Errorf("job %s: in the host's network namespace", j.Name)
		}
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		for idx := range 2 {
			cell, err := CellFor(env[CellsEnv], string(rune('0'+idx)))
			if err != nil || cell.Pool != pool.Name || cell.Dataplane != m.Dataplanes[idx] {
				t.Errorf("job %s index %d: cell %+v, %v", j.Name, idx, cell, err)
			}
		}
		if _, err := CellFor(env[CellsEnv], "2"); err == nil {
			t.Errorf("job %s: index 2 found a cell", j.Name)
		}
	}
}

func TestPackUnpackRoundTrip(t *testing.T) {
	run := fstest.MapFS{
		"results.jsonl": {Data: []byte(`{"type":"meta"}` + "\n")},
		"plots/a.svg":   {Data: bytes.Repeat([]byte("x"), 10000)},
	}
	var log bytes.Buffer
	log.WriteString("progress line\n")
	if err := Pack(&log, fstest.MapFS{"old": {Data: []byte("first attempt")}}); err != nil {
		t.Fatal(err)
	}
	if err := Pack(&log, run); err != nil {
		t.Fatal(err)
	}
	log.WriteString("trailing stderr\n")
	dir := t.TempDir()
	if err := Unpack(&log, dir); err != nil {
		t.Fatal(err)
	}
	for name, f := range run {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s: %d bytes, %v; want %d", name, len(got), err, len(f.Data))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "old")); err == nil {
		t.Errorf("the earlier archive was extracted; want only the last")
	}
}

func TestUnpackRefuses(t *testing.T) {
	var evil bytes.Buffer
	gz := gzip.NewWriter(&evil)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "../escape", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644})
	tw.Write([]byte("x"))
	tw.Close()
	gz.Close()
	for _, tc := range []struct {
		name, log, wantErr string
	}{
		{"no archive", "only progress\n", ErrNoArchive.Error()},
		{"cut", beginMarker + "\nAAAA\n", ErrNoArchive.Error()},
		{"escape", beginMarker + "\n" + base64.StdEncoding.EncodeToString(evil.Bytes()) + "\n" + endMarker + "\n", "leaves the run directory"},
	} {
		err := Unpack(strings.NewReader(tc.log), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: Unpack() = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestSamplesRefuseMixedCPU(t *testing.T) {
	cell := func(dir, pool, cpu string) MergedCell {
		return MergedCell{Dir: dir, Info: CellInfo{Cell: Cell{Pool: pool, Scenario: "split-2", Dataplane: "d", Version: "1.37"}},
			Meta: &results.Meta{CPU: cpu}, Summary: &results.Summary{}}
	}
	// Two pools on different CPUs are two samples.
	s, err := Samples([]MergedCell{cell("x", "a", "Xeon"), cell("y", "b", "EPYC"), cell("z", "a", "Xeon")})
	if err != nil || len(s) != 2 || len(s[0].Cells) != 2 {
		t.Fatalf("Samples = %+v, %v; want 2 samples, the first of 2 cells", s, err)
	}
	// One pool on two CPUs is refused.
	_, err = Samples([]MergedCell{cell("x", "a", "Xeon"), cell("y", "a", "EPYC")})
	if !errors.Is(err, ErrMixedCPU) || !strings.Contains(err.Error(), "x") || !strings.Contains(err.Error(), "EPYC") {
		t.Errorf("Samples(mixed) = %v, want ErrMixedCPU naming both", err)
	}
}
