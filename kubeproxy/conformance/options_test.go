package conformance

import (
	"encoding/json"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/sim/kube"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
)

// iptablesOptions are the native renderer's options matching the driver's
// kube-proxy flags (no nfacct in render mode, --random-fully, localhost
// NodePorts, threshold 1000).
func iptablesOptions() rendipt.Options { return rendipt.DefaultOptions() }

func decodeRaw(op kube.Op, into any) error {
	b := op.Object.Raw
	if b == nil {
		var err error
		if b, err = json.Marshal(op.Object.Object); err != nil {
			return err
		}
	}
	return json.Unmarshal(b, into)
}

// sliceService returns "ns/service" for an EndpointSlice event.
func sliceService(op kube.Op) (string, bool) {
	var es discoveryv1.EndpointSlice
	if err := decodeRaw(op, &es); err != nil || es.Kind != "EndpointSlice" {
		return "", false
	}
	return es.Namespace + "/" + es.Labels[discoveryv1.LabelServiceName], true
}
