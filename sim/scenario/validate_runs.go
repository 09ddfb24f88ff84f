package scenario

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

func validateSynthetic(f *file) []pathError {
	s := f.Synthetic
	at := func(k string) func(string, string) pathError { return fieldAt("synthetic", k) }
	if errs := checkRange(s.Services, rangeOf("synthetic.services"), at("services")); errs != nil {
		return errs
	}
	if errs := checkRange(s.EndpointsPerService, rangeOf("synthetic.endpointsPerService"), at("endpointsPerService")); errs != nil {
		return errs
	}
	if errs := validateMix(s.Mix); errs != nil {
		return errs
	}
	if _, err := newGeneratorFor(f, s.Services, s.EndpointsPerService, s.Seed); err != nil {
		return []pathError{at("services")(err.Error(), "use fewer services or a larger cluster.serviceCIDR / cluster.fillerCIDR")}
	}
	return nil
}

// newGeneratorFor returns a generator of synthetic services that fits the
// scenario's address plan and avoids its explicit services' clusterIPs.
func newGeneratorFor(f *file, services, endpoints int, seed uint64) (*model.Generator, error) {
	var reserved []netip.Addr
	for _, s := range f.Services {
		if ip, err := netip.ParseAddr(s.ClusterIP); err == nil {
			reserved = append(reserved, ip)
		}
	}
	for _, s := range f.objectServices() {
		for _, ip := range []netip.Addr{s.ClusterIP, s.SecondaryClusterIP} {
			if ip.Is4() {
				reserved = append(reserved, ip)
			}
		}
	}
	svcCIDR, err1 := netip.ParsePrefix(f.Cluster.ServiceCIDR)
	fillCIDR, err2 := netip.ParsePrefix(f.Cluster.FillerCIDR)
	podCIDR, err3 := netip.ParsePrefix(f.Cluster.PodCIDR)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, fmt.Errorf("the cluster CIDRs are not valid")
	}
	var mix *model.Mix
	if f.Synthetic != nil {
		mix = f.Synthetic.Mix.model()
	}
	return model.NewGenerator(model.GeneratorConfig{
		Services: services, EndpointsPerService: endpoints, Seed: seed, Mix: mix,
		ServiceCIDR: svcCIDR, EndpointCIDR: fillCIDR, ExcludeEndpoints: []netip.Prefix{podCIDR},
		ReservedClusterIPs: reserved,
	})
}

// checkDataplanes accepts unique names of sim/dataplane's list.
func checkDataplanes(list []string, at func(string, string) pathError) []pathError {
	for _, d := range list {
		if _, ok := dataplane.Lookup(d); !ok {
			return []pathError{at(fmt.Sprintf("unknown dataplane %q", d), "use "+strings.Join(dataplane.Names(), ", "))}
		}
	}
	if i, j := firstDuplicate(list); i >= 0 {
		return []pathError{at(fmt.Sprintf("dataplane %q is listed twice (%d and %d)", list[i], j, i), "list each dataplane once")}
	}
	return nil
}

func validateFairness(r *fairnessSpec) []pathError {
	at := func(k string) func(string, string) pathError { return fieldAt("fairness", k) }
	if r.Dataplanes == nil {
		r.Dataplanes = []string{string(dataplane.Default)}
	}
	var errs []pathError
	if len(r.Dataplanes) == 0 {
		errs = append(errs, at("dataplanes")("an empty list", "name at least one dataplane, or leave the field out for iptables-nft"))
	}
	errs = append(errs, checkDataplanes(r.Dataplanes, at("dataplanes"))...)
	errs = append(errs, intField(&r.Connections, "fairness.connections", at("connections"))...)
	errs = append(errs, intField(&r.Concurrency, "fairness.concurrency", at("concurrency"))...)
	if math.IsNaN(r.Rate) || r.Rate < 0 || r.Rate > MaxRate {
		errs = append(errs, at("rate")(fmt.Sprintf("rate %g", r.Rate), fmt.Sprintf("use 0 (as fast as possible) or a rate up to %g connections per second", float64(MaxRate))))
	}
	errs = append(errs, checkScheduler(r.Scheduler, at("scheduler"))...)
	errs = append(errs, validateFairnessPaths(r, at)...)
	if r.Mode == "" {
		r.Mode = "http"
	}
	switch r.Mode {
	case "connect", "http":
	case "keepalive":
		if r.RequestsPerConn == nil {
			v := 100
			r.RequestsPerConn = &v
		} else if *r.RequestsPerConn == 0 {
			errs = append(errs, at("requestsPerConn")("0 requests per connection in keepalive mode", "use ≥ 1, or leave the field out for 100"))
		}
	default:
		errs = append(errs, at("mode")(fmt.Sprintf("unknown mode %q", r.Mode), "use connect, http or keepalive"))
	}
	errs = append(errs, intField(&r.RequestsPerConn, "fairness.requestsPerConn", at("requestsPerConn"))...)
	return errs
}

// Positions a sweep may measure; PositionUniform spreads targets over all services.
var Positions = []string{"first", "middle", "last", PositionUniform}

// PositionUniform is the sweep position whose connections go to uniformly
// random services.
const PositionUniform = "uniform"

func validateSweep(f *file, cidrsOK bool) []pathError {
	s := f.Sweep
	at := func(k string) func(string, string) pathError { return fieldAt("sweep", k) }
	var errs []pathError
	errs = append(errs, validateSweepServices(f, cidrsOK)...)
	if s.Dataplanes == nil {
		s.Dataplanes = []string{string(dataplane.IPTablesNFT), string(dataplane.NFTables)}
	}
	if len(s.Dataplanes) == 0 {
		errs = append(errs, at("dataplanes")("an empty list", "name at least one dataplane, or leave the field out for iptables-nft, nftables"))
	}
	errs = append(errs, checkDataplanes(s.Dataplanes, at("dataplanes"))...)
	if len(s.Positions) == 0 {
		s.Positions = []string{"last"}
	}
	for _, p := range s.Positions {
		if !slices.Contains(Positions, p) {
			errs = append(errs, at("positions")(fmt.Sprintf("unknown position %q", p), "use "+strings.Join(Positions, ", ")))
		}
	}
	if i, _ := firstDuplicate(s.Positions); i >= 0 {
		errs = append(errs, fieldAt("sweep", "positions", i)(fmt.Sprintf("position %q is listed twice", s.Positions[i]), "list each position once"))
	}
	limits := []struct {
		key string
		m   map[string]int
		min int
	}{{"maxServices", s.MaxServices, 1}, {"syncLimit", s.SyncLimit, 0}, {"incrementalLimit", s.IncrementalLimit, 0}}
	for _, l := range limits {
		for _, dp := range sortedKeys(l.m) {
			errs = append(errs, checkDataplanes([]string{dp}, fieldAt("sweep", l.key, dp))...)
			errs = append(errs, checkRange(l.m[dp], intRange{min: l.min, max: MaxSyntheticServices}, fieldAt("sweep", l.key, dp))...)
		}
	}
	errs = append(errs, checkScheduler(s.Scheduler, at("scheduler"))...)
	errs = append(errs, validateWalkProbe(f, cidrsOK)...)
	errs = append(errs, validateAddrTypeProbe(f)...)
	errs = append(errs, validateRecentProbe(f)...)
	errs = append(errs, validateSyncProbe(f, cidrsOK)...)
	errs = append(errs, validateLookupProbe(f, cidrsOK)...)
	if s.IncrementalBatch != 0 {
		errs = append(errs, checkRange(s.IncrementalBatch, intRange{min: 2, max: MaxIncrementalBatch}, at("incrementalBatch"))...)
	}
	errs = append(errs, validateBatchKind(f, cidrsOK)...)
	if s.ProbeCPU != nil {
		errs = append(errs, checkRange(*s.ProbeCPU, intRange{min: 0, max: MaxProbeCPU}, at("probeCPU"))...)
	}
	for _, k := range []struct {
		p   **int
		key string
	}{
		{&s.EndpointsPerService, "endpointsPerService"}, {&s.Connections, "connections"}, {&s.Warmup, "warmup"},
		{&s.Repetitions, "repetitions"}, {&s.Concurrency, "concurrency"}, {&s.ThroughputConnections, "throughputConnections"},
	} {
		errs = append(errs, intField(k.p, "sweep."+k.key, at(k.key))...)
	}
	return errs
}

// validateSweepServices checks the service counts: each in range, unique,
// and the largest within the CIDRs and what a lab may hold.
func validateSweepServices(f *file, cidrsOK bool) []pathError {
	s := f.Sweep
	if len(s.Services) == 0 {
		return []pathError{fieldAt("sweep", "services")("a sweep needs service counts", "e.g. services: [1, 1000, 5000, 10000]")}
	}
	limit := MaxSweepServices
	if f.Lab.AllowLargeLabs {
		limit = MaxSyntheticServices
	}
	for i, n := range s.Services {
		at := fieldAt("sweep", "services", i)
		switch {
		case n < 1:
			return []pathError{at(fmt.Sprintf("%d services", n), "use counts ≥ 1")}
		case n > limit && !f.Lab.AllowLargeLabs:
			return []pathError{at(fmt.Sprintf("%d services: more than the %d a lab on this machine is known to hold", n, limit), "use fewer, or set lab.allowLargeLabs: true to try anyway")}
		case n > limit:
			return []pathError{at(fmt.Sprintf("%d services: more than the limit of %d", n, limit), "use fewer")}
		}
	}
	if i, j := firstDuplicate(s.Services); i >= 0 {
		return []pathError{fieldAt("sweep", "services", i)(fmt.Sprintf("%d is also services[%d]", s.Services[i], j), "list each count once")}
	}
	eps := rangeOf("sweep.endpointsPerService").def
	if s.EndpointsPerService != nil {
		eps = *s.EndpointsPerService
	}
	if !cidrsOK || eps < 0 || eps > MaxEndpointsPerService {
		return nil // reported elsewhere
	}
	largest := slices.Index(s.Services, slices.Max(s.Services))
	if _, err := newGeneratorFor(f, s.Services[largest], eps, s.Seed); err != nil {
		return []pathError{fieldAt("sweep", "services", largest)(err.Error(), "use fewer services or a larger cluster.serviceCIDR / cluster.fillerCIDR")}
	}
	return nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkScheduler accepts the IPVS schedulers kube-proxy offers.
func checkScheduler(s string, at func(string, string) pathError) []pathError {
	switch s {
	case "", "rr", "wrr", "lc", "sh", "mh":
		return nil
	}
	return []pathError{at(fmt.Sprintf("unknown IPVS scheduler %q", s), "use rr, wrr, lc, sh or mh")}
}

// MinWalkProbe is the smallest walk probe: the three targets and one other
// service, whose chain the others share.
const MinWalkProbe = 4

// validateWalkProbe checks sweep.walkProbe: sizes in range, unique, within
// the CIDRs, and a dataplane whose lookup walks rules to probe.
func validateWalkProbe(f *file, cidrsOK bool) []pathError {
	s := f.Sweep
	if len(s.WalkProbe) == 0 {
		return nil
	}
	errs := checkProbeSizes("walkProbe", s.WalkProbe, MinWalkProbe)
	if !slices.ContainsFunc(s.Dataplanes, walksRules) {
		errs = append(errs, fieldAt("sweep", "walkProbe")("no dataplane of the sweep walks rules", "add an iptables dataplane (iptables-legacy, iptables-nft), or leave walkProbe out"))
	}
	if len(errs) > 0 || !cidrsOK {
		return errs
	}
	return probeFits(f, "walkProbe", s.WalkProbe)
}

// MaxAddrTypeProbe is the most addrtype rules an addrtype probe adds: one
// NodePort service without endpoints each, within the node-port range.
var MaxAddrTypeProbe = model.NodePortsWithoutEndpoints().MaxServicesWithNodePorts()

// validateAddrTypeProbe checks sweep.addrTypeProbe: sizes unique, each a
// walk probe's (the probe is timed against it), within MaxAddrTypeProbe.
func validateAddrTypeProbe(f *file) []pathError {
	s := f.Sweep
	if len(s.AddrTypeProbe) == 0 {
		return nil
	}
	at := fieldAt("sweep", "addrTypeProbe")
	errs := checkProbeSizes("addrTypeProbe", s.AddrTypeProbe, MinWalkProbe)
	for _, n := range s.AddrTypeProbe {
		switch {
		case n > MaxAddrTypeProbe:
			errs = append(errs, at(fmt.Sprintf("%d addrtype rules: an addrtype probe adds at most %d (one NodePort each)", n, MaxAddrTypeProbe),
				fmt.Sprintf("use a walk probe size up to %d", MaxAddrTypeProbe)))
		case !slices.Contains(s.WalkProbe, n):
			errs = append(errs, at(fmt.Sprintf("%d is not a walk probe size (sweep.walkProbe): the addrtype probe is timed against the walk probe of its size", n),
				fmt.Sprintf("add %d to sweep.walkProbe, or use one of its sizes", n)))
		}
	}
	return errs
}

// MaxRecentProbe is the most xt_recent lists a recent probe creates: each
// is a few KiB of kernel memory and a proc file, and loading them walks
// the list once per list (about 100,000² / 2 steps at this bound).
const MaxRecentProbe = 100000

// validateRecentProbe checks sweep.recentProbe: within 1..MaxRecentProbe,
// with a walk probe to time it against.
func validateRecentProbe(f *file) []pathError {
	s := f.Sweep
	if s.RecentProbe == 0 {
		return nil
	}
	at := fieldAt("sweep", "recentProbe")
	switch {
	case s.RecentProbe < 0 || s.RecentProbe > MaxRecentProbe:
		return []pathError{at(fmt.Sprintf("%d xt_recent lists: want 1..%d (0: no recent probe)", s.RecentProbe, MaxRecentProbe), "use a count of lists like a cluster's ClientIP-affinity endpoints")}
	case len(s.WalkProbe) == 0:
		return []pathError{at("a recent probe is timed against the smallest walk probe, and sweep.walkProbe is empty", "add a size to sweep.walkProbe")}
	}
	return nil
}

// MaxProbeCPU is the highest CPU sweep.probeCPU names: the kernel's
// CPU_SETSIZE less one. Whether the run's process may use it is checked
// when the run starts.
const MaxProbeCPU = 1023

// MaxIncrementalBatch is the most changes sweep.incrementalBatch carries
// in one sync.
const MaxIncrementalBatch = 10000

// MinSyncProbe is the smallest sync probe: the sweep's three targets.
const MinSyncProbe = 3

// validateSyncProbe checks sweep.syncProbe: sizes in range, unique and
// within the CIDRs.
func validateSyncProbe(f *file, cidrsOK bool) []pathError {
	s := f.Sweep
	if len(s.SyncProbe) == 0 {
		return nil
	}
	if errs := checkProbeSizes("syncProbe", s.SyncProbe, MinSyncProbe); len(errs) > 0 || !cidrsOK {
		return errs
	}
	return probeFits(f, "syncProbe", s.SyncProbe)
}

// validateLookupProbe checks sweep.lookupProbe: sizes in range, unique,
// within the CIDRs, a dataplane that looks services up in a map, and the
// uniform position to probe.
func validateLookupProbe(f *file, cidrsOK bool) []pathError {
	s := f.Sweep
	if len(s.LookupProbe) == 0 {
		return nil
	}
	at := fieldAt("sweep", "lookupProbe")
	errs := checkProbeSizes("lookupProbe", s.LookupProbe, MinSyncProbe)
	if !slices.ContainsFunc(s.Dataplanes, looksUpMaps) {
		errs = append(errs, at("no dataplane of the sweep looks services up in a map", "add nftables or ipvs to sweep.dataplanes, or leave lookupProbe out"))
	}
	if !slices.Contains(s.Positions, PositionUniform) {
		errs = append(errs, at("a lookup probe measures the uniform position, which sweep.positions does not list", "add uniform to sweep.positions, or leave lookupProbe out"))
	}
	if len(errs) > 0 || !cidrsOK {
		return errs
	}
	return probeFits(f, "lookupProbe", s.LookupProbe)
}

// checkProbeSizes checks one probe list (sweep.FIELD): each size in
// minSize..MaxSyntheticServices and listed once.
func checkProbeSizes(field string, sizes []int, minSize int) []pathError {
	var errs []pathError
	for i, n := range sizes {
		errs = append(errs, checkRange(n, intRange{min: minSize, max: MaxSyntheticServices}, fieldAt("sweep", field, i))...)
	}
	if i, j := firstDuplicate(sizes); i >= 0 {
		errs = append(errs, fieldAt("sweep", field, i)(fmt.Sprintf("%d is also %s[%d]", sizes[i], field, j), "list each size once"))
	}
	return errs
}

// probeFits checks that the largest probe of sweep.FIELD fits the
// cluster's CIDRs.
func probeFits(f *file, field string, sizes []int) []pathError {
	largest := slices.Index(sizes, slices.Max(sizes))
	if _, err := newGeneratorFor(f, sizes[largest], 1, f.Sweep.Seed); err != nil {
		return []pathError{fieldAt("sweep", field, largest)(err.Error(), "use a smaller probe or a larger cluster.serviceCIDR / cluster.fillerCIDR")}
	}
	return nil
}

// walksRules says whether a dataplane's service lookup is a rule walk.
func walksRules(name string) bool {
	info, ok := dataplane.Lookup(name)
	return ok && info.Lookup == dataplane.LinearWalk
}

// looksUpMaps says whether a dataplane finds a service in a map.
func looksUpMaps(name string) bool {
	info, ok := dataplane.Lookup(name)
	return ok && info.Lookup == dataplane.MapLookup
}

// batchKindOrDefault is sweep.incrementalBatchKind with its default.
func batchKindOrDefault(kind string) string {
	if kind == "" {
		return BatchEndpoints
	}
	return kind
}

// validateBatchKind checks sweep.incrementalBatchKind: a known kind, a
// batch to apply it to, and for Service creations dataplanes that create
// services in a partial sync and room in the CIDRs for the new services
// on top of the largest point.
func validateBatchKind(f *file, cidrsOK bool) []pathError {
	s := f.Sweep
	at := fieldAt("sweep", "incrementalBatchKind")
	switch s.IncrementalBatchKind {
	case "", BatchEndpoints:
		return nil
	case BatchServices:
	default:
		return []pathError{at(fmt.Sprintf("unknown batch kind %q", s.IncrementalBatchKind), "use endpoints or services")}
	}
	if s.IncrementalBatch == 0 {
		return []pathError{at("services is a kind of sweep.incrementalBatch, which is not set", "set sweep.incrementalBatch (e.g. 100), or leave incrementalBatchKind out")}
	}
	var errs []pathError
	for i, name := range s.Dataplanes {
		if info, ok := dataplane.Lookup(name); ok && !info.PartialCreates {
			errs = append(errs, fieldAt("sweep", "dataplanes", i)(name+" does not create services in a partial sync in the lab", "time Service creations on "+strings.Join(partialCreators(), ", ")+", or use incrementalBatchKind: endpoints"))
		}
	}
	if len(errs) > 0 || !cidrsOK || len(s.Services) == 0 {
		return errs
	}
	largest := slices.Max(s.Services) + s.IncrementalBatch
	if _, err := newGeneratorFor(f, largest, 1, s.Seed); err != nil {
		return []pathError{at(fmt.Sprintf("the largest point plus %d new services: %v", s.IncrementalBatch, err), "use a smaller batch or a larger cluster.serviceCIDR / cluster.fillerCIDR")}
	}
	return nil
}

// partialCreators names the dataplanes that create services in a partial
// sync (sim/dataplane's PartialCreates), in the registry's order.
func partialCreators() []string {
	var out []string
	for _, d := range dataplane.All() {
		if d.PartialCreates {
			out = append(out, string(d.Name))
		}
	}
	return out
}
