package scenario

import (
	"fmt"
	"strings"
)

// timelineReference documents the timeline section (appended to the
// reference table, whose order is the printed order).
var timelineReference = []fieldDoc{
	{path: "timeline", typ: "mapping", doc: "A run in motion: events at given times (scale, rolling update, service storms, changes, kube-proxy restarts, pod deletions) while traffic runs through the node; outcomes per second and per event, and the programming latency of each event (svclab run)."},
	{path: "timeline.duration", typ: "duration", limits: fmt.Sprintf("required; 1s..%v", MaxTimelineDuration), doc: "The observation window, from the first sync. Durations are Go durations: 5s, 250ms, 1m30s."},
	{path: "timeline.dataplanes", typ: "list of string", def: "[iptables-nft]", limits: "unique; " + dataplaneList, doc: "Dataplanes to run the timeline on, one after the other."},
	{path: "timeline.minSyncPeriod", typ: "duration", def: defaultMinSyncPeriod.String(), limits: "at most syncPeriod", doc: "kube-proxy's --iptables-min-sync-period / minSyncPeriod: the least time between two syncs (the native engine syncs on each event and ignores it)."},
	{path: "timeline.syncPeriod", typ: "duration", def: defaultSyncPeriod.String(), limits: "at least 1ms", doc: "kube-proxy's --iptables-sync-period / syncPeriod: the most time between two syncs (and its full resync)."},
	{path: "timeline.traffic", typ: "list", doc: "Traffic generators that run through the whole window."},
	{path: "timeline.traffic[].protocol", typ: "string", def: "TCP", limits: "TCP or UDP", doc: "TCP: a steady stream of new connections, each a handshake and one request; UDP: one-way datagrams from one socket with a fixed source port, like a statsd client."},
	{path: "timeline.traffic[].service", typ: "string", limits: "required; an explicit service, NAME or NAMESPACE/NAME", doc: "The service the traffic goes to (its clusterIP)."},
	{path: "timeline.traffic[].port", typ: "int", def: "the service's first port of the protocol", limits: "a port of the service with that protocol", doc: "The service port."},
	{path: "timeline.traffic[].rate", typ: "int (per second)", r: ints(1, MaxTrafficRate, 100), doc: "New connections, or datagrams, per second."},
	{path: "timeline.traffic[].from", typ: "string", def: "pod", limits: "pod or external", doc: "A client pod on the node, or a client outside the node on its uplink."},
	{path: "timeline.traffic[].sourcePort", typ: "int", def: fmt.Sprint(defaultUDPSourcePort), limits: "1..65535; UDP only", doc: "The UDP sender's fixed source port (one conntrack entry for its whole life)."},
	{path: "timeline.traffic[].timeout", typ: "duration", def: defaultTCPTimeout.String(), limits: "1ms..1m; TCP only", doc: "How long a connection waits for its handshake and answer before it counts as timed out."},
	{path: "timeline.events", typ: "list", doc: "The events, each at: and exactly one kind (" + strings.Join(eventKinds, ", ") + "). Events at the same time happen in file order."},
	{path: "timeline.events[].at", typ: "duration", limits: "required; inside the window", doc: "When the event happens, from the start of the window."},
	{path: "timeline.events[].comment", typ: "string", doc: "Free text shown with the event in reports."},
	{path: "timeline.events[].scale", typ: "mapping", doc: "Scale a service's endpoints."},
	{path: "timeline.events[].scale.service", typ: "string", limits: "required; an explicit service", doc: "Scale a service: down removes its last endpoints (their pods are deleted: their addresses become sinks that count what still arrives); up adds new pods with new addresses from cluster.podCIDR."},
	{path: "timeline.events[].scale.replicas", typ: "int", limits: fmt.Sprintf("required; 0..%d", MaxLabPods), doc: "The endpoint count after the event."},
	{path: "timeline.events[].rollingUpdate", typ: "mapping", doc: "A rolling update of a service's pods."},
	{path: "timeline.events[].rollingUpdate.service", typ: "string", limits: "required; an explicit service", doc: "Replace every endpoint one by one: a new ready pod is added, the old endpoint turns terminating (serving, not ready), and after overlap it is gone and its pod deleted."},
	{path: "timeline.events[].rollingUpdate.interval", typ: "duration", def: defaultRollInterval.String(), limits: "at least 1ms", doc: "Time between two replacements."},
	{path: "timeline.events[].rollingUpdate.overlap", typ: "duration", def: defaultRollOverlap.String(), doc: "How long an old endpoint stays terminating (serving) beside its replacement."},
	{path: "timeline.events[].createServices", typ: "mapping", doc: "A storm of new services."},
	{path: "timeline.events[].createServices.count", typ: "int", limits: fmt.Sprintf("required; 1..%d; needs synthetic:", MaxSyntheticServices), doc: "A storm: create this many more synthetic services on top of synthetic.services (with synthetic.endpointsPerService endpoints each)."},
	{path: "timeline.events[].createServices.over", typ: "duration", def: "0 (at once)", doc: "Spread the creations evenly over this time."},
	{path: "timeline.events[].deleteServices", typ: "mapping", doc: "Delete services."},
	{path: "timeline.events[].deleteServices.service", typ: "string", limits: "an explicit service; or count", doc: "Delete this service (and its EndpointSlice)."},
	{path: "timeline.events[].deleteServices.count", typ: "int", limits: "1..the synthetic and created services that exist then; or service", doc: "Delete the newest count synthetic services."},
	{path: "timeline.events[].deleteServices.over", typ: "duration", def: "0 (at once)", doc: "Spread the deletions evenly over this time."},
	{path: "timeline.events[].changeService", typ: "mapping", doc: "Change a service's ports or affinity."},
	{path: "timeline.events[].changeService.service", typ: "string", limits: "required; an explicit service", doc: "Change a service."},
	{path: "timeline.events[].changeService.ports", typ: "list", limits: "as services[].ports", doc: "The service's whole new port list."},
	{path: "timeline.events[].changeService.ports[].name", typ: "as services[].ports[].name", doc: "As services[].ports[].name."},
	{path: "timeline.events[].changeService.ports[].protocol", typ: "as services[].ports[].protocol", doc: "As services[].ports[].protocol."},
	{path: "timeline.events[].changeService.ports[].port", typ: "as services[].ports[].port", doc: "As services[].ports[].port."},
	{path: "timeline.events[].changeService.ports[].targetPort", typ: "as services[].ports[].targetPort", doc: "As services[].ports[].targetPort."},
	{path: "timeline.events[].changeService.ports[].nodePort", typ: "as services[].ports[].nodePort", doc: "As services[].ports[].nodePort."},
	{path: "timeline.events[].changeService.sessionAffinity", typ: "string", limits: "None or ClientIP", doc: "The service's new session affinity."},
	{path: "timeline.events[].restartKubeProxy", typ: "mapping", doc: "Restart kube-proxy: write {} or {fresh: true}."},
	{path: "timeline.events[].restartKubeProxy.fresh", typ: "bool", def: "false", doc: "Restart kube-proxy (a cold start: its first sync is a full one). fresh: the node starts without rules, as a node joining the cluster; otherwise the kernel keeps the old rules until the first sync, as after a kube-proxy restart."},
	{path: "timeline.events[].deletePod", typ: "mapping", doc: "Delete a pod."},
	{path: "timeline.events[].deletePod.ip", typ: "IPv4 address", limits: "required; an endpoint of an explicit service", doc: "Delete a pod: its address stops answering at once (it becomes a sink that counts what still arrives) while its endpoint turns terminating, not serving."},
	{path: "timeline.events[].deletePod.grace", typ: "duration", def: "0", doc: "How long the endpoint stays terminating before the EndpointSlice drops it."},
}

func init() { reference = append(reference, timelineReference...) }
