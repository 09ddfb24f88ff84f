// Package objects reads Kubernetes objects as kube-proxy receives them: a
// `kubectl get services,endpointslices,nodes -A -o yaml` (or -o json) List,
// or a stream of such objects (multi-document YAML, concatenated JSON), and
// turns them into svclab's model.
//
// Decoding uses the Kubernetes API types (k8s.io/api) and apimachinery's
// strict serializer, the way the ecosystem reads these files: an unknown or
// duplicate field is an error. The defaults the API server applies are then
// filled in (type ClusterIP, protocol TCP, targetPort = port, ipFamilies
// from clusterIPs, ClientIP affinity for 10800 s, traffic policies Cluster,
// VIP ipMode for load-balancer ingress IPs, EndpointSlice port names and
// protocols), and addresses are parsed as kube-proxy parses them
// (k8s.io/utils/net's "sloppy" parsers: 172.30.0.041 is 172.30.0.41).
//
// Every object is then held to the checks the API server makes and
// scenarios make too (sim/apicheck, one validation for both): names as
// the API allows them (kube-proxy writes them into rules unescaped),
// unicast clusterIPs and endpoints, no clusterIP or nodePort used twice, no
// endpoint that is a service's clusterIP, enumerations (ipFamilyPolicy,
// trafficDistribution, …) with their API values. YAML "..." ends a
// document. An API version kube-proxy does not read (e.g. an EndpointSlice
// of discovery.k8s.io/v1beta1) is an error.
//
// Objects of other kinds are ignored and counted. Every problem is an
// *Error naming the file, the object (kind and namespace/name) and the
// field path, e.g.
//
//	cluster.yaml: Service default/web: spec.clusterIP: "10.0.0.300" is not an IP address
//
// Conversion into the model follows kube-proxy's reading of the objects:
// a service's endpoints are those of every EndpointSlice labelled
// kubernetes.io/service-name with its name (both address types), a service
// port's target port is the number of the slice port of the same name and
// protocol (so named targetPorts resolve as kube-proxy resolves them; a
// port no slice port resolves is model.Port.Unresolved: no endpoints, as
// for kube-proxy), and
// endpoint conditions read nil as ready and serving, not terminating.
//
// The package also summarises a cluster's shape (Shape), writes an
// anonymised copy that keeps that shape (Anonymize), and re-encodes objects
// as a List (Encode). It makes no syscalls and reads no files: callers hand
// it bytes.
package objects
