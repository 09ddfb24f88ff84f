package netns

import (
	"fmt"

	"github.com/vishvananda/netlink"
)

// FlushConntrack deletes every entry of the named namespace's connection
// tracking table over netlink, so the next measurement starts with no
// established flows. It is svclab's one conntrack flush.
func FlushConntrack(name string) error {
	ns, err := Open(name)
	if err != nil {
		return err
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return fmt.Errorf("netlink handle for netns %s: %w", name, err)
	}
	defer h.Close()
	if err := h.ConntrackTableFlush(netlink.ConntrackTable); err != nil {
		return fmt.Errorf("flush conntrack in netns %s: %w", name, err)
	}
	return nil
}
