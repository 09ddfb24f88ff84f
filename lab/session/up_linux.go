package session

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/sim/dataplane"
)

// StateDir holds one JSON file per lab left running by `svclab up`, beside
// the leases.
const StateDir = lease.Dir

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

// UpDataplanes are the dataplanes `svclab up` can leave running on the host.
var UpDataplanes = dataplane.UpNames()

// Describe returns how to reach a service, e.g. for `curl`.
func (s UpService) Describe() string {
	return "http://" + netip.AddrPortFrom(netip.MustParseAddr(s.ClusterIP), uint16(s.Port)).String() + "/ (" + strconv.Itoa(len(s.Endpoints)) + " endpoints)"
}

// ErrNoSuchLab is returned by Down for a run that has no running lab.
var ErrNoSuchLab = errors.New("no such lab")

// checkRunName refuses anything but a run prefix (never a path).
func checkRunName(run string) error {
	if !validRunPrefix(run) {
		return fmt.Errorf("%q is not a run name like svl-3f9a: %w", run, ErrNoSuchLab)
	}
	return nil
}
