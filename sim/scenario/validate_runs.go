package scenario

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

func validateSynthetic(f *file) []pathError {
	s := f.Synthetic
	at := func(k string) func(string, string) pathError { return fieldAt("synthetic", k) }
	if s.Services < 0 {
		return []pathError{at("services")(fmt.Sprintf("%d services", s.Services), "use a count ≥ 0")}
	}
	if s.EndpointsPerService < 0 {
		return []pathError{at("endpointsPerService")(fmt.Sprintf("%d endpoints", s.EndpointsPerService), "use a count ≥ 0")}
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
	svcCIDR, err1 := netip.ParsePrefix(f.Cluster.ServiceCIDR)
	fillCIDR, err2 := netip.ParsePrefix(f.Cluster.FillerCIDR)
	podCIDR, err3 := netip.ParsePrefix(f.Cluster.PodCIDR)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, fmt.Errorf("the cluster CIDRs are not valid")
	}
	return model.NewGenerator(model.GeneratorConfig{
		Services: services, EndpointsPerService: endpoints, Seed: seed,
		ServiceCIDR: svcCIDR, EndpointCIDR: fillCIDR, ExcludeEndpoints: []netip.Prefix{podCIDR},
		ReservedClusterIPs: reserved,
	})
}

func checkDataplanes(list []string, at func(string, string) pathError) []pathError {
	for _, d := range list {
		if _, ok := dataplane.Lookup(d); !ok {
			return []pathError{at(fmt.Sprintf("unknown dataplane %q", d), "use "+strings.Join(dataplane.Names(), ", "))}
		}
	}
	return nil
}

func validateFairness(r *fairnessSpec) []pathError {
	at := func(k string) func(string, string) pathError { return fieldAt("fairness", k) }
	if len(r.Dataplanes) == 0 {
		r.Dataplanes = []string{"iptables-nft"}
	}
	errs := checkDataplanes(r.Dataplanes, at("dataplanes"))
	if r.Connections == 0 {
		r.Connections = 20000
	}
	if r.Concurrency == 0 {
		r.Concurrency = 4
	}
	if r.Mode == "" {
		r.Mode = "http"
	}
	if r.Connections < 1 {
		errs = append(errs, at("connections")(fmt.Sprintf("%d connections", r.Connections), "use a count ≥ 1"))
	}
	if r.Concurrency < 1 || r.Concurrency > 1024 {
		errs = append(errs, at("concurrency")(fmt.Sprintf("concurrency %d", r.Concurrency), "use 1..1024"))
	}
	if r.Rate < 0 {
		errs = append(errs, at("rate")(fmt.Sprintf("rate %g", r.Rate), "use 0 (as fast as possible) or a positive rate"))
	}
	errs = append(errs, checkScheduler(r.Scheduler, at("scheduler"))...)
	switch r.Mode {
	case "connect", "http":
	case "keepalive":
		if r.RequestsPerConn == 0 {
			r.RequestsPerConn = 100
		}
	default:
		errs = append(errs, at("mode")(fmt.Sprintf("unknown mode %q", r.Mode), "use connect, http or keepalive"))
	}
	return errs
}

// Positions a sweep may measure; "uniform" spreads targets over all services.
var Positions = []string{"first", "middle", "last", "uniform"}

func validateSweep(s *sweepSpec) []pathError {
	at := func(k string) func(string, string) pathError { return fieldAt("sweep", k) }
	var errs []pathError
	if len(s.Services) == 0 {
		errs = append(errs, at("services")("a sweep needs service counts", "e.g. services: [1, 1000, 5000, 10000]"))
	}
	for i, n := range s.Services {
		if n < 1 {
			errs = append(errs, fieldAt("sweep", "services", i)(fmt.Sprintf("%d services", n), "use counts ≥ 1"))
		}
	}
	if len(s.Dataplanes) == 0 {
		s.Dataplanes = []string{"iptables-nft", "nftables"}
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
	for dp, n := range s.MaxServices {
		errs = append(errs, checkDataplanes([]string{dp}, at("maxServices"))...)
		if n < 1 {
			errs = append(errs, at("maxServices")(fmt.Sprintf("%s: %d", dp, n), "use a count ≥ 1"))
		}
	}
	for dp := range s.SyncLimit {
		errs = append(errs, checkDataplanes([]string{dp}, at("syncLimit"))...)
	}
	for dp := range s.IncrementalLimit {
		errs = append(errs, checkDataplanes([]string{dp}, at("incrementalLimit"))...)
	}
	errs = append(errs, checkScheduler(s.Scheduler, at("scheduler"))...)
	defaultInt(&s.ThroughputConnections, 2000)
	defaultInt(&s.EndpointsPerService, 1)
	defaultInt(&s.Connections, 2000)
	defaultInt(&s.Warmup, 200)
	defaultInt(&s.Repetitions, 3)
	defaultInt(&s.Concurrency, 1)
	if s.Connections < 1 || s.Repetitions < 1 || s.Concurrency < 1 || s.Warmup < 0 {
		errs = append(errs, at("connections")("connections, repetitions and concurrency must be ≥ 1, warmup ≥ 0", ""))
	}
	return errs
}

func defaultInt(v *int, def int) {
	if *v == 0 {
		*v = def
	}
}

// checkScheduler accepts the IPVS schedulers kube-proxy offers.
func checkScheduler(s string, at func(string, string) pathError) []pathError {
	switch s {
	case "", "rr", "wrr", "lc", "sh", "mh":
		return nil
	}
	return []pathError{at(fmt.Sprintf("unknown IPVS scheduler %q", s), "use rr, wrr, lc, sh or mh")}
}
