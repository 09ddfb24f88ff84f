package conformance

import (
	"encoding/json"
	"fmt"
	"net/netip"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/render"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
	rendipvs "github.com/svclab/svclab/sim/render/ipvs"
	rendnft "github.com/svclab/svclab/sim/render/nftables"
)

// iptablesOptions are the native renderer's options matching the driver's
// kube-proxy with flags (no nfacct in render mode, --random-fully,
// threshold 1000).
func iptablesOptions(flags render.Flags) rendipt.Options {
	return rendipt.OptionsFor(render.Config{Version: nativeVersion(), Flags: flags})
}

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

// nftablesOptions match the driver's kube-proxy with flags, first sync
// after start.
func nftablesOptions(flags render.Flags) rendnft.Options {
	return rendnft.OptionsFor(render.Config{Version: nativeVersion(), Flags: flags})
}

// nativeVersion is the native renderers' version matching the driver's
// kube-proxy.
func nativeVersion() render.KubeProxyVersion {
	v, err := render.ParseKubeProxyVersion(driver.Version())
	if err != nil {
		panic(err) // a driver version the renderers do not know: fail loudly
	}
	if p := v.Release().Patch; p != driver.Version() {
		// the row's patch release is the one checked: fail loudly
		panic(fmt.Sprintf("kube-proxy %s: the version table's row %s names patch %s", driver.Version(), v, p))
	}
	return v
}

// ipvsOptions match the driver's kube-proxy with flags: rr,
// --random-fully, the node's one address for NodePorts.
func ipvsOptions(flags render.Flags) rendipvs.Options {
	return rendipvs.OptionsFor(render.Config{Version: nativeVersion(), Flags: flags,
		Host: render.HostFacts{NodeIPs: []netip.Addr{nodeIP}}})
}
