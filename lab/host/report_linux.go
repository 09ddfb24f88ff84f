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

// FeatureNames are the host kernel features Check probes (sim/dataplane's
// Features), netns first.
var FeatureNames = featureNames()

func featureNames() []string {
	var out []string
	for _, f := range dataplane.Features() {
		out = append(out, string(f.Name))
	}
	return out
}

// kernelOption names the kernel configuration a feature needs.
func kernelOption(name string) string {
	f, _ := dataplane.FeatureOf(dataplane.Feature(name))
	return f.Config
}

// need is one dataplane doctor gives a row: the kernel features it needs
// besides netns and veth, which all need.
type need struct {
	name     string
	features []string
}

// dataplaneNeeds lists the kernel features of every dataplane doctor
// checks by kernel feature (sim/dataplane's Kernel; the eBPF ones are
// checked by the BPF probes instead); the tools it needs come from
// sim/dataplane too (see probedTools).
func dataplaneNeeds() []need {
	var out []need
	for _, d := range dataplane.All() {
		if d.Kernel.BPF {
			continue
		}
		n := need{name: string(d.Name)}
		for _, f := range d.Kernel.Features {
			n.features = append(n.features, string(f))
		}
		out = append(out, n)
	}
	return out
}

// bpfDataplanes are the dataplanes doctor checks with the BPF probes.
func bpfDataplanes() []string {
	var out []string
	for _, d := range dataplane.All() {
		if d.Kernel.BPF {
			out = append(out, string(d.Name))
		}
	}
	return out
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
	switch dataplane.Feature(feature) {
	case dataplane.FeatureIPVS:
		return r.UML.IPVS
	case dataplane.FeatureDummy:
		return i.Dummy
	case dataplane.FeatureIPSet:
		return i.IPSet
	case dataplane.FeatureIPTablesLegacy:
		return i.IPTablesLegacy
	case dataplane.FeatureIPTablesNFT, dataplane.FeatureNFTables:
		return i.NFTablesIPv4
	case dataplane.FeatureConntrack:
		return i.Conntrack
	}
	return false
}

// summarise fills Dataplanes and Fixes from the checks.
func (r *Report) summarise() {
	base := r.featureOK(string(dataplane.FeatureNetns)) && r.featureOK(string(dataplane.FeatureVeth))
	guestBase := r.UML.Status == OK && r.UML.Info.Veth
	for _, need := range dataplaneNeeds() {
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
	fix := "the host kernel lacks " + c.Name + " (" + kernelOption(c.Name) + ")"
	var users, inGuest []string
	for _, need := range dataplaneNeeds() {
		if c.Name == string(dataplane.FeatureNetns) || c.Name == string(dataplane.FeatureVeth) || slices.Contains(need.features, c.Name) {
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
