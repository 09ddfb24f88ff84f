package scenario

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
)

// The engines that can write a scenario's rules.
const (
	// EngineNative is svclab's own renderer (sim/render).
	EngineNative = "native"
	// EngineKubeProxy is kube-proxy's own proxier, run by the driver.
	EngineKubeProxy = "kube-proxy"
)

// KubeProxy says whose code writes the rules, which kube-proxy
// release's rules they are, and the feature gates and flags they are
// written with.
type KubeProxy struct {
	Engine  string
	Version render.KubeProxyVersion
	// FeatureGates is kube-proxy's --feature-gates as the scenario sets it:
	// only gates svclab knows (FeatureGateNames), absent ones at kube-proxy's
	// default (off: they are alpha).
	FeatureGates map[string]bool
	// Flags are the kube-proxy flags that change the rules
	// (kubeProxy.masqueradeAll, nodePortAddresses, localhostNodePorts).
	Flags render.Flags
}

// FeatureGate reports whether the scenario turns the gate on.
func (k KubeProxy) FeatureGate(name string) bool { return k.FeatureGates[name] }

// FeatureGateNFTablesLocalhostNodePorts is kube-proxy's (v1.37+) alpha gate
// KubeProxyNFTablesLocalhostNodePorts: nftables mode counts and rejects
// NodePort traffic to localhost (sim/render/nftables
// Options.LocalhostNodePortsGate). kube-proxy's TestOverallNFTablesRules
// runs with it on.
const FeatureGateNFTablesLocalhostNodePorts = "KubeProxyNFTablesLocalhostNodePorts"

// featureGates are the gates svclab knows, each with the fact of the
// version table (render.KubeProxyRelease) that says whether a kube-proxy
// release has it (kube-proxy refuses a gate it does not know).
var featureGates = map[string]func(render.KubeProxyVersion) bool{
	FeatureGateNFTablesLocalhostNodePorts: render.KubeProxyVersion.NFTablesLocalhostNodePorts,
}

// gateVersions lists the supported versions that have the gate.
func gateVersions(has func(render.KubeProxyVersion) bool) []render.KubeProxyVersion {
	var out []render.KubeProxyVersion
	for _, v := range render.KubeProxyVersions {
		if has(v) {
			out = append(out, v)
		}
	}
	return out
}

// FeatureGateNames lists the gates svclab knows, sorted.
func FeatureGateNames() []string { return slices.Sorted(maps.Keys(featureGates)) }

// ParseFeatureGates reads kube-proxy's --feature-gates syntax,
// "Name=true,Other=false", accepting only the gates svclab knows.
func ParseFeatureGates(s string) (map[string]bool, error) {
	gates := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		on, err := strconv.ParseBool(strings.TrimSpace(v))
		if !ok || err != nil {
			return nil, fmt.Errorf("%q: want Name=true or Name=false", kv)
		}
		if k = strings.TrimSpace(k); featureGates[k] == nil {
			return nil, fmt.Errorf("unknown feature gate %q (svclab knows %s)", k, strings.Join(FeatureGateNames(), ", "))
		}
		gates[k] = on
	}
	return gates, nil
}

// validateFeatureGates checks kubeProxy.featureGates: gates svclab knows,
// that the scenario's kube-proxy release has, and none on with the
// kube-proxy engine, whose driver does not set gates.
func validateFeatureGates(k *kubeProxySpec, v render.KubeProxyVersion) []pathError {
	var errs []pathError
	for _, name := range slices.Sorted(maps.Keys(k.FeatureGates)) {
		at := fieldAt("kubeProxy", "featureGates", name)
		has, known := featureGates[name]
		switch {
		case !known:
			errs = append(errs, at(fmt.Sprintf("unknown feature gate %q", name), "svclab knows "+strings.Join(FeatureGateNames(), ", ")))
		case !has(v.OrLatest()):
			errs = append(errs, at(fmt.Sprintf("kube-proxy %s has no feature gate %s", v.OrLatest(), name), "it is in kube-proxy "+joinVersions(gateVersions(has))+"; set kubeProxy.version, or remove the gate"))
		case k.FeatureGates[name] && k.Engine == EngineKubeProxy:
			errs = append(errs, at("the kube-proxy engine's driver does not set feature gates", "use engine native, or remove the gate"))
		}
	}
	return errs
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
		errs = append(errs, fieldAt("kubeProxy", "version")(err.Error(), "use "+render.SupportedKubeProxyVersions()))
	}
	k.Version = string(v)
	errs = append(errs, validateFeatureGates(k, v)...)
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

// proxyFlags returns the validated kube-proxy flags as render.Config
// holds them.
func proxyFlags(k kubeProxySpec) render.Flags {
	c := render.Flags{MasqueradeAll: k.MasqueradeAll, NoLocalhostNodePorts: k.LocalhostNodePorts != nil && !*k.LocalhostNodePorts}
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

func joinVersions(vs []render.KubeProxyVersion) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return strings.Join(out, ", ")
}

// WithFeatureGates returns the scenario with the given kube-proxy feature
// gates set over the file's (e.g. from render --feature-gates). They change
// the rules, so they change the scenario's Hash.
func (s *Scenario) WithFeatureGates(gates map[string]bool) (*Scenario, error) {
	var desc []string
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		desc = append(desc, fmt.Sprintf("%s=%t", name, gates[name]))
	}
	return s.with(override{field: "kubeProxy.featureGates", desc: "kubeProxy.featureGates=" + strings.Join(desc, ","), apply: func(f *file) error {
		if f.KubeProxy.FeatureGates == nil {
			f.KubeProxy.FeatureGates = map[string]bool{}
		}
		maps.Copy(f.KubeProxy.FeatureGates, gates)
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

// validateEngineDataplanes refuses, with the kube-proxy engine, a dataplane
// kube-proxy has no mode for (the eBPF ones), where the scenario is loaded
// rather than when the lab is built.
func validateEngineDataplanes(f *file) []pathError {
	if f.KubeProxy.Engine != EngineKubeProxy {
		return nil
	}
	var errs []pathError
	check := func(section string, list []string) {
		for i, name := range list {
			if info, ok := dataplane.Lookup(name); ok && info.Mode == dataplane.ModeNone {
				errs = append(errs, fieldAt(section, "dataplanes", i)(
					fmt.Sprintf("dataplane %s has no kube-proxy mode, and kubeProxy.engine is kube-proxy", name),
					"use engine native for "+name+", or a dataplane kube-proxy writes: "+strings.Join(kubeProxyDataplanes(), ", ")))
			}
		}
	}
	if f.Fairness != nil {
		check("fairness", f.Fairness.Dataplanes)
	}
	if f.Sweep != nil {
		check("sweep", f.Sweep.Dataplanes)
	}
	return errs
}

// kubeProxyDataplanes are the dataplanes kube-proxy has a mode for.
func kubeProxyDataplanes() []string {
	var out []string
	for _, info := range dataplane.All() {
		if info.Mode != dataplane.ModeNone {
			out = append(out, string(info.Name))
		}
	}
	return out
}
