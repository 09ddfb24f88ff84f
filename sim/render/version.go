package render

import (
	"fmt"
	"strings"
)

// KubeProxyVersion is the kube-proxy release whose rules a renderer
// reproduces, as "MAJOR.MINOR". The zero value means LatestKubeProxy.
//
// The versions differ where kube-proxy's output differs:
//   - nftables: 1.36 replaced the per-endpoint chains of services without
//     session affinity by a DNAT in the service chain, the per-chain
//     masquerade jumps by the hairpin-connections set and one rule in
//     `services`, and added the localhost-nodeport-reject-* objects (1.37).
//     KubeProxy135 is the last release with the old layout.
//   - iptables and IPVS: 1.37 always writes MASQUERADE --random-fully;
//     1.35 writes it only when iptables supports it (Options.RandomFully).
type KubeProxyVersion string

// The supported kube-proxy versions, each checked against the newest patch
// release of its line (v1.35.4 and v1.37.2).
const (
	KubeProxy135    KubeProxyVersion = "1.35"
	KubeProxy137    KubeProxyVersion = "1.37"
	LatestKubeProxy                  = KubeProxy137
)

// KubeProxyVersions lists the supported versions, oldest first.
var KubeProxyVersions = []KubeProxyVersion{KubeProxy135, KubeProxy137}

// ParseKubeProxyVersion reads a version as a user writes it: "1.37",
// "v1.37" or a patch release such as "1.37.2"; "" is LatestKubeProxy.
func ParseKubeProxyVersion(s string) (KubeProxyVersion, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if t == "" {
		return LatestKubeProxy, nil
	}
	if parts := strings.Split(t, "."); len(parts) == 3 {
		t = parts[0] + "." + parts[1]
	}
	for _, v := range KubeProxyVersions {
		if string(v) == t {
			return v, nil
		}
	}
	return "", fmt.Errorf("kube-proxy version %q: supported are %v", s, KubeProxyVersions)
}

// OrLatest returns v, or LatestKubeProxy for the zero value.
func (v KubeProxyVersion) OrLatest() KubeProxyVersion {
	if v == "" {
		return LatestKubeProxy
	}
	return v
}

// Validate reports an unsupported version; the zero value is valid.
func (v KubeProxyVersion) Validate() error {
	if v == "" {
		return nil
	}
	_, err := ParseKubeProxyVersion(string(v))
	if err != nil || strings.Count(string(v), ".") != 1 || strings.HasPrefix(string(v), "v") {
		return fmt.Errorf("kube-proxy version %q: supported are %v", string(v), KubeProxyVersions)
	}
	return nil
}

// NFTablesDirectDNAT reports whether v uses nftables' v1.36+ layout (DNAT
// in the service chain, hairpin-connections set).
func (v KubeProxyVersion) NFTablesDirectDNAT() bool { return v.OrLatest() != KubeProxy135 }

// AlwaysRandomFully reports whether v writes MASQUERADE --random-fully
// whatever iptables supports (1.37 dropped the HasRandomFully check).
func (v KubeProxyVersion) AlwaysRandomFully() bool { return v.OrLatest() != KubeProxy135 }
