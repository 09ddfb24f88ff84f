package render

import (
	"fmt"
	"strings"
)

// KubeProxyVersion is the kube-proxy release whose rules a renderer
// reproduces, as "MAJOR.MINOR". The zero value means LatestKubeProxy.
// What a version writes differently is a fact of its KubeProxyRelease
// row (Release), read by the predicates below.
type KubeProxyVersion string

// Names of two supported versions, for callers and tests; a new version
// needs no constant, only its row.
const (
	KubeProxy135 KubeProxyVersion = "1.35"
	KubeProxy137 KubeProxyVersion = "1.37"
)

// KubeProxyRelease is one supported kube-proxy minor release: the patch
// release svclab is checked against (kubeproxy/go.*.mod pins it, the
// conformance suite and the testdata dumps are of it) and the facts of its
// output that differ between releases, each found by the conformance
// suite (kube-proxy's own output is the oracle).
type KubeProxyRelease struct {
	Version KubeProxyVersion // "1.37"
	Patch   string           // "v1.37.2"

	// NFTablesDirectDNAT: nftables services without session affinity
	// DNAT in the service chain (no per-endpoint chains), hairpin
	// connections are masqueraded through the hairpin-connections set and
	// ClusterIP traffic is marked by one rule in `services` (v1.36+).
	NFTablesDirectDNAT bool
	// NFTablesLocalhostNodePorts: nftables mode writes the
	// localhost-nodeport-reject-* objects and has the alpha feature gate
	// KubeProxyNFTablesLocalhostNodePorts (v1.37+).
	NFTablesLocalhostNodePorts bool
	// NFTablesDNATToSingleEndpoint: a service chain with one endpoint
	// DNATs with `dnat to IP:PORT` (v1.37+; v1.36 writes a numgen map of
	// one element).
	NFTablesDNATToSingleEndpoint bool
	// NFTablesTruncatedComments: element comments (the service port's
	// name) are cut to knftables' CommentLengthMax (v1.37+).
	NFTablesTruncatedComments bool
	// AlwaysRandomFully: iptables and IPVS modes write MASQUERADE
	// --random-fully whatever iptables supports (v1.37+; before, only
	// when iptables supports it: the renderers' Options.RandomFully).
	AlwaysRandomFully bool
	// ConntrackCleansServicesWithoutEndpoints: kube-proxy's conntrack
	// reconciler (pkg/proxy/conntrack/cleanup.go) also removes the UDP
	// entries of a Service left with no serving endpoints, so a one-way
	// UDP sender stops reaching a deleted endpoint after the next sync
	// (v1.37+, kubernetes#139629; before, such Services are skipped and
	// the DNAT-ed entry lives as long as packets refresh it,
	// kubernetes#139628). Not a rule fact: the driver's loop test
	// (kubeproxy/driver, TestLoopConntrackScaleToZero) checks it against
	// kube-proxy's own code and the kernel.
	ConntrackCleansServicesWithoutEndpoints bool
}

// kubeProxyReleases are the supported releases, oldest first; the last
// is LatestKubeProxy. Adding a release is one row here (see
// kubeproxy/README.md, "Adding a kube-proxy version").
var kubeProxyReleases = []KubeProxyRelease{
	{Version: "1.34", Patch: "v1.34.4"},
	{Version: "1.35", Patch: "v1.35.4"},
	{Version: "1.36", Patch: "v1.36.3", NFTablesDirectDNAT: true},
	{Version: "1.37", Patch: "v1.37.2", NFTablesDirectDNAT: true, NFTablesLocalhostNodePorts: true,
		NFTablesDNATToSingleEndpoint: true, NFTablesTruncatedComments: true, AlwaysRandomFully: true,
		ConntrackCleansServicesWithoutEndpoints: true},
}

// KubeProxyVersions lists the supported versions, oldest first.
var KubeProxyVersions = versionsOf(kubeProxyReleases)

// LatestKubeProxy is the newest supported version, the zero value's.
var LatestKubeProxy = kubeProxyReleases[len(kubeProxyReleases)-1].Version

func versionsOf(rows []KubeProxyRelease) []KubeProxyVersion {
	out := make([]KubeProxyVersion, len(rows))
	for i, r := range rows {
		out[i] = r.Version
	}
	return out
}

// KubeProxyReleases returns the supported releases' rows, oldest first.
func KubeProxyReleases() []KubeProxyRelease {
	return append([]KubeProxyRelease(nil), kubeProxyReleases...)
}

// SupportedKubeProxyVersions is the supported versions as a message
// names them: "1.34, 1.35, 1.36 or 1.37".
func SupportedKubeProxyVersions() string {
	s := make([]string, len(KubeProxyVersions))
	for i, v := range KubeProxyVersions {
		s[i] = string(v)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

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
	return "", fmt.Errorf("kube-proxy version %q: supported are %s", s, SupportedKubeProxyVersions())
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
		return fmt.Errorf("kube-proxy version %q: supported are %s", string(v), SupportedKubeProxyVersions())
	}
	return nil
}

// Release returns v's row (LatestKubeProxy's for the zero value); an
// unsupported version has the zero row (renderers Validate first).
func (v KubeProxyVersion) Release() KubeProxyRelease {
	v = v.OrLatest()
	for _, r := range kubeProxyReleases {
		if r.Version == v {
			return r
		}
	}
	return KubeProxyRelease{}
}

// NFTablesDirectDNAT reports the row's NFTablesDirectDNAT: v's nftables
// layout DNATs in the service chain (hairpin-connections set).
func (v KubeProxyVersion) NFTablesDirectDNAT() bool { return v.Release().NFTablesDirectDNAT }

// NFTablesLocalhostNodePorts reports the row's NFTablesLocalhostNodePorts:
// v writes the localhost-nodeport-reject-* objects and has the
// KubeProxyNFTablesLocalhostNodePorts gate.
func (v KubeProxyVersion) NFTablesLocalhostNodePorts() bool {
	return v.Release().NFTablesLocalhostNodePorts
}

// AlwaysRandomFully reports the row's AlwaysRandomFully: v writes
// MASQUERADE --random-fully whatever iptables supports.
func (v KubeProxyVersion) AlwaysRandomFully() bool { return v.Release().AlwaysRandomFully }
