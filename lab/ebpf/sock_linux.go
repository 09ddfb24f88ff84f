package ebpf

import (
	"context"
	"errors"
	"fmt"

	cebpf "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// soNetnsCookie is SO_NETNS_COOKIE (Linux 5.14), missing from x/sys.
const soNetnsCookie = 71

// SockConfig is what the "ebpf-sock" dataplane needs.
type SockConfig struct {
	// Prefix is the run prefix; the cgroup is <cgroup2 mount>/<Prefix>-ebpf.
	Prefix string
	// ClientNetns is the client's namespace: only sockets created in it are
	// balanced, whatever else the cgroup's tasks connect to.
	ClientNetns string
	// Capacity sizes the maps; zero means DefaultCapacity.
	Capacity Capacity
	// ManualJoin leaves the process outside the cgroup until Join; by
	// default NewSock joins it (the seam has no step for it) and Close
	// leaves.
	ManualJoin bool
}

// Sock is the "ebpf-sock" dataplane: a cgroup/connect4 program on a cgroup
// the lab creates. The client's traffic is balanced once the process that
// opens it is in the cgroup (NewSock puts it there, see Join).
//
// Design: cgroup2 runs a cgroup's sock_addr programs for the tasks in it,
// and a task that enters a netns stays in its cgroup, so the traffic
// generator's locked, netns-entered threads are covered once their process
// is a member. Moving single threads (cgroup.threads) needs a threaded
// cgroup inside the process's own threaded domain (a tid written into a
// domain cgroup's cgroup.threads fails with EOPNOTSUPP), and the traffic
// workers are fresh threads the runner does not control, so the whole
// process joins. The program itself only rewrites connects made from
// ClientNetns (it compares bpf_get_netns_cookie with the client's), so the
// rest of the process is not affected.
type Sock struct {
	cfg    SockConfig
	lb     *lb
	cg     *sockGroup
	link   link.Link
	cookie uint64
}

// NewSock creates the cgroup, loads the programs and attaches connect4 to
// the cgroup, then (unless cfg.ManualJoin) moves the process into it. The
// caller must Close it; on error nothing is left.
func NewSock(cfg SockConfig) (*Sock, error) {
	if cfg.ClientNetns == "" {
		return nil, errors.New("ebpf-sock: no client netns")
	}
	if cfg.Capacity == (Capacity{}) {
		cfg.Capacity = DefaultCapacity
	}
	cookie, err := NetnsCookie(cfg.ClientNetns)
	if err != nil {
		return nil, err
	}
	cg, err := makeCgroup(cfg.Prefix)
	if err != nil {
		return nil, err
	}
	d := &Sock{cfg: cfg, cg: cg, cookie: cookie}
	if d.lb, err = newLB(cfg.Capacity); err != nil {
		return nil, errors.Join(err, d.Close())
	}
	var zero uint32
	if err := d.lb.objs.Config.Put(zero, svclbConfig{NetnsCookie: cookie}); err != nil {
		return nil, errors.Join(fmt.Errorf("ebpf-sock: write config: %w", err), d.Close())
	}
	d.link, err = link.AttachCgroup(link.CgroupOptions{Path: cg.path, Attach: cebpf.AttachCGroupInet4Connect, Program: d.lb.objs.SockConnect4})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("ebpf-sock: attach connect4 to cgroup %s: %w", cg.path, err), d.Close())
	}
	if !cfg.ManualJoin {
		if _, err := cg.join(); err != nil {
			return nil, errors.Join(err, d.Close())
		}
	}
	return d, nil
}

// NetnsCookie is the kernel's cookie of the named namespace, read with
// SO_NETNS_COOKIE from a socket created inside it.
func NetnsCookie(name string) (uint64, error) {
	var cookie uint64
	err := netns.Do(name, func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		v, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, soNetnsCookie)
		cookie = v
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("ebpf: netns cookie of %s: %w", name, err)
	}
	return cookie, nil
}

// Join moves the calling process into the dataplane's cgroup, so that the
// connects its threads make from ClientNetns are balanced, and returns the
// function that moves it back (Close does so too). NewSock has done it
// unless SockConfig.ManualJoin; joins nest. Any goroutine may call it.
func (d *Sock) Join() (leave func() error, err error) {
	if d.cg == nil {
		return nil, errors.New("ebpf-sock: Join after Close")
	}
	return d.cg.join()
}

// CgroupPath is the cgroup the program is attached to.
func (d *Sock) CgroupPath() string { return d.cg.path }

// Name is sim/dataplane's EBPFSock.
func (d *Sock) Name() string { return string(dataplane.EBPFSock) }

// Version names the loader and the hook.
func (d *Sock) Version() string { return "cilium/ebpf " + ciliumVersion + ", cgroup/connect4" }

// FullSync writes the whole model into the maps with batch updates.
func (d *Sock) FullSync(_ context.Context, m *model.Model) (Sync, error) { return d.lb.program(m) }

// Program is FullSync.
func (d *Sock) Program(_ context.Context, m *model.Model) (Sync, error) { return d.lb.program(m) }

// Apply adds one endpoint (a batch, one at a time).
func (d *Sock) Apply(ctx context.Context, m *model.Model, c Change) (Sync, error) {
	if err := c.RefuseCreations(d.Name()); err != nil {
		return Sync{}, err
	}
	if len(c.More) > 0 {
		return oneByOne(ctx, m, c, d.Apply)
	}
	return d.lb.apply(m, c)
}

// Count starts counting new connections to t per backend.
func (d *Sock) Count(ctx context.Context, t Target) (Counting, error) { return d.lb.count(ctx, t) }

// Reset empties the maps; the program stays attached.
func (d *Sock) Reset(_ context.Context) error { return d.lb.reset() }

// Close detaches the program, moves the process out of the cgroup and
// removes it. It is idempotent.
func (d *Sock) Close() error {
	var errs []error
	if d.link != nil {
		if err := d.link.Close(); err != nil {
			errs = append(errs, fmt.Errorf("ebpf-sock: close cgroup link: %w", err))
		}
		d.link = nil
	}
	if d.lb != nil {
		errs = append(errs, d.lb.close())
		d.lb = nil
	}
	if d.cg != nil {
		errs = append(errs, d.cg.remove())
		d.cg = nil
	}
	return errors.Join(errs...)
}

// LinkIDs are the kernel IDs of the BPF links the dataplane holds.
func (d *Sock) LinkIDs() []link.ID {
	if d.link == nil {
		return nil
	}
	if info, err := d.link.Info(); err == nil {
		return []link.ID{info.ID}
	}
	return nil
}

// MapMemory is each map's memory as the kernel accounts it, by map name.
func (d *Sock) MapMemory() (map[string]uint64, error) { return d.lb.memory() }
