package ipvs

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/render"
)

// DummyInterface is the dummy link kube-proxy binds service addresses to.
const DummyInterface = "kube-ipvs0"

// DefaultScheduler is kube-proxy's IPVS scheduler when none is configured.
const DefaultScheduler = "rr"

// Options are the host facts and the kube-proxy flags outside the model that
// shape the IPVS-mode payloads (OptionsFor derives them from a
// render.Config). The zero value is valid (the
// newest kube-proxy, rr scheduler, no node addresses besides the model's
// node IP); DefaultOptions gives a current kube-proxy on a current host.
type Options struct {
	// Version is the kube-proxy release written ("" is the newest); v1.37
	// always writes MASQUERADE --random-fully, v1.35 as RandomFully says.
	Version render.KubeProxyVersion
	// Flags are kube-proxy's --masquerade-all and --nodeport-addresses.
	Flags render.Flags
	// Scheduler is kube-proxy's --ipvs-scheduler; "" means rr.
	Scheduler string
	// NodeIPs are the node's local addresses (outside kube-ipvs0) besides
	// the model's Cluster.NodeIP; those of the rendered family are where
	// NodePort virtual servers listen (filtered by --nodeport-addresses).
	// With neither, no NodePort is programmed (see the package doc).
	NodeIPs []netip.Addr
	// RandomFully adds --random-fully to the MASQUERADE rule, as kube-proxy
	// does when iptables supports it (1.6.2 and later).
	RandomFully bool
}

// DefaultOptions returns kube-proxy's defaults on a current host.
func DefaultOptions() Options {
	return Options{Scheduler: DefaultScheduler, RandomFully: true}
}

// schedulers are the IPVS schedulers the kernel ships (ipvsadm(8)).
var schedulers = map[string]bool{
	"rr": true, "wrr": true, "lc": true, "wlc": true, "lblc": true, "lblcr": true,
	"dh": true, "sh": true, "sed": true, "nq": true, "fo": true, "ovf": true, "mh": true,
}

// scheduler returns the effective scheduler name.
func (o Options) scheduler() string {
	if o.Scheduler == "" {
		return DefaultScheduler
	}
	return o.Scheduler
}

// schedFlags is the ipvsadm -b argument for the scheduler, or "".
// kube-proxy sets FlagSourceHash (0x10 = IP_VS_SVC_F_SCHED2) for mh, which
// ipvsadm calls mh-port: hash on source port as well as source address.
func (o Options) schedFlags() string {
	if o.scheduler() == "mh" {
		return "mh-port"
	}
	return ""
}

// validate rejects options kube-proxy or the kernel would reject.
func (o Options) validate() error {
	if err := o.Version.Validate(); err != nil {
		return fmt.Errorf("ipvs: %w", err)
	}
	if !schedulers[o.scheduler()] {
		return fmt.Errorf("ipvs scheduler %q: not one of the kernel's schedulers", o.Scheduler)
	}
	for _, ip := range o.NodeIPs {
		if !ip.IsValid() || ip.Is4In6() {
			return fmt.Errorf("ipvs node IP %s: want an IPv4 or IPv6 address", ip)
		}
	}
	return nil
}
