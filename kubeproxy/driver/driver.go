package driver

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	utilsysctl "k8s.io/component-helpers/node/util/sysctl"
	sysctltest "k8s.io/component-helpers/node/util/sysctl/testing"
	"k8s.io/kubernetes/pkg/proxy"
	utilipset "k8s.io/kubernetes/pkg/proxy/ipvs/ipset"
	ipsettest "k8s.io/kubernetes/pkg/proxy/ipvs/ipset/testing"
	utilipvs "k8s.io/kubernetes/pkg/proxy/ipvs/util"
	ipvstest "k8s.io/kubernetes/pkg/proxy/ipvs/util/testing"
	proxyutil "k8s.io/kubernetes/pkg/proxy/util"
	utiliptables "k8s.io/kubernetes/pkg/util/iptables"
	ipttest "k8s.io/kubernetes/pkg/util/iptables/testing"

	"github.com/svclab/svclab/sim/kube"
)

// SyncPeriod is the proxiers' sync period. It is long so that nothing
// time-driven (kube-proxy's periodic stale-chain cleanup in large
// clusters) happens during a run.
const SyncPeriod = time.Hour

// settings are the kube-proxy flags the glue passes to NewProxier.
type settings struct {
	family             v1.IPFamily
	nodeName           string
	nodeIP             net.IP
	clusterCIDR        string
	masqueradeBit      int
	masqueradeAll      bool
	localhostNodePorts bool
	nodePortAddresses  []string
	topologyLabels     map[string]string
	detector           proxyutil.LocalTrafficDetector
	recorder           events.EventRecorder
	// syncPeriod and minSyncPeriod are --sync-period and
	// --min-sync-period: SyncPeriod and 0 for render and sync, the
	// session's for loop.
	syncPeriod    time.Duration
	minSyncPeriod time.Duration
}

// host is what NewProxier is given to reach the kernel: real tools in sync
// mode, fakes in render mode.
type host struct {
	ipt    utiliptables.Interface
	ipvs   utilipvs.Interface
	ipset  utilipset.Interface
	sysctl utilsysctl.Interface
}

// Driver is one kube-proxy proxier and the objects it has been given.
type Driver struct {
	mode   string
	render bool
	// validating selects knftables' Fake over lightNFT in render mode.
	validating bool
	// noRandomFully: render mode's iptables lacks --random-fully.
	noRandomFully bool
	proxier       proxy.Provider
	ipt           *recIPTables
	nft           *recNFT
	fakeIPVS      *ipvstest.FakeIPVS
	fakeSet       *ipsettest.FakeIPSet
	store         *store
	syncs         int
	family        v1.IPFamily
	topology      map[string]string
}

// New builds the proxier for req.Mode. With render set nothing touches the
// kernel; otherwise the real iptables, nft, ipset and IPVS interfaces are
// used, as kube-proxy does.
func New(ctx context.Context, req *kube.Request, render bool) (*Driver, error) {
	s, err := newSettings(req)
	if err != nil {
		return nil, err
	}
	return build(ctx, req, render, s)
}

// build constructs the proxier for req.Mode with the settings s.
func build(ctx context.Context, req *kube.Request, render bool, s settings) (*Driver, error) {
	var err error
	d := &Driver{mode: req.Mode, render: render, validating: req.ValidatingFake, noRandomFully: req.NoRandomFully, store: newStore(), family: s.family}
	h := d.host(render)
	switch req.Mode {
	case kube.ModeIPTables:
		d.proxier, err = newIPTables(ctx, s, h)
	case kube.ModeNFTables:
		build := func() (err error) { d.proxier, err = newNFTables(ctx, s); return err }
		if render {
			err = withoutNFT(build)
		} else {
			err = build()
		}
	case kube.ModeIPVS:
		d.proxier, err = newIPVS(ctx, s, h)
	default:
		return nil, fmt.Errorf("kube-proxy mode %q: want iptables, nftables or ipvs", req.Mode)
	}
	if err != nil {
		return nil, fmt.Errorf("kube-proxy %s %s proxier: %w", Version(), req.Mode, err)
	}
	if err := d.rewire(s); err != nil {
		return nil, fmt.Errorf("kube-proxy %s %s proxier: %w", Version(), req.Mode, err)
	}
	d.topology = s.topologyLabels
	return d, nil
}

func newSettings(req *kube.Request) (settings, error) {
	if _, err := netip.ParsePrefix(req.ClusterCIDR); err != nil {
		return settings{}, fmt.Errorf("cluster CIDR %q: %w", req.ClusterCIDR, err)
	}
	family := v1.IPv4Protocol
	switch req.Family {
	case "", "IPv4":
	case "IPv6":
		family = v1.IPv6Protocol
	default:
		return settings{}, fmt.Errorf("family %q: want IPv4 or IPv6", req.Family)
	}
	for _, c := range req.NodePortAddresses {
		if _, err := netip.ParsePrefix(c); err != nil {
			return settings{}, fmt.Errorf("nodePortAddresses %q: %w", c, err)
		}
	}
	s := settings{
		family:             family,
		nodeName:           req.NodeName,
		clusterCIDR:        req.ClusterCIDR,
		masqueradeBit:      req.MasqueradeBit,
		masqueradeAll:      req.MasqueradeAll,
		localhostNodePorts: req.LocalhostNodePorts,
		nodePortAddresses:  req.NodePortAddresses,
		topologyLabels:     req.TopologyLabels,
		detector:           proxyutil.NewDetectLocalByCIDR(req.ClusterCIDR),
		recorder:           &events.FakeRecorder{},
		syncPeriod:         SyncPeriod,
	}
	if req.NodeIP != "" {
		ip, err := netip.ParseAddr(req.NodeIP)
		if err != nil {
			return settings{}, fmt.Errorf("node IP %q: %w", req.NodeIP, err)
		}
		s.nodeIP = net.IP(ip.AsSlice())
	}
	return s, nil
}

// host returns the kernel interfaces for the mode: record-only and
// in-memory fakes for render, the real tools wrapped in recorders for sync.
func (d *Driver) host(render bool) host {
	proto := utiliptables.ProtocolIPv4
	if d.family == v1.IPv6Protocol {
		proto = utiliptables.ProtocolIPv6
	}
	if render {
		fake := ipttest.NewFake()
		if d.family == v1.IPv6Protocol {
			fake = ipttest.NewIPv6Fake()
		}
		d.ipt = newRecIPTables(fake, true)
		d.ipt.noRandomFully = d.noRandomFully
		d.fakeIPVS = ipvstest.NewFake()
		d.fakeSet = ipsettest.NewFake("7.17")
		return host{ipt: d.ipt, ipvs: d.fakeIPVS, ipset: d.fakeSet, sysctl: sysctltest.NewFake()}
	}
	d.ipt = newRecIPTables(utiliptables.New(proto), false)
	return host{ipt: d.ipt, ipvs: utilipvs.New(), ipset: utilipset.New(), sysctl: utilsysctl.New()}
}

// Start gives the proxier the service CIDRs and every object, then runs
// kube-proxy's first sync (OnServiceSynced + OnEndpointSlicesSynced).
func (d *Driver) Start(objects v1.List, serviceCIDRs []string) (kube.Sync, error) {
	if err := d.load(objects, serviceCIDRs); err != nil {
		return kube.Sync{}, err
	}
	return d.sync(), nil
}

// load gives the proxier the service CIDRs, the node's topology labels and
// every object, then calls OnServiceSynced: the next OnEndpointSlicesSynced
// runs the first sync.
func (d *Driver) load(objects v1.List, serviceCIDRs []string) error {
	if len(serviceCIDRs) > 0 {
		d.proxier.OnServiceCIDRsChanged(serviceCIDRs)
	}
	if d.topology != nil {
		d.proxier.OnTopologyChange(d.topology)
	}
	for i, item := range objects.Items {
		if err := d.apply(kube.Op{Action: kube.Add, Object: item}); err != nil {
			return fmt.Errorf("object %d of the list: %w", i, err)
		}
	}
	d.proxier.OnServiceSynced()
	return nil
}

// Step applies one step's events and syncs.
func (d *Driver) Step(st kube.Step) (kube.Sync, error) {
	for i, op := range st.Ops {
		if err := d.apply(op); err != nil {
			return kube.Sync{}, fmt.Errorf("step %d, event %d: %w", d.syncs, i, err)
		}
	}
	return d.sync(), nil
}

// sync runs syncProxyRules synchronously (OnEndpointSlicesSynced calls it
// unconditionally) and reports it.
func (d *Driver) sync() kube.Sync {
	out := kube.Sync{Index: d.syncs, Full: d.fullNext()}
	d.syncs++
	if err := d.holdStaleChains(); err != nil {
		out.Error = err.Error()
		return out
	}
	start := time.Now()
	d.proxier.OnEndpointSlicesSynced()
	out.DurationNS = time.Since(start).Nanoseconds()
	var err error
	out.Payload, err = d.take()
	out.PayloadBytes = len(out.Payload)
	if err != nil {
		out.Error = err.Error()
	}
	if d.mode == kube.ModeIPVS && d.render {
		out.IPVS = dumpIPVS(d.fakeIPVS)
		out.IPSet = dumpIPSet(d.fakeSet)
	}
	return out
}

// take returns and clears what the recorders saw since the last call:
// every restore payload (iptables and IPVS modes) or transaction (nftables
// mode), concatenated, and the first error.
func (d *Driver) take() (string, error) {
	if d.mode == kube.ModeNFTables {
		return d.nft.take()
	}
	p, err := d.ipt.take()
	return string(p), err
}

// fullNext reports whether the coming sync is a full one: kube-proxy's
// needFullSync in iptables and nftables modes; IPVS mode always
// recomputes everything.
func (d *Driver) fullNext() bool {
	if d.mode == kube.ModeIPVS {
		return true
	}
	v, err := getField(d.proxier, "needFullSync")
	if err != nil {
		return d.syncs == 0
	}
	b, _ := v.(bool)
	return b
}
