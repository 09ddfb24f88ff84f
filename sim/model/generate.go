package model

import (
	"fmt"
	"net/netip"
	"strconv"
)

// GeneratorConfig describes a synthetic service set.
type GeneratorConfig struct {
	Services            int
	EndpointsPerService int
	Seed                uint64
	// ServiceCIDR is where ClusterIPs come from (default 10.96.0.0/12).
	ServiceCIDR netip.Prefix
	// EndpointCIDR is where endpoint IPs come from (default 10.128.0.0/9).
	EndpointCIDR netip.Prefix
	// ExcludeEndpoints are sub-ranges of EndpointCIDR never handed out,
	// e.g. the real pods' CIDR (default 10.244.0.0/16).
	ExcludeEndpoints []netip.Prefix
	// ReservedClusterIPs are ClusterIPs used by explicit services.
	ReservedClusterIPs []netip.Addr
	// Port is every synthetic service's port (default http TCP 80 → 8080).
	Port Port
	// Namespace prefixes namespaces; ServicesPerNamespace services share one.
	Namespace            string
	ServicesPerNamespace int
	// Mix, when set, shapes the services (types, policies, families,
	// endpoint and port counts; see Mix). nil keeps the classic generator:
	// one ClusterIP service after another, byte for byte as before.
	Mix *Mix
	// ServiceCIDRv6 and EndpointCIDRv6 hold a Mix's IPv6 addresses,
	// ExternalCIDR and ExternalCIDRv6 its load-balancer and external IPs
	// (defaults DefaultServiceCIDRv6 etc.).
	ServiceCIDRv6, EndpointCIDRv6 netip.Prefix
	ExternalCIDR, ExternalCIDRv6  netip.Prefix
}

// Defaults for synthetic services.
var (
	DefaultEndpointCIDR = netip.MustParsePrefix("10.128.0.0/9")
	DefaultPodCIDR      = netip.MustParsePrefix("10.244.0.0/16")
	DefaultPort         = Port{Name: "http", Protocol: TCP, Port: 80, TargetPort: 8080}
)

// Generator builds synthetic services on demand. It implements List.
type Generator struct {
	cfg       GeneratorConfig
	services  *addrPool
	endpoints *addrPool
	plan      mixPlan // with a Mix
}

// NewGenerator validates cfg, fills defaults and prepares the address pools.
func NewGenerator(cfg GeneratorConfig) (*Generator, error) {
	fillGeneratorDefaults(&cfg)
	if cfg.Services < 0 || cfg.EndpointsPerService < 0 {
		return nil, fmt.Errorf("synthetic services and endpoints must not be negative (got %d, %d)", cfg.Services, cfg.EndpointsPerService)
	}
	svcPool, err := newAddrPool(cfg.ServiceCIDR, 2, nil, cfg.ReservedClusterIPs, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("service CIDR: %w", err)
	}
	if uint64(cfg.Services) > svcPool.capacity() {
		return nil, fmt.Errorf("%d services do not fit in service CIDR %s (room for %d)", cfg.Services, cfg.ServiceCIDR, svcPool.capacity())
	}
	epPool, err := newAddrPool(cfg.EndpointCIDR, 1, cfg.ExcludeEndpoints, nil, cfg.Seed+1)
	if err != nil {
		return nil, fmt.Errorf("endpoint CIDR: %w", err)
	}
	need := uint64(cfg.Services) * uint64(cfg.EndpointsPerService)
	var plan mixPlan
	if cfg.Mix != nil {
		if err := cfg.Mix.Validate(); err != nil {
			return nil, err
		}
		if limit := cfg.Mix.MaxServicesWithNodePorts(); cfg.Mix.hasNodePorts() && cfg.Services > limit {
			return nil, fmt.Errorf("%d services: a mix with NodePort or LoadBalancer services makes at most %d (each needs its own node ports, %d..%d)",
				cfg.Services, limit, firstMixNodePort, lastMixNodePort)
		}
		plan = newMixPlan(&cfg)
		need = plan.offsets[cfg.Services]
	}
	if need > epPool.capacity() {
		return nil, fmt.Errorf("%d endpoints do not fit in endpoint CIDR %s (room for %d)", need, cfg.EndpointCIDR, epPool.capacity())
	}
	return &Generator{cfg: cfg, services: svcPool, endpoints: epPool, plan: plan}, nil
}

func fillGeneratorDefaults(cfg *GeneratorConfig) {
	if !cfg.ServiceCIDR.IsValid() {
		cfg.ServiceCIDR = DefaultCluster().ServiceCIDR
	}
	if !cfg.EndpointCIDR.IsValid() {
		cfg.EndpointCIDR = DefaultEndpointCIDR
	}
	if cfg.ExcludeEndpoints == nil {
		cfg.ExcludeEndpoints = []netip.Prefix{DefaultPodCIDR}
	}
	if cfg.Port.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "synth"
	}
	if cfg.ServicesPerNamespace <= 0 {
		cfg.ServicesPerNamespace = 1000
	}
	for _, d := range []struct {
		p   *netip.Prefix
		def netip.Prefix
	}{
		{&cfg.ServiceCIDRv6, DefaultServiceCIDRv6}, {&cfg.EndpointCIDRv6, DefaultEndpointCIDRv6},
		{&cfg.ExternalCIDR, DefaultExternalCIDR}, {&cfg.ExternalCIDRv6, DefaultExternalCIDRv6},
	} {
		if !d.p.IsValid() {
			*d.p = d.def
		}
	}
}

// Config returns the configuration with defaults filled in.
func (g *Generator) Config() GeneratorConfig { return g.cfg }

// Len returns the number of synthetic services.
func (g *Generator) Len() int { return g.cfg.Services }

// At builds synthetic service i.
func (g *Generator) At(i int) *Service {
	if g.cfg.Mix != nil {
		return g.mixedAt(i)
	}
	m := g.cfg.EndpointsPerService
	eps := make([]Endpoint, m)
	for j := range eps {
		eps[j] = Endpoint{IP: g.endpoints.addr(uint64(i)*uint64(m) + uint64(j)), Ready: true, Node: "node-1"}
	}
	return &Service{
		Namespace: g.cfg.Namespace + "-" + strconv.Itoa(i/g.cfg.ServicesPerNamespace),
		Name:      "svc-" + strconv.Itoa(i),
		Type:      ClusterIP,
		ClusterIP: g.services.addr(uint64(i)),
		Ports:     []Port{g.cfg.Port},
		Endpoints: eps,
	}
}

// TotalEndpoints returns the endpoint count over all service ports without
// building the services.
func (g *Generator) TotalEndpoints() int {
	if g.cfg.Mix != nil {
		return g.plan.total
	}
	return g.cfg.Services * g.cfg.EndpointsPerService
}
