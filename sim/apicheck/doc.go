// Package apicheck makes the checks the Kubernetes API server makes on
// Services and EndpointSlices before kube-proxy ever reads them, as far as
// kube-proxy's rules depend on them: names (with apimachinery's own
// validation: DNS-1035 labels for Service names, DNS-1123 labels for
// namespaces, DNS-1123 subdomains for EndpointSlice and node names, IANA
// service names for ports), addresses (no loopback, broadcast, multicast,
// link-local or unspecified clusterIP or endpoint), ports, and what must be
// unique across services (clusterIPs, nodePorts) or within one (port names,
// port and protocol, endpoint addresses).
//
// kube-proxy trusts the API server to have made these checks: it writes
// names into rules unescaped, so a name with a newline would become a rule
// of its own. svclab makes them at load time, once, for both the services:
// of a scenario file (sim/scenario) and the objects of a Kubernetes objects
// file (sim/objects). Each check returns Problems that say what is wrong in
// terms of the Service (Where, Index); each caller turns them into its own
// file's field paths. Input is quoted only as a short escaped excerpt
// (Excerpt), so no message holds a raw newline, NUL or bidi control.
package apicheck
