package ebpf

import (
	"errors"
	"fmt"

	cebpf "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// AttachMode says how the tc programs are attached.
type AttachMode string

// Attach modes.
const (
	// AttachAuto uses tcx, and clsact where the kernel has no tcx (< 6.6).
	AttachAuto AttachMode = ""
	// AttachTCX uses tcx links owned by the process.
	AttachTCX AttachMode = "tcx"
	// AttachClsact adds a clsact qdisc with cls_bpf direct-action filters;
	// Close deletes the qdisc (and the veth's deletion removes it too).
	AttachClsact AttachMode = "clsact"
)

// Veth is one client pod's node-side veth: the namespace it is in (the
// node's) and its name.
type Veth struct {
	Netns string
	Name  string
}

// attachment is what attachTC left on one veth.
type attachment struct {
	veth   Veth
	links  []link.Link // tcx
	clsact bool        // a clsact qdisc was added
}

// attachTC attaches ingress and egress to v by mode.
func attachTC(v Veth, mode AttachMode, ingress, egress *cebpf.Program) (*attachment, error) {
	if mode != AttachClsact {
		a, err := attachTCX(v, ingress, egress)
		if err == nil || mode == AttachTCX {
			return a, err
		}
		if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.ENOTSUP) {
			return nil, err // tcx exists but failed: do not hide it
		}
	}
	return attachClsact(v, ingress, egress)
}

// attachTCX creates the two tcx links from a thread inside v's namespace,
// where the interface index resolves.
func attachTCX(v Veth, ingress, egress *cebpf.Program) (*attachment, error) {
	a := &attachment{veth: v}
	idx, err := ifindex(v)
	if err != nil {
		return nil, err
	}
	err = netns.Do(v.Netns, func() error {
		for _, p := range []struct {
			prog *cebpf.Program
			at   cebpf.AttachType
		}{{ingress, cebpf.AttachTCXIngress}, {egress, cebpf.AttachTCXEgress}} {
			l, err := link.AttachTCX(link.TCXOptions{Interface: idx, Program: p.prog, Attach: p.at})
			if err != nil {
				return err
			}
			a.links = append(a.links, l)
		}
		return nil
	})
	if err != nil {
		err = errors.Join(fmt.Errorf("ebpf: attach tcx to %s in netns %s: %w", v.Name, v.Netns, err), a.detach())
		return nil, err
	}
	return a, nil
}

// ifindex is the index of v in its namespace.
func ifindex(v Veth) (int, error) {
	var idx int
	err := withHandle(v.Netns, func(h *netlink.Handle) error {
		ifc, err := h.LinkByName(v.Name)
		if err != nil {
			return fmt.Errorf("ebpf: find %s in netns %s: %w", v.Name, v.Netns, err)
		}
		idx = ifc.Attrs().Index
		return nil
	})
	return idx, err
}

// attachClsact adds a clsact qdisc and direct-action cls_bpf filters.
func attachClsact(v Veth, ingress, egress *cebpf.Program) (*attachment, error) {
	a := &attachment{veth: v}
	err := withHandle(v.Netns, func(h *netlink.Handle) error {
		ifc, err := h.LinkByName(v.Name)
		if err != nil {
			return err
		}
		idx := ifc.Attrs().Index
		q := &netlink.Clsact{QdiscAttrs: netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(0xffff, 0), Parent: netlink.HANDLE_CLSACT}}
		if err := h.QdiscAdd(q); err != nil {
			return fmt.Errorf("add clsact qdisc: %w", err)
		}
		a.clsact = true
		for _, f := range []struct {
			prog   *cebpf.Program
			parent uint32
			name   string
		}{{ingress, netlink.HANDLE_MIN_INGRESS, "svc_ingress"}, {egress, netlink.HANDLE_MIN_EGRESS, "svc_egress"}} {
			filter := &netlink.BpfFilter{
				FilterAttrs:  netlink.FilterAttrs{LinkIndex: idx, Parent: f.parent, Handle: 1, Protocol: unix.ETH_P_ALL, Priority: 1},
				Fd:           f.prog.FD(),
				Name:         f.name,
				DirectAction: true,
			}
			if err := h.FilterAdd(filter); err != nil {
				return fmt.Errorf("add cls_bpf filter %s: %w", f.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("ebpf: attach clsact to %s in netns %s: %w", v.Name, v.Netns, err), a.detach())
	}
	return a, nil
}

// detach closes the links or deletes the qdisc. A veth that is already
// gone (its namespace deleted) is not an error.
func (a *attachment) detach() error {
	var errs []error
	for _, l := range a.links {
		if err := l.Close(); err != nil {
			errs = append(errs, fmt.Errorf("ebpf: close tcx link on %s: %w", a.veth.Name, err))
		}
	}
	a.links = nil
	if a.clsact && netns.Exists(a.veth.Netns) {
		err := withHandle(a.veth.Netns, func(h *netlink.Handle) error {
			ifc, err := h.LinkByName(a.veth.Name)
			if err != nil {
				return nil // the veth is gone and its qdisc with it
			}
			q := &netlink.Clsact{QdiscAttrs: netlink.QdiscAttrs{LinkIndex: ifc.Attrs().Index, Handle: netlink.MakeHandle(0xffff, 0), Parent: netlink.HANDLE_CLSACT}}
			return h.QdiscDel(q)
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("ebpf: delete clsact on %s in netns %s: %w", a.veth.Name, a.veth.Netns, err))
		}
	}
	a.clsact = false
	return errors.Join(errs...)
}

// withHandle runs fn with a netlink handle on the named namespace.
func withHandle(ns string, fn func(*netlink.Handle) error) error {
	nsh, err := netns.Open(ns)
	if err != nil {
		return err
	}
	defer nsh.Close()
	h, err := netlink.NewHandleAt(nsh)
	if err != nil {
		return fmt.Errorf("netlink handle for netns %s: %w", ns, err)
	}
	defer h.Close()
	return fn(h)
}
