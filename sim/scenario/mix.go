package scenario

import (
	"fmt"
	"math"
	"sort"

	"github.com/svclab/svclab/sim/model"
)

// The keys synthetic.mix.types and .families accept, in the order choices
// are laid out.
var (
	mixTypes    = []string{string(model.ClusterIP), string(model.NodePort), string(model.LoadBalancer)}
	mixFamilies = []string{string(model.SingleIPv4), string(model.SingleIPv6), string(model.DualStack)}
)

// validateMix checks synthetic.mix: known keys, weights finite and ≥ 0
// with a positive sum, shares 0..1, counts in range.
func validateMix(m *mixSpec) []pathError {
	if m == nil {
		return nil
	}
	at := func(k ...any) func(string, string) pathError {
		return fieldAt(append([]any{"synthetic", "mix"}, k...)...)
	}
	var errs []pathError
	errs = append(errs, checkNamedWeights(m.Types, mixTypes, at("types"))...)
	errs = append(errs, checkNamedWeights(m.Families, mixFamilies, at("families"))...)
	errs = append(errs, checkCountWeights(m.Endpoints, 0, MaxEndpointsPerService, at("endpoints"))...)
	errs = append(errs, checkCountWeights(m.Ports, 1, 100, at("ports"))...)
	for _, sh := range []struct {
		key string
		v   float64
	}{{"externalTrafficPolicyLocal", m.ExternalTrafficPolicyLocal}, {"internalTrafficPolicyLocal", m.InternalTrafficPolicyLocal},
		{"sessionAffinity", m.SessionAffinity}, {"externalIPs", m.ExternalIPs},
		{"loadBalancerSourceRanges", m.LoadBalancerSourceRanges}, {"remoteEndpoints", m.RemoteEndpoints}} {
		if math.IsNaN(sh.v) || sh.v < 0 || sh.v > 1 {
			errs = append(errs, at(sh.key)(fmt.Sprintf("share %g", sh.v), "a share of the services is 0..1, e.g. 0.25"))
		}
	}
	return errs
}

func checkNamedWeights(w map[string]float64, keys []string, at func(string, string) pathError) []pathError {
	if w == nil {
		return nil
	}
	sum := 0.0
	for k, v := range w {
		if !contains(keys, k) {
			return []pathError{at(fmt.Sprintf("unknown key %q", k), "use "+fmt.Sprint(keys))}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return []pathError{at(fmt.Sprintf("weight %g of %s", v, k), "weights are finite numbers ≥ 0")}
		}
		sum += v
	}
	if sum <= 0 {
		return []pathError{at("the weights sum to 0", "give at least one positive weight, or leave the field out")}
	}
	return nil
}

func checkCountWeights(w map[int]float64, lo, hi int, at func(string, string) pathError) []pathError {
	if w == nil {
		return nil
	}
	named := map[string]float64{}
	var keys []string
	for k, v := range w {
		if k < lo || k > hi {
			return []pathError{at(fmt.Sprintf("count %d is out of range", k), fmt.Sprintf("use %d..%d", lo, hi))}
		}
		named[fmt.Sprint(k)] = v
		keys = append(keys, fmt.Sprint(k))
	}
	return checkNamedWeights(named, keys, at)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// model returns the validated mix as a model.Mix (nil for none), choices in
// a fixed order so that a mix's services do not depend on map order.
func (m *mixSpec) model() *model.Mix {
	if m == nil {
		return nil
	}
	out := &model.Mix{
		ExternalLocal: m.ExternalTrafficPolicyLocal, InternalLocal: m.InternalTrafficPolicyLocal,
		Affinity: m.SessionAffinity, ExternalIPs: m.ExternalIPs, SourceRanges: m.LoadBalancerSourceRanges,
		RemoteEndpoints: m.RemoteEndpoints,
	}
	if m.Types != nil {
		for _, k := range mixTypes {
			out.Types = append(out.Types, model.Weighted[model.ServiceType]{Value: model.ServiceType(k), Weight: m.Types[k]})
		}
	}
	if m.Families != nil {
		for _, k := range mixFamilies {
			out.Families = append(out.Families, model.Weighted[model.FamilyMix]{Value: model.FamilyMix(k), Weight: m.Families[k]})
		}
	}
	out.Endpoints = counts(m.Endpoints)
	out.Ports = counts(m.Ports)
	return out
}

func counts(w map[int]float64) []model.Weighted[int] {
	if w == nil {
		return nil
	}
	keys := make([]int, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]model.Weighted[int], len(keys))
	for i, k := range keys {
		out[i] = model.Weighted[int]{Value: k, Weight: w[k]}
	}
	return out
}
