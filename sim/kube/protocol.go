package kube

import (
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svclab/svclab/sim/dataplane"
)

// The modes the driver runs kube-proxy in (sim/dataplane's Mode, as the
// protocol's strings).
const (
	ModeIPTables = string(dataplane.ModeIPTables)
	ModeNFTables = string(dataplane.ModeNFTables)
	ModeIPVS     = string(dataplane.ModeIPVS)
)

// The actions of an Op.
const (
	Add    = "add"
	Update = "update"
	Delete = "delete"
)

// Request is the driver's whole input (one JSON document on stdin): the
// node kube-proxy runs on, the objects it sees at startup, and the changes
// it sees afterwards. The driver syncs once after the objects (kube-proxy's
// first, full sync) and once after each Step.
type Request struct {
	Mode string `json:"mode"`
	// Family is the proxier's IP family, "IPv4" (also when empty) or
	// "IPv6"; the objects may hold both (kube-proxy filters them).
	Family   string `json:"family,omitempty"`
	NodeName string `json:"nodeName"`
	// NodeIP is the node's address of Family (kube-proxy's node IP); the
	// driver's render-mode fake network holds it on eth0.
	NodeIP        string `json:"nodeIP,omitempty"`
	ClusterCIDR   string `json:"clusterCIDR"`
	MasqueradeBit int    `json:"masqueradeBit"`
	// TopologyLabels are the node's labels kube-proxy's topology-aware
	// routing reads (OnTopologyChange), e.g. topology.kubernetes.io/zone.
	TopologyLabels map[string]string `json:"topologyLabels,omitempty"`
	// MasqueradeAll is --masquerade-all.
	MasqueradeAll bool `json:"masqueradeAll,omitempty"`
	// LocalhostNodePorts is --iptables-localhost-nodeports (NewRequest
	// sets kube-proxy's default, true).
	LocalhostNodePorts bool `json:"localhostNodePorts"`
	// NodePortAddresses is --nodeport-addresses as CIDRs (empty: all).
	NodePortAddresses []string `json:"nodePortAddresses,omitempty"`
	// NoRandomFully: render mode's fake iptables lacks MASQUERADE
	// --random-fully (an iptables before 1.6.2), as kube-proxy up to v1.36
	// asks it (HasRandomFully); sync mode asks the real iptables.
	NoRandomFully bool `json:"noRandomFully,omitempty"`
	// ServiceCIDRs are the cluster's ServiceCIDR objects' ranges, handed
	// to kube-proxy's OnServiceCIDRsChanged before the first sync.
	ServiceCIDRs []string `json:"serviceCIDRs,omitempty"`
	// Objects is a v1 List of Services and EndpointSlices.
	Objects v1.List `json:"objects"`
	Steps   []Step  `json:"steps,omitempty"`
	// OmitPayload leaves the payload text out of each Sync (sync mode:
	// only the sizes are reported).
	OmitPayload bool `json:"omitPayload,omitempty"`
	// ValidatingFake makes render mode in nftables mode run each
	// transaction through knftables' own Fake, which validates every
	// operation but takes minutes for 10,000 services, instead of the
	// driver's record-only table.
	ValidatingFake bool `json:"validatingFake,omitempty"`
}

// Step is one batch of object events followed by one sync.
type Step struct {
	Ops []Op `json:"ops"`
}

// Op is one event: Action (add, update, delete) of Object, a Service or
// an EndpointSlice. For update the driver supplies the previous object; for
// delete only the kind, namespace and name of Object matter.
type Op struct {
	Action string               `json:"action"`
	Object runtime.RawExtension `json:"object"`
}

// Sync is the driver's report of one sync (one JSON line on stdout).
type Sync struct {
	// Index is 0 for the first sync, then the step's index plus one.
	Index int `json:"index"`
	// Full reports whether kube-proxy chose a full sync.
	Full bool `json:"full"`
	// DurationNS is how long kube-proxy's syncProxyRules took.
	DurationNS int64 `json:"durationNs"`
	// Payload is what kube-proxy handed to the kernel tools: the
	// iptables-restore input (iptables and IPVS modes) or the nft
	// transaction (nftables mode). PayloadBytes is its size.
	Payload      string `json:"payload,omitempty"`
	PayloadBytes int    `json:"payloadBytes"`
	// IPVS and IPSet are, in IPVS mode, the state after the sync in
	// `ipvsadm -Sn` and `ipset save` form.
	IPVS  string `json:"ipvs,omitempty"`
	IPSet string `json:"ipset,omitempty"`
	// Error is the error kube-proxy met (restore or transaction failed).
	Error string `json:"error,omitempty"`
}

// Kind returns the kind of an object in an Op or a List ("Service",
// "EndpointSlice").
func Kind(raw runtime.RawExtension) (string, error) {
	var tm struct {
		Kind string `json:"kind"`
	}
	b := raw.Raw
	if b == nil && raw.Object != nil {
		var err error
		if b, err = json.Marshal(raw.Object); err != nil {
			return "", fmt.Errorf("object kind: %w", err)
		}
	}
	if err := json.Unmarshal(b, &tm); err != nil {
		return "", fmt.Errorf("object kind: %w", err)
	}
	return tm.Kind, nil
}

// Raw wraps a Service or EndpointSlice for a List or an Op.
func Raw(obj runtime.Object) runtime.RawExtension { return runtime.RawExtension{Object: obj} }
