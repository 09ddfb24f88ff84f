package scenario

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/render"

	"github.com/svclab/svclab/sim/dataplane"
)

// fieldDoc documents one YAML field. It is the one table the reference is
// printed from; integer fields also carry the range and default that
// validation applies (see rangeOf).
type fieldDoc struct {
	path   string    // YAML path; [] marks a list element
	typ    string    // YAML type
	def    string    // default, as text; "" when it has none
	limits string    // limits other than an integer range
	r      *intRange // integer range and default, enforced by validation
	doc    string
}

func ints(min, max, def int) *intRange { return &intRange{min, max, def} }

var dataplaneList = strings.Join(dataplane.Names(), ", ")

var reference = []fieldDoc{
	{path: "name", typ: "string", def: "the file's base name", limits: "1-63 characters of A-Z a-z 0-9 . _ -, not starting with . or -", doc: "The scenario's name, used in run directories and reports."},
	{path: "description", typ: "string", limits: "no control characters other than newline and tab", doc: "Free text shown by svclab help and reports."},
	{path: "placement", typ: "string", def: "first", limits: "first, middle, last or an index", doc: "Where the explicit services go among the synthetic ones in KUBE-SERVICES."},
	{path: "cluster", typ: "mapping", doc: "Cluster-wide settings."},
	{path: "cluster.clusterCIDR", typ: "IPv4 CIDR", def: "10.0.0.0/8", limits: "masked", doc: "kube-proxy's local detector (`! -s CIDR` is masqueraded)."},
	{path: "cluster.serviceCIDR", typ: "IPv4 CIDR", def: "10.96.0.0/12", limits: "masked; holds every clusterIP and synthetic service", doc: "Where clusterIPs live."},
	{path: "cluster.clusterCIDRv6", typ: "IPv6 CIDR", def: DefaultClusterCIDRv6, doc: "The IPv6 pod CIDR: the IPv6 proxier's local-traffic detector, as clusterCIDR is the IPv4 one (IPv6 and dual-stack services)."},
	{path: "cluster.serviceCIDRv6", typ: "IPv6 CIDR", def: DefaultServiceCIDRv6, doc: "Where IPv6 ClusterIPs are allocated (the IPv6 proxier's drop rule for unallocated ClusterIPs)."},
	{path: "cluster.masqueradeBit", typ: "int", r: ints(0, 31, 14), doc: "The fwmark bit kube-proxy uses to mark packets for masquerading."},
	{path: "cluster.podCIDR", typ: "IPv4 CIDR", def: "10.244.0.0/16", limits: "masked", doc: "Where the lab's real pods live; synthetic endpoints avoid it."},
	{path: "cluster.fillerCIDR", typ: "IPv4 CIDR", def: "10.128.0.0/9", limits: "masked", doc: "Where synthetic endpoints live (served by the lab's sink pod)."},
	{path: "cluster.objects", typ: "path", limits: fmt.Sprintf("at most %d MiB; relative to the scenario file", MaxObjectsFileSize>>20), doc: "A file of Kubernetes objects (kubectl get services,endpointslices,nodes -A -o yaml or -o json: a List or a multi-document stream). Its services come first, with every Service feature, then services: and synthetic: ones. Such a file is also a scenario by itself."},
	{path: "cluster.nodeName", typ: "string", def: "cluster.objects' first Node, else the first node an endpoint names, else node-1", limits: "a DNS-1123 subdomain", doc: "The node the rules are rendered for: its zone and InternalIPs come from its Node object; its endpoints are the local ones."},
	{path: "services", typ: "list", limits: fmt.Sprintf("at most %d distinct endpoint IPs in all (each is a pod) unless lab.allowLargeLabs", MaxLabPods), doc: "Explicit services; their endpoints become lab pods."},
	{path: "services[].namespace", typ: "string", def: "default", limits: "a DNS-1123 label: 1-63 of a-z 0-9 -, starting and ending alphanumeric", doc: "The service's namespace."},
	{path: "services[].name", typ: "string", limits: "required; a DNS-1035 label: 1-63 of a-z 0-9 -, starting with a letter, ending alphanumeric; namespace/name unique", doc: "The service's name."},
	{path: "services[].type", typ: "string", def: "ClusterIP", limits: "ClusterIP or NodePort", doc: "The service type."},
	{path: "services[].clusterIP", typ: "IPv4 address", limits: "required; inside cluster.serviceCIDR; unicast; unique", doc: "The service's virtual IP."},
	{path: "services[].sessionAffinity", typ: "string", def: "None", limits: "None or ClientIP", doc: "ClientIP pins a client to one endpoint (the recent match)."},
	{path: "services[].sessionAffinityTimeout", typ: "int (seconds)", r: ints(1, 86400, 10800), doc: "How long ClientIP affinity lasts."},
	{path: "services[].ports", typ: "list", limits: "required, at least one; names and port/protocol pairs unique", doc: "The service's ports."},
	{path: "services[].ports[].name", typ: "string", def: "\"\" (only when the service has one port)", limits: "an IANA service name: 1-15 of a-z 0-9 -, at least one letter, no leading, trailing or double -", doc: "The port's name, part of kube-proxy's chain names and comments."},
	{path: "services[].ports[].protocol", typ: "string", def: "TCP", limits: "TCP, UDP or SCTP", doc: "The port's protocol."},
	{path: "services[].ports[].port", typ: "int", r: ints(1, 65535, 0), limits: "required", doc: "The service port."},
	{path: "services[].ports[].targetPort", typ: "int", def: "the port", r: ints(1, 65535, 0), doc: "The endpoints' port."},
	{path: "services[].ports[].nodePort", typ: "int", r: ints(1, 65535, 0), limits: "required for type NodePort; unique", doc: "The node port (Kubernetes allocates 30000-32767)."},
	{path: "services[].endpoints", typ: "list", limits: "unique IPs within a service", doc: "The service's endpoints: each a bare IP or a mapping with ip, ready and node."},
	{path: "services[].endpoints[].ip", typ: "IPv4 address", limits: "unicast (not 0.0.0.0, loopback, link-local, multicast or broadcast); not a clusterIP, not in cluster.serviceCIDR, not the client pod's " + ClientPodIP, doc: "The pod IP."},
	{path: "services[].endpoints[].ready", typ: "bool", def: "true", doc: "An endpoint that is not ready gets no traffic."},
	{path: "services[].endpoints[].node", typ: "string", def: "node-1", limits: "a DNS-1123 subdomain", doc: "The node the pod runs on (node-1 is the lab's node)."},
	{path: "synthetic", typ: "mapping", doc: "Generated filler services, for rendering and for a lab's rule set."},
	{path: "synthetic.services", typ: "int", r: ints(0, MaxSyntheticServices, 0), limits: "and what cluster.serviceCIDR holds", doc: "How many filler services."},
	{path: "synthetic.endpointsPerService", typ: "int", r: ints(0, MaxEndpointsPerService, 0), limits: "and what cluster.fillerCIDR holds", doc: "Endpoints of each filler service."},
	{path: "synthetic.seed", typ: "uint64", def: "0", doc: "Seeds the generated addresses."},
	{path: "synthetic.mix", typ: "mapping", doc: "Shapes the synthetic services (and a sweep's fillers) like a real cluster: weights by type, family, endpoint and port count, and shares of features. Each service's choices are deterministic and the shares hold to within one service; `svclab import --scenario` writes one from a cluster's objects. Without it every filler is a one-port IPv4 ClusterIP service."},
	{path: "synthetic.mix.types", typ: "map type → weight", def: "{ClusterIP: 1}", limits: "keys ClusterIP, NodePort, LoadBalancer; weights ≥ 0, not all 0", doc: "Service types. NodePort and LoadBalancer services get node ports from 30000; LoadBalancer services an ingress IP from 172.16.0.0/12 (fd00:172:16::/96)."},
	{path: "synthetic.mix.families", typ: "map family → weight", def: "{IPv4: 1}", limits: "keys IPv4, IPv6, DualStack", doc: "IP families: IPv6 clusterIPs from fd00:10:96::/108 and endpoints from fd00:10:128::/96, at the offsets of the IPv4 ones; a dual-stack service has both and each endpoint in both families."},
	{path: "synthetic.mix.endpoints", typ: "map count → weight", def: "synthetic.endpointsPerService (sweep.endpointsPerService in a sweep)", limits: fmt.Sprintf("counts 0..%d", MaxEndpointsPerService), doc: "Endpoints per service (per family): the distribution, e.g. {0: 1, 2: 6, 10: 3}."},
	{path: "synthetic.mix.ports", typ: "map count → weight", def: "{1: 1}", limits: "counts 1..100", doc: "Ports per service: the first is http 80 → 8080, the others port-K 8000+K → 9000+K."},
	{path: "synthetic.mix.externalTrafficPolicyLocal", typ: "float", def: "0", limits: "0..1", doc: "Share of externally accessible services (NodePort, LoadBalancer, or with an external IP) with externalTrafficPolicy: Local (LoadBalancer ones get a healthCheckNodePort)."},
	{path: "synthetic.mix.internalTrafficPolicyLocal", typ: "float", def: "0", limits: "0..1", doc: "Share of services with internalTrafficPolicy: Local."},
	{path: "synthetic.mix.sessionAffinity", typ: "float", def: "0", limits: "0..1", doc: "Share of services with ClientIP affinity (10800 s)."},
	{path: "synthetic.mix.externalIPs", typ: "float", def: "0", limits: "0..1", doc: "Share of services with an external IP (of each of their families)."},
	{path: "synthetic.mix.loadBalancerSourceRanges", typ: "float", def: "0", limits: "0..1", doc: "Share of LoadBalancer services with source ranges (203.0.113.0/24, 2001:db8::/32)."},
	{path: "synthetic.mix.remoteEndpoints", typ: "float", def: "0", limits: "0..1", doc: "Share of endpoints on node-2 rather than node-1, the rendered node (they are not local to it)."},
	{path: "fairness", typ: "mapping", doc: "A fairness run: new connections to each explicit service, counted per endpoint by the servers and by the kernel."},
	{path: "fairness.dataplanes", typ: "list of string", def: "[iptables-nft]", limits: "unique; " + dataplaneList, doc: "Dataplanes to measure, one after the other."},
	{path: "fairness.connections", typ: "int", r: ints(1, MaxConnections, 20000), doc: "New connections per service and dataplane."},
	{path: "fairness.concurrency", typ: "int", r: ints(1, MaxConcurrency, 4), doc: "Connections in flight at once."},
	{path: "fairness.rate", typ: "float (conn/s)", def: "0 (as fast as possible)", limits: fmt.Sprintf("0..%g, finite", MaxRate), doc: "Connection rate."},
	{path: "fairness.mode", typ: "string", def: "http", limits: "connect, http or keepalive", doc: "connect: handshake only; http: one request per connection; keepalive: requestsPerConn requests per connection."},
	{path: "fairness.requestsPerConn", typ: "int", def: "100 in keepalive mode, else 0", r: ints(0, 1_000_000, 0), doc: "Requests per connection in keepalive mode."},
	{path: "fairness.clientOnNode", typ: "bool", def: "false", doc: "Send from the node's own namespace instead of a client pod."},
	{path: "fairness.scheduler", typ: "string", def: "rr", limits: "rr, wrr, lc, sh or mh", doc: "The IPVS scheduler."},
	{path: "fairness.from", typ: "string", def: "pod (node with clientOnNode)", limits: "pod, node, external or external-outside-range", doc: "Where connections start: a client pod, the node itself, the external client on the node's uplink from an address inside each service's loadBalancerSourceRanges, or from one outside them."},
	{path: "fairness.target", typ: "string", def: "clusterIP", limits: "clusterIP, nodePort, externalIP or loadBalancer", doc: "Which of a service's addresses connections go to: its clusterIP, the node's IP at its nodePort, its first externalIP, or its first load-balancer ingress IP."},
	{path: "fairness.family", typ: "string", def: "IPv4", limits: "IPv4 or IPv6", doc: "The family of the addresses used; a dual-stack service is measured on one family per run."},
	{path: "sweep", typ: "mapping", doc: "A scaling sweep: latency, throughput and sync times against the number of services."},
	{path: "sweep.services", typ: "list of int", limits: fmt.Sprintf("required; unique; each 1..%d (up to %d with lab.allowLargeLabs) and within cluster.serviceCIDR", MaxSweepServices, MaxSyntheticServices), doc: "Service counts to measure (three of them are targets)."},
	{path: "sweep.endpointsPerService", typ: "int", r: ints(1, MaxEndpointsPerService, 1), limits: "and what cluster.fillerCIDR holds", doc: "Endpoints of each filler service."},
	{path: "sweep.dataplanes", typ: "list of string", def: "[iptables-nft, nftables]", limits: "unique; " + dataplaneList, doc: "Dataplanes to measure."},
	{path: "sweep.positions", typ: "list of string", def: "[last]", limits: "unique; first, middle, last, uniform", doc: "Where the probed target sits among the services; uniform spreads probes over all."},
	{path: "sweep.connections", typ: "int", r: ints(1, MaxConnections, 2000), doc: "Probe connections per point and repetition."},
	{path: "sweep.warmup", typ: "int", r: ints(0, 1_000_000, 200), doc: "Probe connections made and discarded first."},
	{path: "sweep.repetitions", typ: "int", r: ints(1, 1000, 3), doc: "Interleaved repetitions of every point."},
	{path: "sweep.concurrency", typ: "int", r: ints(1, MaxConcurrency, 1), doc: "Probe connections in flight at once."},
	{path: "sweep.packetRate", typ: "bool", def: "false", doc: "Also measure the packet rate the rules sustain."},
	{path: "sweep.seed", typ: "uint64", def: "0", doc: "Seeds filler addresses and the order points are visited in."},
	{path: "sweep.maxServices", typ: "map dataplane → int", limits: "known dataplanes; values 1..MaxSyntheticServices", doc: "Caps the service count per dataplane (points above are skipped)."},
	{path: "sweep.syncLimit", typ: "map dataplane → int", limits: fmt.Sprintf("known dataplanes; values 0..%d", MaxSyntheticServices), doc: "Full syncs are timed up to this many services; above, rules load the fastest way and sync_full_s is not measured."},
	{path: "sweep.incrementalBatch", typ: "int", def: "0 (none)", limits: fmt.Sprintf("2..%d", MaxIncrementalBatch), doc: "Also time a partial sync carrying this many endpoint changes (one endpoint added to each of as many filler services, or all of them when there are fewer), after the one-change incremental sync and within sweep.incrementalLimit: what each change kube-proxy's sync loop batches adds to a sync (sync_batch_s, sync_batch); svclab plan's programming latency uses it."},
	{path: "sweep.incrementalBatchKind", typ: "string", def: "endpoints", limits: "endpoints, services", doc: "What the changes of sweep.incrementalBatch are: endpoints (one endpoint added to each of as many filler services) or services (as many new Services created in one partial sync, each with endpointsPerService endpoints; the dataplanes must create services in a partial sync: " + strings.Join(partialCreators(), ", ") + "). The points record it as sync_batch_kind; svclab plan --churn R --churn-kind services uses a batch of services."},
	{path: "sweep.incrementalLimit", typ: "map dataplane → int", limits: fmt.Sprintf("known dataplanes; values 0..%d", MaxSyntheticServices), doc: "The same for incremental syncs."},
	{path: "sweep.throughputConnections", typ: "int", r: ints(1, MaxConnections, 2000), doc: "Batch size for conn/s and CPU per connection."},
	{path: "sweep.scheduler", typ: "string", def: "rr", limits: "rr, wrr, lc, sh or mh", doc: "The IPVS scheduler."},
	{path: "sweep.walkProbe", typ: "list of int", limits: fmt.Sprintf("%d..%d, unique; the sweep needs a rule-walk (iptables) dataplane", MinWalkProbe, MaxSyntheticServices), doc: "KUBE-SERVICES sizes at which each iptables dataplane also measures a walk probe: all the rules of that many services, but only the target services' chains (the others jump to one shared service), so a long rule walk's cost is measured in seconds; recorded apart (walk_probe records), used by svclab plan beyond the calibrated sizes."},
	{path: "sweep.addrTypeProbe", typ: "list of int", limits: "sizes of sweep.walkProbe, at most MaxAddrTypeProbe (22768), unique", doc: "Walk-probe sizes at which each iptables dataplane also measures that walk probe with as many addrtype rules added to the filter table's KUBE-EXTERNAL-SERVICES (kube-proxy's `-m addrtype --dst-type LOCAL ... -j REJECT` for a NodePort without endpoints, which every new forwarded connection walks); recorded apart (addrtype_probe records), used by svclab plan to price an addrtype match (a routing lookup) against a plain rule."},
	{path: "sweep.recentProbe", typ: "int", def: "0 (none)", limits: "0..100000; needs sweep.walkProbe", doc: "xt_recent lists each iptables dataplane's recent probe creates: the smallest walk probe with that many lists created ahead of one more, which a few rules at the top of nat KUBE-SERVICES check as kube-proxy's ClientIP-affinity rules do (`-m recent --rcheck`), so every first packet walks the kernel's list of lists by name past all of them; recorded apart (recent_probe records), used by svclab plan to price a step of that walk (ClientIP affinity's first packets)."},
	{path: "sweep.walkProbeReload", typ: "bool", def: "sweep.syncEachRepetition", doc: "Reload the walk probes in every repetition, so their repetitions sample the spread of kernel states a load leaves (a 50,000-service iptables-legacy walk took 233-416 µs over 8 reloads); false loads each probe once (svclab plan calibrate: an 80,000-service probe takes seconds to reload)."},
	{path: "sweep.syncProbe", typ: "list of int", limits: fmt.Sprintf("%d..%d, unique; within cluster.serviceCIDR", MinSyncProbe, MaxSyntheticServices), doc: "Service counts at which each dataplane also times its full sync alone (no traffic), then one change's incremental sync (up to sweep.incrementalLimit), once per repetition, up to sweep.syncLimit: a sync that grows faster than a line is measured past the traffic points' sizes. A map-lookup dataplane (nftables, ipvs) in a sweep with the uniform position then also probes that position on the probe's rules (a lookup probe). Recorded apart (sync_probe records), used by svclab plan's full-sync, incremental-sync, kernel-memory and uniform-p50 fits."},
	{path: "sweep.lookupProbe", typ: "list of int", limits: fmt.Sprintf("%d..%d, unique; the sweep needs a map-lookup dataplane (nftables, ipvs) and the uniform position; within cluster.serviceCIDR", MinSyncProbe, MaxSyntheticServices), doc: "Service counts at which each map-lookup dataplane (nftables, ipvs) loads the sweep's ruleset of that many services once (its syncs not timed) and probes the uniform position in every repetition: how a random service's lookup grows with the map past the points' sizes, without the sync probe's reload per repetition (svclab plan calibrate). A size the dataplane sync-probes is left to its sync probe. Recorded as sync_probe records with neither syncs nor kernel memory (0: a first load is not a sample of loads, and measured 4% more kernel memory than reloads), used by svclab plan's uniform-p50 fit."},
	{path: "sweep.probeCPU", typ: "int", def: "none (the scheduler's choice)", limits: fmt.Sprintf("0..%d, a CPU the run may use", MaxProbeCPU), doc: "Make every first-packet probe's connects from this CPU (its thread pinned for the probe): a node with an isolated CPU measures there, away from other work. On a VM it does not remove the vCPUs' own changes of speed (docs/measurements.md, \"Two speeds of a vCPU\")."},
	{path: "sweep.syncEachRepetition", typ: "bool", def: "false", doc: "Reload the rules in every repetition, so sync times get one sample per repetition."},
	{path: "kubeProxy", typ: "mapping", doc: "Whose code writes the rules, and which kube-proxy release's rules they are."},
	{path: "kubeProxy.engine", typ: "string", def: EngineNative, limits: EngineNative + " or " + EngineKubeProxy, doc: "native: svclab's renderer (fast, any OS); kube-proxy: kube-proxy's own proxier, run by the driver built with `make kube-proxy` (render, and sync in the lab's node)."},
	{path: "kubeProxy.version", typ: "string", def: string(render.LatestKubeProxy), limits: render.SupportedKubeProxyVersions() + " (or a patch release of one)", doc: "The kube-proxy release whose rules are written, for both engines (v1.36+ changed the nftables layout)."},
	{path: "kubeProxy.masqueradeAll", typ: "bool", def: "false", doc: "kube-proxy's --masquerade-all: masquerade every packet to a ClusterIP, not only those from outside the cluster CIDR (render --masquerade-all)."},
	{path: "kubeProxy.nodePortAddresses", typ: "list of strings", def: "every local address", limits: "CIDRs, or [primary] (the node's IP)", doc: "kube-proxy's --nodeport-addresses: the node addresses NodePorts answer on (render --nodeport-addresses)."},
	{path: "kubeProxy.localhostNodePorts", typ: "bool", def: "true", doc: "kube-proxy's --iptables-localhost-nodeports: NodePorts also answer on 127.0.0.1 (iptables mode, IPv4; render --localhost-nodeports=false)."},
	{path: "kubeProxy.featureGates", typ: "mapping of gate to bool", def: "every gate at kube-proxy's default (off)", limits: "KubeProxyNFTablesLocalhostNodePorts (kube-proxy 1.37); not with engine kube-proxy", doc: "kube-proxy's --feature-gates (render --feature-gates Name=true). KubeProxyNFTablesLocalhostNodePorts (alpha): nftables mode counts and rejects NodePort traffic to localhost, as kube-proxy's TestOverallNFTablesRules expects."},
	{path: "gate", typ: "list", def: "p10_us and sync_full_s at the largest service count", limits: fmt.Sprintf("needs a sweep; at most %d rules; metric and services unique together", MaxGateRules), doc: "The primary comparisons svclab ab gates on (the rest is reported, not gated): few, so the Benjamini-Hochberg correction keeps its power. Each applies to every dataplane and position of the sweep."},
	{path: "gate[].metric", typ: "string", limits: "required; a sweep metric: " + strings.Join(gateMetricNames(), ", "), doc: "The metric compared, as new/base over the paired repetitions."},
	{path: "gate[].threshold", typ: "float (percent)", def: fmt.Sprint(DefaultGateThreshold), limits: "above 0, at most 1000", doc: "A change worse than this, significantly, is a REGRESSION; an interval that excludes it is a PASS."},
	{path: "gate[].services", typ: "int", def: "the largest of sweep.services", limits: "one of sweep.services", doc: "The service count the metric is compared at."},
	{path: "lab", typ: "mapping", doc: "Settings of the lab a run builds."},
	{path: "lab.allowLargeLabs", typ: "bool", def: "false", limits: fmt.Sprintf("needed above %d explicit pods or %d sweep services", MaxLabPods, MaxSweepServices), doc: "Allow labs larger than this machine is known to hold."},
}

// rangeOf returns the integer range of a field of the reference table.
func rangeOf(path string) intRange {
	for _, f := range reference {
		if f.path == path && f.r != nil {
			return *f.r
		}
	}
	panic("scenario: no integer range for " + path)
}

// Reference writes the scenario file reference: every field, its type,
// default and limits (what `svclab help scenario` prints).
func Reference(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, `Scenario files (YAML): svclab render --scenario FILE, svclab run FILE, svclab up FILE.

A file is one YAML document of at most %d MiB and %d lines plus list items.
Unknown fields are errors. A field left out takes its default; a field written
as 0 must be valid as 0. Every problem is reported, before anything runs, as
    file:line: field: message (hint)
The embedded scenarios (svclab run NAME; see svclab --help) are examples.

Fields (a[] is an element of list a):
`, MaxFileSize>>20, MaxItems)
	for _, f := range reference {
		def, lim := f.def, f.limits
		if f.r != nil {
			if def == "" && f.r.def != 0 {
				def = strconv.Itoa(f.r.def)
			}
			rng := fmt.Sprintf("%d..%d", f.r.min, f.r.max)
			if lim == "" {
				lim = rng
			} else {
				lim = rng + "; " + lim
			}
		}
		head := f.typ
		if def != "" {
			head += ", default " + def
		}
		fmt.Fprintf(b, "\n%s  (%s)\n    %s\n", f.path, head, f.doc)
		if lim != "" {
			fmt.Fprintf(b, "    limits: %s\n", lim)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
