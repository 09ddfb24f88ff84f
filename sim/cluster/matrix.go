package cluster

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
)

// Pool is a node pool: the nodes its label selector matches.
type Pool struct {
	Name     string            `json:"name"`
	Selector map[string]string `json:"selector"`
}

// Matrix is what `svclab cluster run` measures: every scenario with every
// dataplane and kube-proxy version, on every pool.
type Matrix struct {
	Scenarios  []string `json:"scenarios"`
	Dataplanes []string `json:"dataplanes"`
	Versions   []string `json:"versions"`
	// Engine is the run's --engine ("" keeps the scenario's).
	Engine string `json:"engine,omitempty"`
	Pools  []Pool `json:"pools"`
}

// Cell is one run: a scenario with one dataplane and kube-proxy version on
// one pool. Index is its JOB_COMPLETION_INDEX in its pool's Job.
type Cell struct {
	Index     int    `json:"index"`
	Pool      string `json:"pool"`
	Scenario  string `json:"scenario"`
	Dataplane string `json:"dataplane"`
	Version   string `json:"kube_proxy_version"`
	Engine    string `json:"engine,omitempty"`
}

// Label names the cell in directory names and progress lines.
func (c Cell) Label() string {
	return fmt.Sprintf("%s_%s_%s_%s", c.Pool, c.Scenario, c.Dataplane, c.Version)
}

// RunArgs are the `svclab run` arguments that measure the cell into out.
func (c Cell) RunArgs(out string) []string {
	args := []string{c.Scenario, "--dataplane", c.Dataplane, "--kube-proxy-version", c.Version, "--out", out}
	if c.Engine != "" {
		args = append(args, "--engine", c.Engine)
	}
	return args
}

// dnsLabel is what a pool name must be: it names a Job.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$`)

// ParsePool reads NAME=KEY=VALUE[,KEY=VALUE...], e.g.
// "c5=node.kubernetes.io/instance-type=c5.xlarge".
func ParsePool(s string) (Pool, error) {
	name, sel, ok := strings.Cut(s, "=")
	if !ok || sel == "" {
		return Pool{}, fmt.Errorf("--pool %q: want NAME=LABEL=VALUE[,LABEL=VALUE...], e.g. c5=node.kubernetes.io/instance-type=c5.xlarge", s)
	}
	if !dnsLabel.MatchString(name) {
		return Pool{}, fmt.Errorf("--pool %q: the name %q must be lower-case letters, digits and '-' (at most 32), as it names a Job", s, name)
	}
	selector, err := ParseSelector(sel)
	if err != nil {
		return Pool{}, fmt.Errorf("--pool %q: %w", s, err)
	}
	return Pool{Name: name, Selector: selector}, nil
}

// ParseSelector parses a node selector, LABEL=VALUE[,LABEL=VALUE...] (""
// selects every node: nil).
func ParseSelector(s string) (map[string]string, error) {
	if s == "" {
		return nil, nil
	}
	sel := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("selector term %q is not LABEL=VALUE", kv)
		}
		sel[k] = v
	}
	return sel, nil
}

// Validate checks each axis: not empty, no repeats, known dataplanes and
// kube-proxy versions. Scenarios are checked by the caller (it knows which
// are embedded in the image).
func (m Matrix) Validate() error {
	for _, axis := range []struct {
		name   string
		values []string
	}{{"scenario", m.Scenarios}, {"dataplane", m.Dataplanes}, {"kube-proxy version", m.Versions}, {"pool", m.poolNames()}} {
		if len(axis.values) == 0 {
			return fmt.Errorf("the matrix has no %s", axis.name)
		}
		if d := firstRepeat(axis.values); d != "" {
			return fmt.Errorf("%s %q is listed twice", axis.name, d)
		}
	}
	for _, d := range m.Dataplanes {
		if _, err := dataplane.Parse(d); err != nil {
			return fmt.Errorf("dataplane %q: %w", d, err)
		}
	}
	for _, v := range m.Versions {
		if _, err := render.ParseKubeProxyVersion(v); err != nil {
			return fmt.Errorf("kube-proxy version %q: %w", v, err)
		}
	}
	return nil
}

func (m Matrix) poolNames() []string {
	names := make([]string, len(m.Pools))
	for i, p := range m.Pools {
		names[i] = p.Name
	}
	return names
}

func firstRepeat(values []string) string {
	sorted := append([]string(nil), values...)
	sort.Strings(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return sorted[i]
		}
	}
	return ""
}

// Cells lists a pool's cells, indexed from 0: scenario, then dataplane,
// then version.
func (m Matrix) Cells(pool string) []Cell {
	var cells []Cell
	for _, s := range m.Scenarios {
		for _, d := range m.Dataplanes {
			for _, v := range m.Versions {
				cells = append(cells, Cell{Index: len(cells), Pool: pool, Scenario: s, Dataplane: d, Version: v, Engine: m.Engine})
			}
		}
	}
	return cells
}
