// Package driver runs kube-proxy's own proxiers (k8s.io/kubernetes
// pkg/proxy/iptables, nftables and ipvs) as a library, for svclab.
//
// A Driver is built from a kube.Request (sim/kube): it constructs the
// proxier with kube-proxy's NewProxier, feeds it the request's Services
// and EndpointSlices, runs the first (full) sync, then applies each Step's
// events and syncs again, reporting every sync as a kube.Sync.
//
// Two ways to run: Render programs nothing. The iptables, ipset and IPVS
// interfaces are record-only or in-memory fakes, and the members that
// NewProxier wires to the host without an injection point (conntrack,
// nfacct, the service health server, the network interfacer, the netlink
// handle, the knftables interface) are replaced after construction, by
// reflection on unexported fields (see setField: a renamed field fails
// loudly). Sync uses the real tools exactly as kube-proxy does and is meant
// to run inside a lab network namespace.
//
// The kube-proxy version is chosen at build time: go.mod pins the newest
// supported release, go.1XX.mod with the build tag kp1XX each older one
// (the rows of sim/render's version table); glue_1XX.go holds each
// version's NewProxier calls (see kubeproxy/README.md).
package driver
