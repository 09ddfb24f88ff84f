package scenario

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// validate fills defaults and returns every problem found, in document
// order as far as the checks allow.
func validate(f *file) []pathError {
	var errs []pathError
	if msg := scenarioName(f.Name); msg != "" {
		errs = append(errs, fieldAt("name")(fmt.Sprintf("%q %s", f.Name, msg), "e.g. name: my-scenario"))
	}
	if i := controlChar(f.Description); i >= 0 {
		errs = append(errs, fieldAt("description")(fmt.Sprintf("control character at byte %d", i), "use plain text"))
	}
	cidrs, cerrs := validateCluster(&f.Cluster)
	errs = append(errs, cerrs...)
	if cerrs == nil {
		errs = append(errs, validateServices(f, cidrs)...)
		if f.Synthetic != nil {
			errs = append(errs, validateSynthetic(f)...)
		}
	}
	if _, err := model.ParsePosition(f.Placement); err != nil {
		errs = append(errs, fieldAt("placement")(err.Error(), "use first, middle, last or an index"))
	}
	errs = append(errs, validateKubeProxy(&f.KubeProxy)...)
	if f.Fairness != nil {
		errs = append(errs, validateFairness(f.Fairness)...)
	}
	if f.Sweep != nil {
		errs = append(errs, validateSweep(f, cerrs == nil)...)
	}
	if f.Timeline != nil {
		errs = append(errs, validateTimeline(f)...)
	}
	errs = append(errs, validateEngineDataplanes(f)...)
	errs = append(errs, validateGate(f)...)
	errs = append(errs, validateObjects(f)...)
	if len(f.Services) == 0 && f.Synthetic == nil && f.Sweep == nil && f.loaded == nil {
		errs = append(errs, fieldAt()("the scenario has no services", "list services:, ask for synthetic:, or define a sweep:"))
	}
	return errs
}

// clusterCIDRs are the parsed CIDRs of a valid cluster section.
type clusterCIDRs struct{ service, pod, filler netip.Prefix }

func validateCluster(c *clusterSpec) (clusterCIDRs, []pathError) {
	var errs []pathError
	var out clusterCIDRs
	defaults := []struct {
		key    string
		field  *string
		def    string
		parsed *netip.Prefix
	}{
		{"clusterCIDR", &c.ClusterCIDR, "10.0.0.0/8", nil},
		{"serviceCIDR", &c.ServiceCIDR, "10.96.0.0/12", &out.service},
		{"podCIDR", &c.PodCIDR, model.DefaultPodCIDR.String(), &out.pod},
		{"fillerCIDR", &c.FillerCIDR, model.DefaultEndpointCIDR.String(), &out.filler},
	}
	for _, d := range defaults {
		if *d.field == "" {
			*d.field = d.def
		}
		at := fieldAt("cluster", d.key)
		p, err := netip.ParsePrefix(*d.field)
		switch {
		case err != nil || !p.Addr().Is4():
			errs = append(errs, at(fmt.Sprintf("%q is not an IPv4 CIDR", *d.field), "e.g. "+d.def))
		case p.Masked() != p:
			errs = append(errs, at(fmt.Sprintf("%s has host bits set", p), "did you mean "+p.Masked().String()+"?"))
		case d.parsed != nil:
			*d.parsed = p
		}
	}
	errs = append(errs, validateIPv6CIDRs(c)...)
	errs = append(errs, intField(&c.MasqueradeBit, "cluster.masqueradeBit", fieldAt("cluster", "masqueradeBit"))...)
	return out, errs
}

// DefaultClusterCIDRv6 and DefaultServiceCIDRv6 are the IPv6 pod and
// service CIDRs of a scenario that names none (those of a kind cluster,
// the pod range widened to /48 to hold the lab's IPv6 client).
const (
	DefaultClusterCIDRv6 = "fd00:10:244::/48"
	DefaultServiceCIDRv6 = "fd00:10:96::/112"
)

// validateIPv6CIDRs defaults and checks the IPv6 CIDRs the IPv6 proxier
// of an IPv6 or dual-stack cluster uses.
func validateIPv6CIDRs(c *clusterSpec) []pathError {
	var errs []pathError
	for _, d := range []struct {
		key        string
		field      *string
		defaultVal string
	}{{"clusterCIDRv6", &c.ClusterCIDRv6, DefaultClusterCIDRv6}, {"serviceCIDRv6", &c.ServiceCIDRv6, DefaultServiceCIDRv6}} {
		if *d.field == "" {
			*d.field = d.defaultVal
		}
		p, err := netip.ParsePrefix(*d.field)
		switch at := fieldAt("cluster", d.key); {
		case err != nil || !p.Addr().Is6() || p.Addr().Is4In6():
			errs = append(errs, at(fmt.Sprintf("%q is not an IPv6 CIDR", *d.field), "e.g. "+d.defaultVal))
		case p.Masked() != p:
			errs = append(errs, at(fmt.Sprintf("%s has host bits set", p), "did you mean "+p.Masked().String()+"?"))
		}
	}
	return errs
}

// intField fills an absent integer field with its default from the
// reference table, or checks the value written against its range.
func intField(p **int, ref string, at func(string, string) pathError) []pathError {
	r := rangeOf(ref)
	if *p == nil {
		v := r.def
		*p = &v
		return nil
	}
	return checkRange(**p, r, at)
}

// checkRange reports v outside r; the hint gives the range and, when there
// is one, the default a missing field would get.
func checkRange(v int, r intRange, at func(string, string) pathError) []pathError {
	if v >= r.min && v <= r.max {
		return nil
	}
	hint := fmt.Sprintf("use %d..%d", r.min, r.max)
	if r.def != 0 && r.def >= r.min {
		hint += fmt.Sprintf(", or leave the field out for the default %d", r.def)
	}
	return []pathError{at(fmt.Sprintf("%d is out of range", v), hint)}
}

// firstDuplicate returns the index of the first element equal to an
// earlier one, and that earlier index, or -1.
func firstDuplicate[T comparable](list []T) (int, int) {
	seen := make(map[T]int, len(list))
	for i, v := range list {
		if j, ok := seen[v]; ok {
			return i, j
		}
		seen[v] = i
	}
	return -1, -1
}
