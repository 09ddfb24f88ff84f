package scenario

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/model"
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
	return append(errs, validateProxyFlags(k)...)
}

// validateProxyFlags checks --nodeport-addresses: CIDRs with no host bits,
// or "primary" alone, as kube-proxy's validation requires.
func validateProxyFlags(k *kubeProxySpec) []pathError {
	var errs []pathError
	for i, a := range k.NodePortAddresses {
		at := fieldAt("kubeProxy", "nodePortAddresses", i)
		if a == NodePortAddressesPrimary {
			if len(k.NodePortAddresses) > 1 {
				errs = append(errs, at(`"primary" cannot be combined with CIDRs`, `use [primary] alone, or list CIDRs`))
			}
			continue
		}
		p, err := netip.ParsePrefix(a)
		switch {
		case err != nil:
			errs = append(errs, at(fmt.Sprintf("%q is not a CIDR", a), "e.g. 192.168.0.0/24, or primary"))
		case p.Masked() != p:
			errs = append(errs, at(fmt.Sprintf("%s has host bits set", p), "did you mean "+p.Masked().String()+"?"))
		}
	}
	return errs
}

// NodePortAddressesPrimary is --nodeport-addresses' keyword for the node's
// primary addresses.
const NodePortAddressesPrimary = "primary"

// proxyConfig returns the validated kube-proxy flags as the model holds
// them.
func proxyConfig(k kubeProxySpec) model.ProxyConfig {
	c := model.ProxyConfig{MasqueradeAll: k.MasqueradeAll, NoLocalhostNodePorts: k.LocalhostNodePorts != nil && !*k.LocalhostNodePorts}
	for _, a := range k.NodePortAddresses {
		if a == NodePortAddressesPrimary {
			c.NodePortPrimary = true
			continue
		}
		c.NodePortAddresses = append(c.NodePortAddresses, netip.MustParsePrefix(a))
	}
	return c
}

// ProxyFlags are kube-proxy flags given on the command line (nil: keep
// the scenario's).
type ProxyFlags struct {
	MasqueradeAll      *bool
	NodePortAddresses  []string
	LocalhostNodePorts *bool
}

// WithProxyFlags returns the scenario with the kube-proxy flags of p set.
// They change the rules, so they change the scenario's Hash.
func (s *Scenario) WithProxyFlags(p ProxyFlags) (*Scenario, error) {
	desc := fmt.Sprintf("kubeProxy.flags=%v,%v,%v", deref(p.MasqueradeAll), p.NodePortAddresses, deref(p.LocalhostNodePorts))
	return s.with(override{field: "kubeProxy", desc: desc, apply: func(f *file) error {
		if p.MasqueradeAll != nil {
			f.KubeProxy.MasqueradeAll = *p.MasqueradeAll
		}
		if p.NodePortAddresses != nil {
			f.KubeProxy.NodePortAddresses = slices.Clone(p.NodePortAddresses)
		}
		if p.LocalhostNodePorts != nil {
			v := *p.LocalhostNodePorts
			f.KubeProxy.LocalhostNodePorts = &v
		}
		return nil
	}})
}

func deref(b *bool) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprint(*b)
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
