package host

import (
	"slices"
	"strings"

	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/dataplane"
)

// Status is a probe's verdict.
type Status string

// The verdicts: present, absent, or not probed (Detail says why).
const (
	OK      Status = "ok"
	Missing Status = "missing"
	Unknown Status = "unknown"
)

// Report is what `svclab doctor` prints; it encodes as JSON.
type Report struct {
	// HostKernel is the host's kernel release.
	HostKernel string `json:"host_kernel"`
	// Kernel is one probe result per host kernel feature, in FeatureNames
	// order.
	Kernel []Feature `json:"kernel"`
	// Tools are the programs svclab execs.
	Tools []Tool `json:"tools"`
	// UML is the user-mode-linux kernel, if any.
	UML UML `json:"uml"`
	// BPF is what the kernel offers the eBPF dataplanes (root only).
	BPF []Feature `json:"bpf,omitempty"`
	// Drivers are the kube-proxy drivers of the kube-proxy engine.
	Drivers []Tool `json:"kube_proxy_drivers,omitempty"`
	// Dataplanes says where each dataplane can run.
	Dataplanes []Dataplane `json:"dataplanes"`
	// Fixes are what to do about what is missing, most useful first.
	Fixes []string `json:"fixes"`
}

// Feature is one host kernel feature's probe result.
type Feature struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// Tool is one program and its version.
type Tool struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Package string `json:"package,omitempty"`
}

// UML describes the user-mode-linux kernel.
type UML struct {
	Status Status    `json:"status"`
	Info   *uml.Info `json:"info,omitempty"`
	// IPVS says whether the guest kernel has what the IPVS dataplane needs.
	IPVS   bool   `json:"ipvs"`
	Detail string `json:"detail,omitempty"`
}

// Dataplane says whether a dataplane runs on the host kernel, in the
// user-mode-linux guest, or neither.
type Dataplane struct {
	Name  string `json:"name"`
	Host  bool   `json:"host"`
	Guest bool   `json:"guest"`
}

// FeatureNames are the host kernel features Check probes.
var FeatureNames = []string{"netns", "veth", "dummy", "iptables-legacy", "iptables-nft", "nftables", "ipvs", "conntrack", "ipset"}

// kernelOption names the kernel configuration a feature needs.
var kernelOption = map[string]string{
	"netns": "CONFIG_NET_NS", "veth": "CONFIG_VETH", "dummy": "CONFIG_DUMMY",
	"iptables-legacy": "CONFIG_IP_NF_IPTABLES, CONFIG_IP_NF_NAT, CONFIG_NETFILTER_XT_MATCH_STATISTIC",
	"iptables-nft":    "CONFIG_NF_TABLES_IPV4, CONFIG_NFT_COMPAT", "nftables": "CONFIG_NF_TABLES_IPV4, CONFIG_NFT_NUMGEN",
	"ipvs": "CONFIG_IP_VS", "conntrack": "CONFIG_NF_CONNTRACK", "ipset": "CONFIG_IP_SET",
}

// dataplaneNeeds lists, per dataplane, the kernel features it needs
// (netns and veth are needed by all); the tools it needs come from
// sim/dataplane (see probedTools).
var dataplaneNeeds = []struct {
	name     string
	features []string
}{
	{"iptables-legacy", []string{"iptables-legacy", "conntrack"}},
	{"iptables-nft", []string{"iptables-nft", "conntrack"}},
	{"nftables", []string{"nftables", "conntrack"}},
	{"ipvs", []string{"ipvs", "dummy", "ipset", "iptables-legacy", "conntrack"}},
}

// probedTools are the tools sim/dataplane says a dataplane needs that
// doctor looks up (toolVersionArgs).
func probedTools(name string) []string {
	var out []string
	for _, t := range dataplane.ToolsFor([]string{name}) {
		if slices.ContainsFunc(toolVersionArgs, func(tv toolVersionArg) bool { return tv.name == t }) {
			out = append(out, t)
		}
	}
	return out
}

// Feature returns the named host kernel feature's result.
func (r Report) Feature(name string) (Feature, bool) {
	i := slices.IndexFunc(r.Kernel, func(c Feature) bool { return c.Name == name })
	if i < 0 {
		return Feature{}, false
	}
	return r.Kernel[i], true
}

// Dataplane returns the named dataplane's row.
func (r Report) Dataplane(name string) (Dataplane, bool) {
	i := slices.IndexFunc(r.Dataplanes, func(d Dataplane) bool { return d.Name == name })
	if i < 0 {
		return Dataplane{}, false
	}
	return r.Dataplanes[i], true
}

func (r Report) featureOK(name string) bool {
	c, ok := r.Feature(name)
	return ok && c.Status == OK
}

func (r Report) toolOK(name string) bool {
	i := slices.IndexFunc(r.Tools, func(t Tool) bool { return t.Name == name })
	return i >= 0 && r.Tools[i].Status == OK
}

// guestHas says whether the UML kernel has a kernel feature.
func (r Report) guestHas(feature string) bool {
	if r.UML.Info == nil {
		return false
	}
	i := r.UML.Info
	switch feature {
	case "ipvs":
		return r.UML.IPVS
	case "dummy":
		return i.Dummy
	case "ipset":
		return i.IPSet
	case "iptables-legacy":
		return i.IPTablesLegacy
	case "iptables-nft", "nftables":
		return i.NFTablesIPv4
	case "conntrack":
		return i.Conntrack
	}
	return false
}

// summarise fills Dataplanes and Fixes from the checks.
func (r *Report) summarise() {
	base := r.featureOK("netns") && r.featureOK("veth")
	guestBase := r.UML.Status == OK && r.UML.Info.Veth
	for _, need := range dataplaneNeeds {
		dp := Dataplane{Name: need.name, Host: base, Guest: guestBase}
		for _, f := range need.features {
			dp.Host = dp.Host && r.featureOK(f)
			dp.Guest = dp.Guest && r.guestHas(f)
		}
		for _, tool := range probedTools(need.name) {
			dp.Host = dp.Host && r.toolOK(tool)
			dp.Guest = dp.Guest && r.toolOK(tool)
		}
		r.Dataplanes = append(r.Dataplanes, dp)
	}
	r.Fixes = r.fixes()
}

// fixes lists what to do: one apt-get line for every missing package,
// then the kernel features the host lacks.
func (r Report) fixes() []string {
	var pkgs, out []string
	for _, t := range r.Tools {
		if t.Status != OK && t.Package != "" && !slices.Contains(pkgs, t.Package) {
			pkgs = append(pkgs, t.Package)
		}
	}
	if r.UML.Status != OK && !slices.Contains(pkgs, "user-mode-linux") {
		pkgs = append(pkgs, "user-mode-linux")
	}
	if len(pkgs) > 0 {
		slices.Sort(pkgs)
		out = append(out, "apt-get install -y "+strings.Join(pkgs, " ")+" (or run `make setup`)")
	}
	for _, c := range r.Kernel {
		if c.Status == Missing {
			out = append(out, r.kernelFix(c))
		}
	}
	return out
}

// kernelFix says what a missing host kernel feature costs and what to do.
func (r Report) kernelFix(c Feature) string {
	fix := "the host kernel lacks " + c.Name + " (" + kernelOption[c.Name] + ")"
	var users, inGuest []string
	for _, need := range dataplaneNeeds {
		if c.Name == "netns" || c.Name == "veth" || slices.Contains(need.features, c.Name) {
			users = append(users, need.name)
			if dp, _ := r.Dataplane(need.name); dp.Guest {
				inGuest = append(inGuest, need.name)
			}
		}
	}
	if len(users) == 0 {
		return fix
	}
	fix += ", which " + strings.Join(users, ", ") + " needs"
	switch {
	case len(inGuest) > 0:
		fix += "; svclab runs " + strings.Join(inGuest, ", ") + " in the user-mode-linux guest instead"
	case r.UML.Status != OK:
		fix += "; to run it in a guest: " + FixFor("linux")
	default:
		fix += "; use a kernel that has it"
	}
	return fix
}
