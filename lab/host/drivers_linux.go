package host

import (
	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/render"
)

// findDrivers looks up the kube-proxy driver of every supported version
// (the kube-proxy engine); a missing one names the command that builds it.
func findDrivers() []Tool {
	var out []Tool
	for _, v := range render.KubeProxyVersions {
		t := Tool{Name: kubeproxy.BinaryName(v), Status: OK, Version: "kube-proxy v" + string(v)}
		path, err := kubeproxy.Find(string(v))
		if err != nil {
			t.Status, t.Version = Missing, "build it with `"+kubeproxy.BuildCommand+"`"
		}
		t.Path = path
		out = append(out, t)
	}
	return out
}
