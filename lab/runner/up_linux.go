package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/scenario"
)

// StateDir holds one JSON file per lab left running by `svclab up`.
const StateDir = "/run/svclab"

// UpService describes one explorable service of a running lab.
type UpService struct {
	Name      string   `json:"name"`
	ClusterIP string   `json:"clusterIP"`
	Port      int      `json:"port"`
	Endpoints []string `json:"endpoints"`
}

// UpState is what `svclab up` prints and `svclab down` reads back.
type UpState struct {
	Run         string            `json:"run"`
	PID         int               `json:"pid"`
	Scenario    string            `json:"scenario"`
	Dataplane   string            `json:"dataplane"`
	NodeNetns   string            `json:"node_netns"`
	ClientNetns string            `json:"client_netns"`
	PodNetns    map[string]string `json:"pod_netns"`
	Services    []UpService       `json:"services"`
}

// Up builds the scenario's lab and programs one dataplane, and returns the
// lab (to keep serving) with its description.
func Up(sc *scenario.Scenario, dataplane, prefix string) (*Lab, UpState, error) {
	m, err := sc.Model()
	if err != nil {
		return nil, UpState{}, err
	}
	fillers := sc.Synthetic != nil && sc.Synthetic.Services > 0
	lab, err := NewLab(labSpecFor(sc, prefix, fillers, false))
	if err != nil {
		return nil, UpState{}, err
	}
	dp, err := apply.New(dataplane, lab.Topo.NodeNetns, apply.Settings{})
	if err != nil {
		return nil, UpState{}, lab.closeWith(err)
	}
	if _, err := dp.FullSync(m); err != nil {
		return nil, UpState{}, lab.closeWith(err)
	}
	st := UpState{Run: prefix, PID: os.Getpid(), Scenario: sc.Name, Dataplane: dataplane,
		NodeNetns: lab.Topo.NodeNetns, ClientNetns: lab.Topo.ClientNetns, PodNetns: map[string]string{}}
	for _, p := range lab.Topo.Pods {
		st.PodNetns[p.Name] = p.Netns
	}
	for _, s := range sc.Explicit() {
		for _, p := range s.Ports {
			st.Services = append(st.Services, UpService{Name: s.PortName(p), ClusterIP: s.ClusterIP.String(), Port: p.Port, Endpoints: s.ReadyEndpoints(p)})
		}
	}
	return lab, st, nil
}

// statePath is the state file of a run.
func statePath(run string) string { return filepath.Join(StateDir, run+".json") }

// SaveState records a running lab.
func SaveState(st UpState) error {
	if err := os.MkdirAll(StateDir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", StateDir, err)
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(st.Run) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write lab state: %w", err)
	}
	return os.Rename(tmp, statePath(st.Run))
}

// LoadState reads a running lab's state.
func LoadState(run string) (UpState, error) {
	var st UpState
	data, err := os.ReadFile(statePath(run))
	if errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("no lab %s is running (no %s)", run, statePath(run))
	}
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(data, &st)
}

// RemoveState forgets a lab.
func RemoveState(run string) error {
	err := os.Remove(statePath(run))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// RunningLabs lists the runs with a state file.
func RunningLabs() ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(StateDir, "*.json"))
	if err != nil {
		return nil, err
	}
	var runs []string
	for _, m := range matches {
		runs = append(runs, filepath.Base(m[:len(m)-len(".json")]))
	}
	return runs, nil
}

// Describe returns how to reach a service, e.g. for `curl`.
func (s UpService) Describe() string {
	return "http://" + netip.AddrPortFrom(netip.MustParseAddr(s.ClusterIP), uint16(s.Port)).String() + "/ (" + strconv.Itoa(len(s.Endpoints)) + " endpoints)"
}
