package runner

import (
	"context"
	"fmt"

	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/verifytrace"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// The runner is the CLI's one door into the lab; these pass through to the
// packages behind it.

// Inspect is `svclab doctor`'s report (see lab/host).
func Inspect() host.Report { return host.Inspect() }

// TraceCheck is one dump's verify-trace outcome (see lab/verifytrace).
type TraceCheck = verifytrace.Result

// TraceCheckOptions set how many packets verify-trace sends, and its seed.
type TraceCheckOptions = verifytrace.Options

// VerifyTraceFile loads a dump into a scratch node and checks the tracer
// against the kernel packet by packet (see lab/verifytrace).
func VerifyTraceFile(path string, opts TraceCheckOptions) (TraceCheck, error) {
	return verifytrace.VerifyFile(path, opts)
}

// RenderWithKubeProxy runs kube-proxy's own proxier for mode ("iptables",
// "nftables", "ipvs") and version in render mode (no kernel): the payload
// of its first, full sync, as it hands it to the kernel tools.
func RenderWithKubeProxy(ctx context.Context, mode string, version render.KubeProxyVersion, m *model.Model) (kube.Sync, error) {
	bin, err := kubeproxy.Find(string(version))
	if err != nil {
		return kube.Sync{}, err
	}
	req, err := kube.NewRequest(mode, m)
	if err != nil {
		return kube.Sync{}, err
	}
	syncs, err := kubeproxy.Render(ctx, bin, req)
	if err != nil {
		return kube.Sync{}, err
	}
	if s := syncs[0]; s.Error != "" {
		return s, fmt.Errorf("kube-proxy %s %s: %s", version, mode, s.Error)
	}
	return syncs[0], nil
}

// ErrDriverNotBuilt means `make kube-proxy` has not built the driver.
var ErrDriverNotBuilt = kubeproxy.ErrNotBuilt
