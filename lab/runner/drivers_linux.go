package runner

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/buildinfo"
	"github.com/svclab/svclab/sim/render"
)

// driverVersionTimeout bounds one driver's `version` answer.
const driverVersionTimeout = 10 * time.Second

// KubeProxyDrivers looks up the driver of every supported kube-proxy
// version where a run would (kubeproxy.Find) and asks each found one for
// its version. A missing driver names the command that builds it.
func KubeProxyDrivers(ctx context.Context) []buildinfo.Driver {
	var out []buildinfo.Driver
	for _, v := range render.KubeProxyVersions {
		d := buildinfo.Driver{KubeProxy: string(v)}
		path, err := kubeproxy.Find(string(v))
		if err != nil {
			d.Error = err.Error()
			out = append(out, d)
			continue
		}
		d.Path = path
		d.Version, err = driverVersion(ctx, path)
		if err != nil {
			d.Error = err.Error()
		}
		out = append(out, d)
	}
	return out
}

// driverVersion runs `path version`.
func driverVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, driverVersionTimeout)
	defer cancel()
	b, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
