package topo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/traffic"
)

// sysctl is one kernel setting, named as `sysctl` names it
// ("net.ipv4.ip_forward").
type sysctl struct {
	key, value string
}

// No rp_filter: a pod's replies and the sink's AnyIP answers must never be
// dropped by reverse-path checks. "default" covers links created later.
var (
	// IPv6 is on everywhere, without duplicate address detection, so an
	// address is usable the moment it is added (addresses also carry
	// IFA_F_NODAD, see addAddr).
	hostSysctls = []sysctl{
		{"net.ipv4.conf.all.rp_filter", "0"},
		{"net.ipv4.conf.default.rp_filter", "0"},
		{"net.ipv6.conf.all.disable_ipv6", "0"},
		{"net.ipv6.conf.default.disable_ipv6", "0"},
		{"net.ipv6.conf.all.accept_dad", "0"},
		{"net.ipv6.conf.default.accept_dad", "0"},
	}
	// forwardSysctls make a namespace a router for both families.
	forwardSysctls = []sysctl{
		{"net.ipv4.ip_forward", "1"},
		{"net.ipv6.conf.all.forwarding", "1"},
	}
	nodeSysctls = append(append([]sysctl{}, forwardSysctls...), hostSysctls...)
	// clientSysctls let one client open many short connections in a row
	// (svclab's client binds the range's ports in turn itself; other
	// sockets get them from the kernel).
	clientSysctls = []sysctl{
		{"net.ipv4.ip_local_port_range", fmt.Sprintf("%d %d", traffic.FirstSourcePort, traffic.LastSourcePort)},
		{"net.ipv4.tcp_tw_reuse", "1"},
	}
)

// sysctlPath maps a sysctl key to its /proc/sys file. Dots inside interface
// names are not supported (svclab's names have none).
func sysctlPath(key string) string {
	return filepath.Join("/proc/sys", strings.ReplaceAll(key, ".", "/"))
}

// writeSysctls applies settings inside the named namespace: /proc/sys/net
// shows the namespace of the thread that opens it, so the writes happen on
// a thread switched into the namespace.
func writeSysctls(name string, settings []sysctl) error {
	return netns.Do(name, func() error {
		for _, s := range settings {
			if err := os.WriteFile(sysctlPath(s.key), []byte(s.value), 0o644); err != nil {
				return fmt.Errorf("set %s=%s in netns %s: %w", s.key, s.value, name, err)
			}
		}
		return nil
	})
}
