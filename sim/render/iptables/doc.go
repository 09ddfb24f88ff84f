// Package iptables renders the iptables-restore payload that kube-proxy's
// iptables mode writes for a model: the filter and nat tables with
// KUBE-SERVICES, KUBE-EXTERNAL-SERVICES, KUBE-PROXY-FIREWALL, KUBE-SVC-*,
// KUBE-SVL-*, KUBE-EXT-*, KUBE-FW-*, KUBE-SEP-*, KUBE-MARK-MASQ,
// KUBE-POSTROUTING, KUBE-NODEPORTS, KUBE-FORWARD and KUBE-FIREWALL, in
// kube-proxy's generation order, with its chain-name hashes, probability
// formatting, comment quoting and large-cluster mode. The differential
// tests replay kube-proxy's own TestOverallIPTablesRules, TestBadIPs,
// TestSyncProxyRulesRepeated and TestSyncProxyRulesLargeClusterMode
// (v1.35.4 and v1.37.2, testdata/kube-proxy); kubeproxy/conformance
// compares every feature with kube-proxy's own proxier.
//
// Versions. Options.Version selects the kube-proxy release; the two
// supported ones differ only in that v1.37 always writes MASQUERADE
// --random-fully (v1.35 only when iptables supports it: Options.RandomFully).
//
// Families. The model's Family picks the payload: IPv4 for
// iptables-restore, IPv6 for ip6tables-restore (no KUBE-FIREWALL, no
// localhost NodePorts, `! -d ::1/128` on the nodeports rule). Each service
// is read as that family's proxier sees it (model.ProjectService); those
// kube-proxy skips (headless, ExternalName, no ClusterIP of the family)
// get no rules and do not count towards large-cluster mode.
//
// Features. LoadBalancer ingress IPs, external IPs, node ports and health
// check node ports; loadBalancerSourceRanges through KUBE-FW-* and
// KUBE-PROXY-FIREWALL (with the node-IP-in-a-range rules); external and
// internal traffic policy Local through KUBE-SVL-*, the KUBE-EXT-*
// short-circuits and the "has no local endpoints" drops; kube-proxy's
// flags from Options.Flags (render.Config's): --masquerade-all,
// --nodeport-addresses (the node's addresses are the loopback one and
// Cluster.NodeIP, as on the driver's render-mode host) and
// --iptables-localhost-nodeports.
//
// Endpoints. A service port routes to the endpoints kube-proxy's
// CategorizeEndpoints (pkg/proxy/topology.go) picks for each traffic
// policy: the ready ones, following topology hints (PreferSameZone,
// PreferSameNode) when every ready endpoint has one, or the serving and
// terminating ones when none is ready (separately for Cluster and Local).
// Large-cluster mode (no per-endpoint comments) starts above
// LargeClusterThreshold endpoints counted as kube-proxy counts them: every
// endpoint, ready or not, times ports (model.TotalEndpoints).
//
// Comments. Names are written into comments exactly as kube-proxy writes
// them (phrases in double quotes, the bare "ns/svc:port" unquoted) when
// Kubernetes would accept them. Any other name is made safe instead of
// breaking the line as kube-proxy would: control characters become spaces,
// the comment is cut to the kernel's 255 bytes and quoted with backslash
// escapes, so no name can end a line or add a word to a rule (FuzzRenderNames).
//
// Partial syncs. RenderPartial writes only the updated services' chains, as
// kube-proxy's partial syncs do, and flushes and deletes (`:CHAIN` + `-X`)
// the chains of the previous services that the model no longer has.
// Syncer works out the updated and previous services itself from the last
// state it wrote, for a sequence of syncs: a service is updated when
// kube-proxy's change trackers see it change for the family (its service
// ports or its EndpointSlice of that family).
//
// Order. kube-proxy iterates services in Go map order, so its KUBE-SERVICES
// order is random. svclab renders services in the model's order instead (see
// model.Place for putting target services first, last, in the middle or at an
// index); within a service, endpoints follow kube-proxy's string order.
//
// Streaming. The payload is written in three passes over the services (filter
// rules, nat chain declarations, nat rules), because kube-proxy declares every
// nat chain before the first nat rule. No pass keeps more than one service in
// memory, so rendering 100,000 services needs memory for one service, not
// for the output.
//
// The jump rules from the built-in chains (PREROUTING → KUBE-SERVICES and so
// on) are not part of kube-proxy's restore payload; it installs them with
// `iptables -C`/`-I`. RenderJumps writes them as a separate restore payload.
package iptables
