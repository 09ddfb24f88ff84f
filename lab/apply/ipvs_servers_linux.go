package apply

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"

	cipvs "github.com/cloudflare/ipvs"

	"github.com/svclab/svclab/lab/netns"
)

// virtualServer is one "-A" line of ipvsadm text and its "-a" lines.
type virtualServer struct {
	svc   cipvs.Service
	dests []cipvs.Destination
}

// serviceKey identifies a virtual server as IPVS does.
type serviceKey struct {
	proto cipvs.Protocol
	addr  netip.AddrPort
}

func keyOf(s cipvs.Service) serviceKey {
	return serviceKey{s.Protocol, netip.AddrPortFrom(s.Address, s.Port)}
}

// syncServers makes the kernel's table equal to servers: it creates what is
// missing, recreates what differs, fixes real servers of the rest and
// removes virtual servers no longer rendered. It returns how many changes
// (creations and removals) it made.
func (d *IPVS) syncServers(servers []virtualServer) (int, error) {
	kc, err := d.dial()
	if err != nil {
		return 0, err
	}
	defer kc.Close()
	changes := 0
	c := &changeCounter{ipvsClient: kc, changes: &changes}
	existing, err := c.Services()
	if err != nil {
		return 0, fmt.Errorf("list virtual servers: %w", err)
	}
	have := make(map[serviceKey]cipvs.Service, len(existing))
	for _, s := range existing {
		have[keyOf(s.Service)] = s.Service
	}
	for _, vs := range servers {
		if err := syncServer(c, vs, have); err != nil {
			return changes, err
		}
	}
	for _, old := range have { // what syncServer did not claim
		if err := c.RemoveService(old); err != nil {
			return changes, fmt.Errorf("remove virtual server %s: %w", keyOf(old).addr, err)
		}
	}
	return changes, nil
}

// syncServer programs one virtual server, taking it out of have.
func syncServer(c ipvsClient, vs virtualServer, have map[serviceKey]cipvs.Service) error {
	k := keyOf(vs.svc)
	old, exists := have[k]
	delete(have, k)
	if exists && sameService(old, vs.svc) {
		return syncDestinations(c, vs)
	}
	if exists {
		if err := c.RemoveService(old); err != nil {
			return fmt.Errorf("remove changed virtual server %s: %w", k.addr, err)
		}
	}
	if err := c.CreateService(vs.svc); err != nil {
		return fmt.Errorf("create virtual server %s %s: %w", vs.svc.Protocol, k.addr, err)
	}
	for _, dst := range vs.dests {
		if err := c.CreateDestination(vs.svc, dst); err != nil {
			return fmt.Errorf("add real server %s to %s: %w", netip.AddrPortFrom(dst.Address, dst.Port), k.addr, err)
		}
	}
	return nil
}

// sameService compares what a sync sets (the kernel adds the hashed flag).
func sameService(a, b cipvs.Service) bool {
	const hashed = cipvs.ServiceHashed
	return a.Scheduler == b.Scheduler && a.Flags&^hashed == b.Flags&^hashed && a.Timeout == b.Timeout && a.Netmask == b.Netmask
}

// syncDestinations makes an existing virtual server's real servers equal
// to vs's.
func syncDestinations(c ipvsClient, vs virtualServer) error {
	existing, err := c.Destinations(vs.svc)
	if err != nil {
		return fmt.Errorf("list real servers of %s: %w", keyOf(vs.svc).addr, err)
	}
	want := make(map[cipvs.Destination]bool, len(vs.dests))
	for _, dst := range vs.dests {
		want[dst] = true
	}
	for _, old := range existing {
		if want[old.Destination] {
			delete(want, old.Destination)
		} else if err := c.RemoveDestination(vs.svc, old.Destination); err != nil {
			return fmt.Errorf("remove real server from %s: %w", keyOf(vs.svc).addr, err)
		}
	}
	for _, dst := range vs.dests {
		if want[dst] {
			if err := c.CreateDestination(vs.svc, dst); err != nil {
				return fmt.Errorf("add real server to %s: %w", keyOf(vs.svc).addr, err)
			}
		}
	}
	return nil
}

// changeCounter counts the changes made through an IPVS client.
type changeCounter struct {
	ipvsClient
	changes *int
}

func (c *changeCounter) CreateService(s cipvs.Service) error {
	*c.changes++
	return c.ipvsClient.CreateService(s)
}

func (c *changeCounter) RemoveService(s cipvs.Service) error {
	*c.changes++
	return c.ipvsClient.RemoveService(s)
}

func (c *changeCounter) CreateDestination(s cipvs.Service, d cipvs.Destination) error {
	*c.changes++
	return c.ipvsClient.CreateDestination(s, d)
}

func (c *changeCounter) RemoveDestination(s cipvs.Service, d cipvs.Destination) error {
	*c.changes++
	return c.ipvsClient.RemoveDestination(s, d)
}

// kernelIPVS connects to IPVS inside nsName. cloudflare/ipvs has no netns
// option: the socket is opened on a thread inside the namespace and stays
// bound to it.
func kernelIPVS(nsName string) func() (ipvsClient, error) {
	return func() (ipvsClient, error) {
		var c cipvs.Client
		err := netns.Do(nsName, func() (err error) {
			c, err = cipvs.New()
			return err
		})
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("netns %s: %w", nsName, ErrNoIPVS)
		}
		if err != nil {
			return nil, fmt.Errorf("connect to IPVS in netns %s: %w", nsName, err)
		}
		return kernelClient{c}, nil
	}
}

// kernelClient adds Close (on the concrete client) to cipvs.Client and
// turns its os.ErrNotExist for an empty dump into an empty list (the
// kernel answers a dump of a missing service's destinations the same way).
type kernelClient struct{ cipvs.Client }

func (k kernelClient) Services() ([]cipvs.ServiceExtended, error) {
	s, err := k.Client.Services()
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return s, err
}

func (k kernelClient) Destinations(svc cipvs.Service) ([]cipvs.DestinationExtended, error) {
	d, err := k.Client.Destinations(svc)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return d, err
}

func (k kernelClient) Close() error {
	if c, ok := k.Client.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
