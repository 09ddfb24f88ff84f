package migrate

import (
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/scenario"
)

// Side is one end of a migration: the kube-proxy mode and its
// configuration: the release (Version, never empty after ParseSide), the
// flags that change its rules (--nodeport-addresses,
// --iptables-localhost-nodeports, --masquerade-all) and the
// KubeProxyNFTablesLocalhostNodePorts feature gate (v1.37+, nftables;
// native engine only).
type Side struct {
	Mode dataplane.Mode
	render.Config
	// defaulted: Effective set --nodeport-addresses=primary.
	defaulted bool
}

// ParseSide reads MODE[@VERSION] ("nftables@1.35"; the version defaults
// to the newest supported).
func ParseSide(s string) (Side, error) {
	mode, ver, _ := strings.Cut(strings.TrimSpace(s), "@")
	var side Side
	for _, m := range dataplane.Modes() {
		if string(m) == mode {
			side.Mode = m
		}
	}
	if side.Mode == "" {
		return side, fmt.Errorf("%q: the mode must be one of %v, optionally followed by @VERSION", s, dataplane.Modes())
	}
	v, err := render.ParseKubeProxyVersion(ver)
	if err != nil {
		return side, fmt.Errorf("%q: %w", s, err)
	}
	side.Version = v
	return side, nil
}

// String is MODE@VERSION and the flags that differ from kube-proxy's
// defaults.
func (s Side) String() string {
	out := fmt.Sprintf("%s@%s", s.Mode, s.Version.OrLatest())
	var flags []string
	if p := s.Flags; len(p.NodePortAddresses) > 0 || p.NodePortPrimary {
		flag := "--nodeport-addresses=" + nodePortAddrs(s)
		if s.defaulted {
			flag += " (nftables' default)"
		}
		flags = append(flags, flag)
	}
	if s.Flags.NoLocalhostNodePorts {
		flags = append(flags, "--iptables-localhost-nodeports=false")
	}
	if s.Flags.MasqueradeAll {
		flags = append(flags, "--masquerade-all")
	}
	if s.LocalhostNodePortsGate {
		flags = append(flags, "--feature-gates="+scenario.FeatureGateNFTablesLocalhostNodePorts+"=true")
	}
	if len(flags) > 0 {
		out += " " + strings.Join(flags, " ")
	}
	return out
}

// Effective returns the side as kube-proxy's command runs it: in nftables
// mode an unset --nodeport-addresses becomes "primary" (the node IPs),
// which kube-proxy's platformApplyDefaults does before the proxier starts
// (cmd/kube-proxy/app/server_linux.go, v1.34–v1.37; docs/migration.md).
// The proxiers, and so both engines, see the defaulted flag.
func (s Side) Effective() Side {
	if s.Mode == dataplane.ModeNFTables && len(s.Flags.NodePortAddresses) == 0 && !s.Flags.NodePortPrimary {
		s.Flags.NodePortPrimary = true
		s.defaulted = true
	}
	return s
}
