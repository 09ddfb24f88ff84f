package apply

import (
	"fmt"
	"net/netip"
	"slices"

	cipvs "github.com/cloudflare/ipvs"
	"github.com/cloudflare/ipvs/netmask"
	"golang.org/x/sys/unix"
)

// kernelSchedulers are the schedulers an IPVS kernel ships.
var kernelSchedulers = map[string]bool{
	"rr": true, "wrr": true, "lc": true, "wlc": true, "lblc": true, "lblcr": true,
	"dh": true, "sh": true, "sed": true, "nq": true, "fo": true, "ovf": true, "mh": true,
}

// fakeIPVS is an IPVS table that refuses what the kernel refuses, with the
// kernel's errno (the real client wraps them as "netlink receive: ...").
type fakeIPVS struct {
	services []*fakeService
	calls    []string // every change, e.g. "create tcp 10.96.0.10:80 rr"
	open     int      // clients dialled and not closed
}

type fakeService struct {
	svc   cipvs.Service
	dests []cipvs.DestinationExtended
}

func (f *fakeIPVS) dial() (ipvsClient, error) {
	f.open++
	return &fakeClient{f}, nil
}

// find returns the service with s's identity and its index.
func (f *fakeIPVS) find(s cipvs.Service) (*fakeService, int) {
	for i, x := range f.services {
		if keyOf(x.svc) == keyOf(s) {
			return x, i
		}
	}
	return nil, -1
}

func (f *fakeIPVS) realServers() int {
	n := 0
	for _, s := range f.services {
		n += len(s.dests)
	}
	return n
}

type fakeClient struct{ f *fakeIPVS }

func (c *fakeClient) Close() error { c.f.open--; return nil }

func (c *fakeClient) Info() (cipvs.Info, error) {
	return cipvs.Info{Version: [3]int{1, 2, 1}, ConnectionTableSize: 4096}, nil
}

func (c *fakeClient) Services() ([]cipvs.ServiceExtended, error) {
	out := make([]cipvs.ServiceExtended, len(c.f.services))
	for i, s := range c.f.services {
		out[i] = cipvs.ServiceExtended{Service: s.svc}
		out[i].Flags |= cipvs.ServiceHashed // as the kernel reports it
	}
	return out, nil
}

func (c *fakeClient) CreateService(s cipvs.Service) error {
	switch {
	case s.Family != familyOf(s.Address) || !s.Address.IsValid() || s.Address.Is4In6() || s.Port == 0:
		return fmt.Errorf("create service %+v: %w", s, unix.EINVAL)
	case s.Netmask != netmask.MaskFrom(s.Address.BitLen(), s.Address.BitLen()): // no netmask attribute: EINVAL
		return fmt.Errorf("create service without a /%d netmask: %w", s.Address.BitLen(), unix.EINVAL)
	case s.Protocol != cipvs.TCP && s.Protocol != cipvs.UDP && s.Protocol != cipvs.SCTP:
		return fmt.Errorf("create service protocol %d: %w", s.Protocol, unix.EINVAL)
	case !kernelSchedulers[s.Scheduler]:
		return fmt.Errorf("create service scheduler %q: %w", s.Scheduler, unix.ENOENT)
	case s.Flags&cipvs.ServicePersistent != 0 && s.Timeout == 0:
		return fmt.Errorf("persistent service without timeout: %w", unix.EINVAL)
	}
	if old, _ := c.f.find(s); old != nil {
		return fmt.Errorf("create service %v: %w", keyOf(s), unix.EEXIST)
	}
	c.f.services = append(c.f.services, &fakeService{svc: s})
	c.f.calls = append(c.f.calls, fmt.Sprintf("create %s %s %s", s.Protocol, keyOf(s).addr, s.Scheduler))
	return nil
}

func (c *fakeClient) RemoveService(s cipvs.Service) error {
	_, i := c.f.find(s)
	if i < 0 {
		return fmt.Errorf("remove service %v: %w", keyOf(s), unix.ESRCH)
	}
	c.f.services = slices.Delete(c.f.services, i, i+1)
	c.f.calls = append(c.f.calls, fmt.Sprintf("remove %s %s", s.Protocol, keyOf(s).addr))
	return nil
}

func (c *fakeClient) Destinations(s cipvs.Service) ([]cipvs.DestinationExtended, error) {
	svc, _ := c.f.find(s)
	if svc == nil {
		return nil, nil // the kernel's dump of a missing service is empty
	}
	return slices.Clone(svc.dests), nil
}

func (c *fakeClient) CreateDestination(s cipvs.Service, d cipvs.Destination) error {
	svc, _ := c.f.find(s)
	switch {
	case svc == nil:
		return fmt.Errorf("destination for missing service %v: %w", keyOf(s), unix.ESRCH)
	case d.Family != s.Family || d.Family != familyOf(d.Address) || d.Address.Is4In6() || d.Port == 0 || d.FwdMethod != cipvs.Masquerade:
		return fmt.Errorf("destination %+v: %w", d, unix.EINVAL)
	case fakeDestIndex(svc, d) >= 0:
		return fmt.Errorf("destination %s: %w", netip.AddrPortFrom(d.Address, d.Port), unix.EEXIST)
	}
	svc.dests = append(svc.dests, cipvs.DestinationExtended{Destination: d})
	c.f.calls = append(c.f.calls, fmt.Sprintf("add %s -> %s", keyOf(s).addr, netip.AddrPortFrom(d.Address, d.Port)))
	return nil
}

func (c *fakeClient) RemoveDestination(s cipvs.Service, d cipvs.Destination) error {
	svc, _ := c.f.find(s)
	if svc == nil {
		return fmt.Errorf("remove destination of missing service: %w", unix.ESRCH)
	}
	i := fakeDestIndex(svc, d)
	if i < 0 {
		return fmt.Errorf("remove destination %s: %w", netip.AddrPortFrom(d.Address, d.Port), unix.ENOENT)
	}
	svc.dests = slices.Delete(svc.dests, i, i+1)
	c.f.calls = append(c.f.calls, fmt.Sprintf("del %s -> %s", keyOf(s).addr, netip.AddrPortFrom(d.Address, d.Port)))
	return nil
}

func fakeDestIndex(svc *fakeService, d cipvs.Destination) int {
	return slices.IndexFunc(svc.dests, func(x cipvs.DestinationExtended) bool {
		return x.Address == d.Address && x.Port == d.Port
	})
}

// fakeLinks is kube-ipvs0: it refuses duplicate or invalid addresses.
type fakeLinks struct {
	addrs   []netip.Addr
	exists  bool
	removed int
}

func (l *fakeLinks) Bind(addrs []netip.Addr) error {
	seen := map[netip.Addr]bool{}
	for _, a := range addrs {
		if !a.IsValid() || a.Is4In6() || seen[a] {
			return fmt.Errorf("bind %s to kube-ipvs0: %w", a, unix.EEXIST)
		}
		seen[a] = true
	}
	l.addrs, l.exists = slices.Clone(addrs), true
	return nil
}

func (l *fakeLinks) Remove() error {
	if l.exists {
		l.removed++
	}
	l.addrs, l.exists = nil, false
	return nil
}
