package apply

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"
	"time"

	cipvs "github.com/cloudflare/ipvs"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// ErrNoIPVS means the kernel has no IPVS (no ip_vs module): run the IPVS
// dataplane on a kernel with CONFIG_IP_VS, or in the user-mode-linux guest.
var ErrNoIPVS = errors.New("the kernel has no IPVS (ip_vs); use a kernel with CONFIG_IP_VS or the user-mode-linux guest (see `svclab doctor`)")

// IPVS programs kube-proxy's IPVS mode into a node namespace: the
// kube-ipvs0 dummy holding every ClusterIP, kube-proxy's ipsets and
// iptables rules, and the virtual and real servers over generic netlink.
// The servers are parsed from sim/render/ipvs's ipvsadm text, so what is
// rendered and what is applied cannot drift apart.
type IPVS struct {
	// Netns is the node namespace everything is programmed in.
	Netns string
	// Options shape the rendered payloads (scheduler, node IPs, ...).
	Options ipvs.Options
	// IPTables loads the constant rules of IPv4 (its ForFamily(IPv6),
	// ip6tables, those of IPv6); iptables-legacy by default, which works
	// wherever IPVS does (the UML guest has no nf_tables ip family).
	IPTables *IPTables

	dial  func() (ipvsClient, error) // generic netlink, inside Netns
	links addressBinder              // kube-ipvs0, inside Netns
	// v6 says ip6tables rules were loaded, so Reset flushes them too.
	v6 bool
}

// ipvsClient is the part of cloudflare/ipvs the dataplane uses: the
// netlink boundary that tests fake.
type ipvsClient interface {
	Info() (cipvs.Info, error)
	Services() ([]cipvs.ServiceExtended, error)
	CreateService(cipvs.Service) error
	RemoveService(cipvs.Service) error
	Destinations(cipvs.Service) ([]cipvs.DestinationExtended, error)
	CreateDestination(cipvs.Service, cipvs.Destination) error
	RemoveDestination(cipvs.Service, cipvs.Destination) error
	Close() error
}

// addressBinder keeps the dummy link's addresses; tests fake it (this
// host's kernel has no dummy driver).
type addressBinder interface {
	Bind(addrs []netip.Addr) error
	Remove() error
}

// NewIPVS returns the "ipvs" dataplane for nodeNetns. It fails, wrapping
// ErrNoIPVS, when the kernel has no IPVS.
func NewIPVS(nodeNetns string, opts ipvs.Options) (Dataplane, error) {
	d := &IPVS{
		Netns: nodeNetns, Options: opts, IPTables: &IPTables{Netns: nodeNetns, Backend: ipvsBackend()},
		dial: kernelIPVS(nodeNetns), links: dummyLink{netns: nodeNetns},
	}
	if _, err := ipvs.RenderIPVSAdm(io.Discard, &model.Model{Services: model.Slice(nil)}, opts); err != nil {
		return nil, err
	}
	c, err := d.dial()
	if err != nil {
		return nil, err
	}
	return d, c.Close()
}

// Name is sim/dataplane's IPVS.
func (d *IPVS) Name() string { return string(dataplane.IPVS) }

// ipvsBackend is the iptables backend of the IPVS dataplane's iptables
// rules (sim/dataplane).
func ipvsBackend() string {
	info, _ := dataplane.Lookup(string(dataplane.IPVS))
	return info.IPTablesBackend
}

// Version names the kernel's IPVS and the ipset and iptables tools.
func (d *IPVS) Version() string {
	parts := []string{"IPVS unavailable"}
	if c, err := d.dial(); err == nil {
		if info, err := c.Info(); err == nil {
			parts[0] = fmt.Sprintf("IPVS %d.%d.%d (generic netlink)", info.Version[0], info.Version[1], info.Version[2])
		}
		c.Close()
	}
	if out, err := netns.Output(d.Netns, nil, "ipset", "version"); err == nil {
		parts = append(parts, strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]))
	}
	return strings.Join(append(parts, d.IPTables.Version()), "; ")
}

// ipvsPayloads are the rendered texts one sync loads: one payload per
// family of the model, as kube-proxy runs one IPVS proxier per family.
type ipvsPayloads struct {
	families []*ipvsFamilyPayload
	stats    render.Stats
}

// ipvsFamilyPayload is what one family's proxier writes: its ipvsadm
// table, its ipsets (KUBE-* or KUBE-6-*), its iptables (or ip6tables)
// rules and jumps, and the addresses it binds to kube-ipvs0.
type ipvsFamilyPayload struct {
	family                          model.Family
	ipvsadm, ipset, iptables, jumps bytes.Buffer
	addrs                           []netip.Addr
}

// renderIPVS renders m, one payload per family (model.ForFamily); stats
// count IPVS servers as Rules and Chains (virtual servers), ipsets as Sets
// and Elements, and the lines and bytes of all three payloads, summed over
// the families.
func renderIPVS(m *model.Model, opts ipvs.Options) (*ipvsPayloads, error) {
	p := &ipvsPayloads{}
	for _, f := range model.Families(m.Services) {
		mf := model.ForFamily(*m, f)
		fp, stats, err := renderIPVSFamily(&mf, opts)
		if err != nil {
			return nil, fmt.Errorf("ipvs %s payload: %w", f, err)
		}
		p.families = append(p.families, fp)
		p.stats = addStats(p.stats, stats)
	}
	return p, nil
}

// renderIPVSFamily renders the payloads of m, a model of one family.
func renderIPVSFamily(m *model.Model, opts ipvs.Options) (*ipvsFamilyPayload, render.Stats, error) {
	p := &ipvsFamilyPayload{family: m.Family}
	adm, err := ipvs.RenderIPVSAdm(&p.ipvsadm, m, opts)
	if err != nil {
		return nil, render.Stats{}, err
	}
	sets, err := ipvs.RenderIPSet(&p.ipset, m, opts)
	if err != nil {
		return nil, render.Stats{}, err
	}
	ipt, err := ipvs.RenderIPTables(&p.iptables, m, opts)
	if err != nil {
		return nil, render.Stats{}, err
	}
	if _, err := ipvs.RenderJumps(&p.jumps); err != nil {
		return nil, render.Stats{}, err
	}
	p.addrs = slices.Collect(ipvs.BindAddresses(m, opts))
	return p, render.Stats{
		Lines: adm.Lines + sets.Lines + ipt.Lines, Bytes: adm.Bytes + sets.Bytes + ipt.Bytes,
		Rules: adm.Rules, Chains: adm.Chains, Sets: sets.Sets, Elements: sets.Elements,
	}, nil
}

// servers parses every family's ipvsadm text.
func (p *ipvsPayloads) servers() ([]virtualServer, error) {
	var out []virtualServer
	for _, fp := range p.families {
		servers, err := parseIPVSAdm(fp.ipvsadm.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fp.family, err)
		}
		out = append(out, servers...)
	}
	return out, nil
}

// addrs and sets join the families' addresses and ipset payloads (both
// families' sets live in one ipset namespace, under distinct names).
func (p *ipvsPayloads) addrs() []netip.Addr {
	var out []netip.Addr
	for _, fp := range p.families {
		out = append(out, fp.addrs...)
	}
	return out
}

func (p *ipvsPayloads) sets() []byte {
	var out []byte
	for _, fp := range p.families {
		out = append(out, fp.ipset.Bytes()...)
	}
	return out
}

// iptablesFor is the applier of family f: iptables or ip6tables, same
// backend. Once IPv6 rules are loaded Reset flushes ip6tables too.
func (d *IPVS) iptablesFor(f model.Family) *IPTables {
	if f != model.IPv6 {
		return d.IPTables
	}
	d.v6 = true
	return d.IPTables.ForFamily(model.IPv6)
}

// restoreAllRules loads each family's iptables rules and jumps.
func (d *IPVS) restoreAllRules(p *ipvsPayloads) error {
	for _, fp := range p.families {
		if err := d.restoreRules(d.iptablesFor(fp.family), fp.iptables.Bytes(), fp.jumps.Bytes()); err != nil {
			return fmt.Errorf("%s: %w", fp.family, err)
		}
	}
	return nil
}

// FullSync programs m, each family as its own proxier would: ClusterIPs on
// kube-ipvs0, the ipsets (flushed and refilled), the iptables (ip6tables)
// rules and jumps, then the virtual and real servers of both families,
// reconciled with what the kernel already holds. Duration times all of
// it, rendering excluded.
func (d *IPVS) FullSync(_ context.Context, m *model.Model) (Sync, error) {
	p, err := renderIPVS(m, d.Options)
	if err != nil {
		return Sync{}, err
	}
	servers, err := p.servers()
	if err != nil {
		return Sync{}, fmt.Errorf("ipvs full sync: rendered ipvsadm text: %w", err)
	}
	start := time.Now()
	steps := []struct {
		what string
		fn   func() error
	}{
		{"bind ClusterIPs to " + ipvs.DummyInterface, func() error { return d.links.Bind(p.addrs()) }},
		{"ipset restore", func() error { return d.restoreSets(p.sets()) }},
		{"iptables rules", func() error { return d.restoreAllRules(p) }},
		{"IPVS sysctls", d.setSysctls},
		{"IPVS virtual servers", func() error { _, err := d.syncServers(servers); return err }},
	}
	for _, s := range steps {
		if err := s.fn(); err != nil {
			return Sync{}, fmt.Errorf("ipvs full sync in netns %s: %s: %w", d.Netns, s.what, err)
		}
	}
	return Sync{Payload: p.stats, Duration: time.Since(start)}, nil
}

// RealServerStat is one real server's IPVS counters.
type RealServerStat struct {
	Addr        netip.AddrPort
	Connections uint64
	InPackets   uint64
}

// RealServerCounters reads the counters of the real servers behind virtual
// server vip, sorted by address. Compare two readings: the kernel folds
// its per-CPU counters into these only every 2 s (its rate estimator), and
// a real server removed and re-added soon after keeps its old counts.
func (d *IPVS) RealServerCounters(vip netip.AddrPort, proto model.Protocol) ([]RealServerStat, error) {
	p, err := ipvsProtocol(string(proto))
	if err != nil {
		return nil, err
	}
	c, err := d.dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	svc := cipvs.Service{Address: vip.Addr().Unmap(), Port: vip.Port(), Family: familyOf(vip.Addr().Unmap()), Protocol: p}
	dests, err := c.Destinations(svc)
	if err == nil && len(dests) == 0 {
		err = serviceExists(c, svc)
	}
	if err != nil {
		return nil, fmt.Errorf("read real servers of %s %s in netns %s: %w", proto, vip, d.Netns, err)
	}
	out := make([]RealServerStat, len(dests))
	for i, dst := range dests {
		st := dst.Stats64
		if st == (cipvs.Stats{}) {
			st = dst.Stats
		}
		out[i] = RealServerStat{Addr: netip.AddrPortFrom(dst.Address, dst.Port), Connections: st.Connections, InPackets: st.IncomingPackets}
	}
	slices.SortFunc(out, func(a, b RealServerStat) int { return a.Addr.Compare(b.Addr) })
	return out, nil
}

// serviceExists is nil if the kernel has virtual server svc.
func serviceExists(c ipvsClient, svc cipvs.Service) error {
	services, err := c.Services()
	if err != nil {
		return err
	}
	for _, s := range services {
		if keyOf(s.Service) == keyOf(svc) {
			return nil
		}
	}
	return errors.New("no such virtual server")
}

// Close resets the namespace.
func (d *IPVS) Close() error { return d.Reset(context.Background()) }

// Reset removes the virtual servers, the iptables rules, kube-proxy's
// ipsets and the dummy link; it is safe on a namespace never synced.
func (d *IPVS) Reset(context.Context) error {
	var errs []error
	if c, err := d.dial(); err == nil {
		errs = append(errs, removeAllServices(c), c.Close())
	} else if !errors.Is(err, ErrNoIPVS) {
		errs = append(errs, err)
	}
	errs = append(errs, d.IPTables.Reset())
	if d.v6 {
		errs = append(errs, d.IPTables.ForFamily(model.IPv6).Reset())
	}
	errs = append(errs, d.destroySets(), d.links.Remove())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("reset ipvs in netns %s: %w", d.Netns, err)
	}
	return nil
}

func removeAllServices(c ipvsClient) error {
	services, err := c.Services()
	if err != nil {
		return err
	}
	for _, s := range services {
		if err := c.RemoveService(s.Service); err != nil {
			return fmt.Errorf("remove virtual server %s: %w", keyOf(s.Service).addr, err)
		}
	}
	return nil
}

// destroySets destroys kube-proxy's (KUBE-*) ipsets.
func (d *IPVS) destroySets() error {
	out, err := netns.Output(d.Netns, nil, "ipset", "list", "-n")
	if err != nil {
		return err
	}
	var script strings.Builder
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "KUBE-") {
			script.WriteString("destroy " + name + "\n")
		}
	}
	if script.Len() == 0 {
		return nil
	}
	_, err = netns.Output(d.Netns, []byte(script.String()), "ipset", "restore")
	return err
}
