package scenario

import (
	"fmt"

	"github.com/svclab/svclab/sim/render"
)

// The engines that can write a scenario's rules.
const (
	// EngineNative is svclab's own renderer (sim/render).
	EngineNative = "native"
	// EngineKubeProxy is kube-proxy's own proxier, run by the driver.
	EngineKubeProxy = "kube-proxy"
)

// KubeProxy says whose code writes the rules and which kube-proxy
// release's rules they are.
type KubeProxy struct {
	Engine  string
	Version render.KubeProxyVersion
}

func validateKubeProxy(k *kubeProxySpec) []pathError {
	var errs []pathError
	if k.Engine == "" {
		k.Engine = EngineNative
	}
	if k.Engine != EngineNative && k.Engine != EngineKubeProxy {
		errs = append(errs, fieldAt("kubeProxy", "engine")(fmt.Sprintf("unknown engine %q", k.Engine), "use "+EngineNative+" or "+EngineKubeProxy))
	}
	v, err := render.ParseKubeProxyVersion(k.Version)
	if err != nil {
		errs = append(errs, fieldAt("kubeProxy", "version")(err.Error(), "use 1.35 or 1.37"))
	}
	k.Version = string(v)
	return errs
}

// WithKubeProxy returns the scenario with the engine and kube-proxy version
// set ("" keeps the file's). They are what a comparison of two runs of the
// same scenario is about (did v1.37 sync slower than v1.35?), so unlike the
// other overrides they do not change the scenario's Hash; meta.json records
// them.
func (s *Scenario) WithKubeProxy(engine, version string) (*Scenario, error) {
	return s.with(override{field: "kubeProxy", desc: "kubeProxy=" + engine + "," + version, unhashed: true, apply: func(f *file) error {
		if engine != "" {
			f.KubeProxy.Engine = engine
		}
		if version != "" {
			f.KubeProxy.Version = version
		}
		return nil
	}})
}
