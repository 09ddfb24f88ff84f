package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/svclab/svclab/sim/atomicfile"
	"github.com/svclab/svclab/sim/results"
)

// CellFile is the file `svclab cluster cell` adds to its run directory:
// which cell it measured, on which node.
const CellFile = "cell.json"

// CellInfo is CellFile's content.
type CellInfo struct {
	Cell
	Node string `json:"node,omitempty"`
}

// MergedCell is one cell's run directory as merge reads it.
type MergedCell struct {
	Dir     string           `json:"dir"`
	Info    CellInfo         `json:"cell"`
	Meta    *results.Meta    `json:"meta"`
	Summary *results.Summary `json:"summary"`
}

// Sample is the cells of one pool that measured the same scenario,
// dataplane and kube-proxy version: one sample, on one CPU model.
type Sample struct {
	Key   string       `json:"key"`
	CPU   string       `json:"cpu"`
	Cells []MergedCell `json:"cells"`
}

// ErrMixedCPU is returned when a sample's cells ran on different CPU
// models: their timings are not one sample.
var ErrMixedCPU = errors.New("cells of one sample ran on different CPU models")

// LoadCell reads a cell's run directory: cell.json, meta.json and
// summary.json (a run directory without cell.json, from svclab run, is a
// cell of pool "local" whose scenario and version its meta.json names).
func LoadCell(dir string) (MergedCell, error) {
	meta, err := results.ReadMeta(dir)
	if err != nil {
		return MergedCell{}, fmt.Errorf("cell %s: %w", dir, err)
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return MergedCell{}, fmt.Errorf("cell %s: %w (svclab report %s writes it from results.jsonl)", dir, err, dir)
	}
	info := CellInfo{Cell: Cell{Pool: "local", Scenario: meta.Scenario, Version: meta.KubeProxyVersion, Dataplane: dataplanesOf(sum)}, Node: meta.Hostname}
	b, err := os.ReadFile(filepath.Join(dir, CellFile))
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &info); err != nil {
			return MergedCell{}, fmt.Errorf("cell %s: %s: %w", dir, CellFile, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return MergedCell{}, fmt.Errorf("cell %s: %w", dir, err)
	}
	return MergedCell{Dir: dir, Info: info, Meta: meta, Summary: sum}, nil
}

func dataplanesOf(s *results.Summary) string {
	seen := map[string]bool{}
	for _, r := range s.Runs {
		seen[r.Dataplane] = true
	}
	for _, p := range s.Points {
		seen[p.Dataplane] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// Samples groups cells by pool, scenario, dataplane and kube-proxy version,
// in that order. A group whose cells ran on different CPU models is
// refused (ErrMixedCPU, naming the cells): a pool mixing instance types is
// split by a narrower selector, not averaged.
func Samples(cells []MergedCell) ([]Sample, error) {
	byKey := map[string]*Sample{}
	var keys []string
	for _, c := range cells {
		k := c.Info.Label()
		s := byKey[k]
		if s == nil {
			s = &Sample{Key: k, CPU: c.Meta.CPU}
			byKey[k] = s
			keys = append(keys, k)
		}
		if c.Meta.CPU != s.CPU {
			return nil, fmt.Errorf("%w: %s: %s has %q, %s has %q (give the pool a selector that picks one machine type, e.g. node.kubernetes.io/instance-type)",
				ErrMixedCPU, k, s.Cells[0].Dir, s.CPU, c.Dir, c.Meta.CPU)
		}
		s.Cells = append(s.Cells, c)
	}
	sort.Strings(keys)
	out := make([]Sample, len(keys))
	for i, k := range keys {
		out[i] = *byKey[k]
	}
	return out, nil
}

// WriteSample writes a sample as one run directory under dir/KEY: meta.json
// of its first cell, every cell's results.jsonl records in turn and, for a
// single cell, its summary; svclab compare and gate read it as one run.
func WriteSample(dir string, s Sample) (string, error) {
	out := filepath.Join(dir, s.Key)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("sample %s: %w", s.Key, err)
	}
	var jsonl []byte
	for _, c := range s.Cells {
		b, err := os.ReadFile(filepath.Join(c.Dir, results.ResultsFile))
		if err != nil {
			return "", fmt.Errorf("sample %s: %w", s.Key, err)
		}
		jsonl = append(jsonl, b...)
	}
	if err := atomicfile.Write(filepath.Join(out, results.ResultsFile), jsonl, 0o644); err != nil {
		return "", fmt.Errorf("sample %s: %w", s.Key, err)
	}
	if err := results.WriteJSON(out, "meta.json", s.Cells[0].Meta); err != nil {
		return "", fmt.Errorf("sample %s: %w", s.Key, err)
	}
	if len(s.Cells) > 1 {
		return out, nil // svclab report OUT summarises the pooled records
	}
	if err := results.WriteJSON(out, "summary.json", s.Cells[0].Summary); err != nil {
		return "", fmt.Errorf("sample %s: %w", s.Key, err)
	}
	return out, nil
}
