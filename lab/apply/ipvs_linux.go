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
	// IPTables loads the constant rules; iptables-legacy by default,
	// which works wherever IPVS does (the UML guest has no nf_tables ip
	// family).
	IPTables *IPTables

	dial  func() (ipvsClient, error) // generic netlink, inside Netns
	links addressBinder              // kube-ipvs0, inside Netns
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
		Netns: nodeNetns, Options: opts, IPTables: &IPTables{Netns: nodeNetns, Backend: "legacy"},
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

// Name is "ipvs".
func (d *IPVS) Name() string { return "ipvs" }

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

// ipvsPayloads are the rendered texts one sync loads.
type ipvsPayloads struct {
	ipvsadm, ipset, iptables, jumps bytes.Buffer
	stats                           render.Stats
}

// renderIPVS renders m; stats count IPVS servers as Rules and Chains
// (virtual servers), ipsets as Sets and Elements, and the lines and bytes
// of all three payloads.
func renderIPVS(m *model.Model, opts ipvs.Options) (*ipvsPayloads, error) {
	p := &ipvsPayloads{}
	adm, err := ipvs.RenderIPVSAdm(&p.ipvsadm, m, opts)
	if err != nil {
		return nil, err
	}
	sets, err := ipvs.RenderIPSet(&p.ipset, m, opts)
	if err != nil {
		return nil, err
	}
	ipt, err := ipvs.RenderIPTables(&p.iptables, m, opts)
	if err != nil {
		return nil, err
	}
	if _, err := ipvs.RenderJumps(&p.jumps); err != nil {
		return nil, err
	}
	p.stats = render.Stats{
		Lines: adm.Lines + sets.Lines + ipt.Lines, Bytes: adm.Bytes + sets.Bytes + ipt.Bytes,
		Rules: adm.Rules, Chains: adm.Chains, Sets: sets.Sets, Elements: sets.Elements,
	}
	return p, nil
}

// FullSync programs m: ClusterIPs on kube-ipvs0, the ipsets (flushed and
// refilled), the iptables rules and jumps, then the virtual and real
// servers, reconciled with what the kernel already holds. Duration times
// all of it, rendering excluded.
func (d *IPVS) FullSync(_ context.Context, m *model.Model) (Sync, error) {
	p, err := renderIPVS(m, d.Options)
	if err != nil {
		return Sync{}, err
	}
	servers, err := parseIPVSAdm(p.ipvsadm.Bytes())
	if err != nil {
		return Sync{}, fmt.Errorf("ipvs full sync: rendered ipvsadm text: %w", err)
	}
	start := time.Now()
	steps := []struct {
		what string
		fn   func() error
	}{
		{"bind ClusterIPs to " + ipvs.DummyInterface, func() error { return d.links.Bind(slices.Collect(ipvs.Addresses(m))) }},
		{"ipset restore", func() error { return d.restoreSets(p.ipset.Bytes()) }},
		{"iptables rules", func() error { return d.restoreRules(p.iptables.Bytes(), p.jumps.Bytes()) }},
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
	svc := cipvs.Service{Address: vip.Addr(), Port: vip.Port(), Family: cipvs.INET, Protocol: p}
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
	errs = append(errs, d.IPTables.Reset(), d.destroySets(), d.links.Remove())
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
