package apply

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"strings"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// restoreSets loads the ipset payload, flushing each set right after its
// create line so members from an earlier sync do not linger.
func (d *IPVS) restoreSets(payload []byte) error {
	var in bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(payload))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		in.Write(sc.Bytes())
		in.WriteByte('\n')
		if f := strings.Fields(sc.Text()); len(f) > 1 && f[0] == "create" {
			in.WriteString("flush " + f[1] + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return d.restoreSetLines(in.String())
}

// restoreSetLines runs one `ipset restore` of script in the namespace.
func (d *IPVS) restoreSetLines(script string) error {
	_, err := netns.Output(d.Netns, []byte(script), "ipset", "restore")
	return err
}

// restoreRules loads an iptables payload with ipt (one family's tool),
// then whichever jumps from the built-in chains are not there yet (so a
// second sync adds none twice).
func (d *IPVS) restoreRules(ipt *IPTables, payload, jumps []byte) error {
	if _, err := ipt.Restore(payload, true); err != nil {
		return err
	}
	saved, err := ipt.Save("nat", "filter")
	if err != nil {
		return err
	}
	if missing := missingJumps(jumps, saved); missing != nil {
		_, err = ipt.Restore(missing, true)
	}
	return err
}

// missingJumps keeps the "-I CHAIN 1 rule" lines of a jumps payload whose
// rule iptables-save does not list as "-A CHAIN rule"; nil if none.
func missingJumps(jumps, saved []byte) []byte {
	var out []string
	var table string
	n := 0
	for _, line := range strings.Split(string(jumps), "\n") {
		switch f := strings.SplitN(line, " ", 4); {
		case strings.HasPrefix(line, "*"):
			table = line
			out = append(out, table)
		case line == "COMMIT":
			out = append(out, line)
		case len(f) == 4 && f[0] == "-I" && !bytes.Contains(saved, []byte("-A "+f[1]+" "+f[3]+"\n")):
			out = append(out, line)
			n++
		}
	}
	if n == 0 || table == "" {
		return nil
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// ipvsSysctls are kube-proxy's IPVS-mode settings (proxier.go): conntrack
// for IPVS traffic (MASQUERADE needs it) and quick expiry of connections to
// removed real servers.
var ipvsSysctls = map[string]string{
	"conntrack": "1", "conn_reuse_mode": "0", "expire_nodest_conn": "1", "expire_quiescent_template": "1",
}

// connReuseFixed is the kernel from which kube-proxy leaves
// conn_reuse_mode alone (kubernetes/kubernetes#93297): there it stays 1, so
// a SYN from a reused client port is scheduled as a new connection. With 0
// on such a kernel IPVS hands the SYN to the old connection entry's real
// server without scheduling or counting it, and the real servers' counters
// fall behind what the servers accepted.
var connReuseFixed = [2]int{5, 9}

// sysctlsFor is ipvsSysctls as kube-proxy sets them on a kernel release.
func sysctlsFor(release string) map[string]string {
	out := maps.Clone(ipvsSysctls)
	var major, minor int
	if _, err := fmt.Sscanf(release, "%d.%d", &major, &minor); err == nil &&
		(major > connReuseFixed[0] || major == connReuseFixed[0] && minor >= connReuseFixed[1]) {
		delete(out, "conn_reuse_mode")
	}
	return out
}

// setSysctls writes ipvsSysctls in the node namespace; without IPVS in the
// kernel (the tests' fake) there is nothing to set.
func (d *IPVS) setSysctls() error {
	return netns.Do(d.Netns, func() error {
		const dir = "/proc/sys/net/ipv4/vs/"
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		var u unix.Utsname
		if err := unix.Uname(&u); err != nil {
			return err
		}
		for key, value := range sysctlsFor(unix.ByteSliceToString(u.Release[:])) {
			if err := os.WriteFile(dir+key, []byte(value), 0o644); err != nil {
				return fmt.Errorf("set net.ipv4.vs.%s=%s: %w", key, value, err)
			}
		}
		return nil
	})
}

// dummyLink binds addresses to kube-ipvs0 in a namespace. Like kube-proxy
// it leaves the link down: addresses on a down link are still local.
type dummyLink struct{ netns string }

// handle opens a netlink handle bound to the namespace.
func (l dummyLink) handle() (*netlink.Handle, error) {
	ns, err := netns.Open(l.netns)
	if err != nil {
		return nil, err
	}
	defer ns.Close()
	return netlink.NewHandleAt(ns)
}

// Bind creates kube-ipvs0 if needed and makes its addresses exactly addrs.
func (l dummyLink) Bind(addrs []netip.Addr) error {
	h, err := l.handle()
	if err != nil {
		return err
	}
	defer h.Close()
	link, err := h.LinkByName(ipvs.DummyInterface)
	if _, missing := err.(netlink.LinkNotFoundError); missing {
		if err = h.LinkAdd(&netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: ipvs.DummyInterface}}); err == nil {
			link, err = h.LinkByName(ipvs.DummyInterface)
		}
	}
	if err != nil {
		return fmt.Errorf("dummy link %s: %w", ipvs.DummyInterface, err)
	}
	bound, err := h.AddrList(link, netlink.FAMILY_ALL)
	if err != nil {
		return err
	}
	stale := map[netip.Addr]*netlink.Addr{}
	for i := range bound {
		if a, ok := netip.AddrFromSlice(bound[i].IP); ok && !a.Unmap().IsLinkLocalUnicast() {
			stale[a.Unmap()] = &bound[i]
		}
	}
	for _, a := range addrs {
		if _, ok := stale[a]; ok {
			delete(stale, a)
			continue
		}
		if err := h.AddrAdd(link, bindAddr(a)); err != nil {
			return fmt.Errorf("add %s to %s: %w", a, ipvs.DummyInterface, err)
		}
	}
	for a, old := range stale {
		if err := h.AddrDel(link, old); err != nil {
			return fmt.Errorf("remove %s from %s: %w", a, ipvs.DummyInterface, err)
		}
	}
	return nil
}

// bindAddr is a as kube-proxy binds it (a host route, /32 or /128). An
// IPv6 address skips duplicate address detection: on the down link it
// would stay tentative, and a tentative address is not local.
func bindAddr(a netip.Addr) *netlink.Addr {
	addr := &netlink.Addr{IPNet: netlink.NewIPNet(a.AsSlice())}
	if a.Is6() {
		addr.Flags = unix.IFA_F_NODAD
	}
	return addr
}

// Remove deletes kube-ipvs0 if it exists.
func (l dummyLink) Remove() error {
	h, err := l.handle()
	if err != nil {
		return err
	}
	defer h.Close()
	link, err := h.LinkByName(ipvs.DummyInterface)
	if _, missing := err.(netlink.LinkNotFoundError); missing {
		return nil
	}
	if err != nil {
		return err
	}
	return h.LinkDel(link)
}
