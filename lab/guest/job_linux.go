package guest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/svclab/svclab/sim/scenario"
)

// Command is the hidden subcommand under which the guest's svclab runs a
// job: `svclab __guest-run JOB` calls Serve(JOB).
const Command = "__guest-run"

// jobFile is the job's name in the run directory; Run removes it after the
// guest stops.
const jobFile = ".svclab-guest-job.json"

// Job is what the host hands the guest: the scenario as the host loaded it
// and the run's options.
type Job struct {
	// Source is the scenario's source: an absolute path (objects files it
	// names resolve beside it) or "embedded:NAME".
	Source string `json:"source"`
	// Scenario is the scenario file's bytes.
	Scenario []byte `json:"scenario"`
	// Overrides are made to the scenario in the guest as on the host.
	Overrides Overrides `json:"overrides"`
	// Prefix is the run's prefix (the guest's objects live in its own
	// kernel, so it takes the host's).
	Prefix string `json:"prefix"`
	// OutDir is the run directory, shared with the host.
	OutDir string `json:"out_dir"`
}

// Overrides are the changes a run made to its scenario's file (svclab
// run's --dataplane, --connections, --engine and --kube-proxy-version),
// made by Apply in that order, the order the CLI makes them in.
type Overrides struct {
	Dataplanes       []string `json:"dataplanes,omitempty"`
	Connections      *int     `json:"connections,omitempty"`
	Engine           string   `json:"engine,omitempty"`
	KubeProxyVersion string   `json:"kube_proxy_version,omitempty"`
}

// Apply makes the overrides to sc.
func (o Overrides) Apply(sc *scenario.Scenario) (*scenario.Scenario, error) {
	var err error
	if o.Dataplanes != nil {
		if sc, err = sc.WithDataplanes(o.Dataplanes); err != nil {
			return nil, fmt.Errorf("dataplanes %v: %w", o.Dataplanes, err)
		}
	}
	if o.Connections != nil {
		if sc, err = sc.WithConnections(*o.Connections); err != nil {
			return nil, fmt.Errorf("connections %d: %w", *o.Connections, err)
		}
	}
	if o.Engine != "" || o.KubeProxyVersion != "" {
		if sc, err = sc.WithKubeProxy(o.Engine, o.KubeProxyVersion); err != nil {
			return nil, fmt.Errorf("engine %q, kube-proxy version %q: %w", o.Engine, o.KubeProxyVersion, err)
		}
	}
	return sc, nil
}

// newJob is the job that runs sc with overrides into dir.
func newJob(sc *scenario.Scenario, o Overrides, prefix, dir string) Job {
	source := sc.Source
	if st, err := os.Stat(source); err == nil && !st.IsDir() {
		source, _ = filepath.Abs(source)
	}
	return Job{Source: source, Scenario: sc.Raw, Overrides: o, Prefix: prefix, OutDir: dir}
}

// writeJob writes j into dir and returns its path.
func writeJob(dir string, j Job) (string, error) {
	data, err := json.Marshal(j)
	if err != nil {
		return "", fmt.Errorf("encode the guest job: %w", err)
	}
	path := filepath.Join(dir, jobFile)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("write the guest job %s: %w", path, err)
	}
	return path, nil
}

// ReadJob reads a job file and parses its scenario with the overrides made.
func ReadJob(path string) (Job, *scenario.Scenario, error) {
	var j Job
	data, err := os.ReadFile(path)
	if err != nil {
		return j, nil, fmt.Errorf("read the guest job: %w", err)
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return j, nil, fmt.Errorf("decode the guest job %s: %w", path, err)
	}
	sc, err := scenario.Parse(j.Source, j.Scenario)
	if err != nil {
		return j, nil, err
	}
	sc, err = j.Overrides.Apply(sc)
	if err != nil {
		return j, nil, fmt.Errorf("guest job %s: %w", path, err)
	}
	return j, sc, nil
}
