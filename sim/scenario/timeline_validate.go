package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// Timeline limits (documented in the reference from these constants).
const (
	// MaxTimelineDuration bounds a timeline's observation window.
	MaxTimelineDuration = time.Hour
	// MaxTrafficRate bounds a traffic generator's rate (connections or
	// packets per second).
	MaxTrafficRate = 100_000
)

// Timeline defaults.
const (
	defaultMinSyncPeriod = time.Second
	defaultSyncPeriod    = 30 * time.Second
	defaultRollInterval  = 2 * time.Second
	defaultRollOverlap   = time.Second
	defaultTCPTimeout    = time.Second
	defaultUDPSourcePort = 40000
)

// eventKinds are the YAML keys of an event's kinds, in the order they are
// documented.
var eventKinds = []string{"scale", "rollingUpdate", "createServices", "deleteServices", "changeService", "restartKubeProxy", "deletePod"}

// timelineCheck carries what the timeline's checks need of the file.
type timelineCheck struct {
	f        *file
	services map[string]*service // "namespace/name" → explicit service
	window   time.Duration
}

func validateTimeline(f *file) []pathError {
	t := f.Timeline
	at := func(keys ...any) func(string, string) pathError {
		return fieldAt(append([]any{"timeline"}, keys...)...)
	}
	c := timelineCheck{f: f, services: map[string]*service{}}
	for i := range f.Services {
		s := &f.Services[i]
		c.services[serviceKey(s.Namespace, s.Name)] = s
	}
	var errs []pathError
	if t.Duration == "" {
		errs = append(errs, at("duration")("missing", "the observation window, e.g. duration: 60s"))
	}
	c.window, _ = parseDuration(t.Duration, time.Second, MaxTimelineDuration, at("duration"), &errs)
	if t.Dataplanes == nil {
		t.Dataplanes = []string{string(dataplane.Default)}
	}
	if len(t.Dataplanes) == 0 {
		errs = append(errs, at("dataplanes")("an empty list", "name at least one dataplane, or leave the field out for "+string(dataplane.Default)))
	}
	errs = append(errs, checkDataplanes(t.Dataplanes, at("dataplanes"))...)
	minSync := defaultDuration(&t.MinSyncPeriod, defaultMinSyncPeriod)
	sync := defaultDuration(&t.SyncPeriod, defaultSyncPeriod)
	minD, ok1 := parseDuration(minSync, 0, MaxTimelineDuration, at("minSyncPeriod"), &errs)
	syncD, ok2 := parseDuration(sync, time.Millisecond, MaxTimelineDuration, at("syncPeriod"), &errs)
	if ok1 && ok2 && minD > syncD {
		errs = append(errs, at("minSyncPeriod")(fmt.Sprintf("%v is longer than syncPeriod %v", minD, syncD), "kube-proxy needs minSyncPeriod ≤ syncPeriod"))
	}
	for i := range t.Traffic {
		errs = append(errs, c.traffic(&t.Traffic[i], func(k string) func(string, string) pathError { return at("traffic", i, k) })...)
	}
	created := 0
	if f.Synthetic != nil {
		created = f.Synthetic.Services
	}
	for i := range t.Events {
		errs = append(errs, c.event(&t.Events[i], &created, func(keys ...any) func(string, string) pathError {
			return at(append([]any{"events", i}, keys...)...)
		})...)
	}
	if created > 0 && f.Synthetic != nil {
		if _, err := newGeneratorFor(f, created, 1, f.Synthetic.Seed); err != nil {
			errs = append(errs, at("events")(err.Error(), "create fewer services or use a larger cluster.serviceCIDR"))
		}
	}
	return errs
}

// serviceKey is "namespace/name", with the default namespace.
func serviceKey(namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return namespace + "/" + name
}

// lookup finds the explicit service a field names ("name" or
// "namespace/name").
func (c *timelineCheck) lookup(name string, at func(string, string) pathError) (*service, []pathError) {
	key := name
	if !strings.Contains(name, "/") {
		key = serviceKey("", name)
	}
	if s, ok := c.services[key]; ok {
		return s, nil
	}
	if name == "" {
		return nil, []pathError{at("missing", "name one of the services: by namespace/name")}
	}
	names := make([]string, 0, len(c.services))
	for k := range c.services {
		names = append(names, k)
	}
	return nil, []pathError{at(fmt.Sprintf("no service %q in services:", name), "use one of: "+strings.Join(sortedStrings(names), ", "))}
}

func (c *timelineCheck) traffic(tr *trafficSpec, at func(string) func(string, string) pathError) []pathError {
	var errs []pathError
	if tr.Protocol == "" {
		tr.Protocol = string(model.TCP)
	}
	tr.Protocol = strings.ToUpper(tr.Protocol)
	udp := tr.Protocol == string(model.UDP)
	if tr.Protocol != string(model.TCP) && !udp {
		errs = append(errs, at("protocol")(fmt.Sprintf("unknown protocol %q", tr.Protocol), "use TCP (new connections) or UDP (one-way datagrams)"))
	}
	s, serrs := c.lookup(tr.Service, at("service"))
	errs = append(errs, serrs...)
	if s != nil {
		errs = append(errs, trafficPort(s, tr, at("port"))...)
	}
	errs = append(errs, intField(&tr.Rate, "timeline.traffic[].rate", at("rate"))...)
	if tr.From == "" {
		tr.From = "pod"
	}
	if tr.From != "pod" && tr.From != "external" {
		errs = append(errs, at("from")(fmt.Sprintf("unknown source %q", tr.From), "use pod (a client pod) or external (a client outside the node, on its uplink)"))
	}
	switch {
	case udp && tr.Timeout != "":
		errs = append(errs, at("timeout")("a timeout for UDP traffic", "one-way UDP senders wait for nothing: remove it"))
	case !udp && tr.SourcePort != nil:
		errs = append(errs, at("sourcePort")("a fixed source port for TCP traffic", "each new connection takes a new port: remove it, or use protocol: UDP"))
	case udp:
		if tr.SourcePort == nil {
			v := defaultUDPSourcePort
			tr.SourcePort = &v
		}
		errs = append(errs, checkRange(*tr.SourcePort, intRange{1, 65535, defaultUDPSourcePort}, at("sourcePort"))...)
	default:
		tr.Timeout = defaultDuration(&tr.Timeout, defaultTCPTimeout)
		parseDuration(tr.Timeout, time.Millisecond, time.Minute, at("timeout"), &errs)
	}
	return errs
}

// trafficPort defaults a generator's port to the service's first port of
// its protocol and checks that the service has the port written.
func trafficPort(s *service, tr *trafficSpec, at func(string, string) pathError) []pathError {
	var ports []string
	for _, p := range s.Ports {
		if !strings.EqualFold(p.Protocol, tr.Protocol) && !(p.Protocol == "" && tr.Protocol == string(model.TCP)) {
			continue
		}
		if tr.Port == nil {
			v := p.Port
			tr.Port = &v
		}
		if *tr.Port == p.Port {
			return nil
		}
		ports = append(ports, fmt.Sprint(p.Port))
	}
	if len(ports) == 0 {
		return []pathError{at(fmt.Sprintf("service %s/%s has no %s port", s.Namespace, s.Name, tr.Protocol), "add one to the service, or change the protocol")}
	}
	return []pathError{at(fmt.Sprintf("service %s/%s has no %s port %d", s.Namespace, s.Name, tr.Protocol, *tr.Port), "use one of "+strings.Join(ports, ", "))}
}

// defaultDuration fills an empty duration field with def.
func defaultDuration(p *string, def time.Duration) string {
	if *p == "" {
		*p = def.String()
	}
	return *p
}

// parseDuration parses a duration field ("" is 0) and checks it is in
// [min, max]; ok is false when it is not.
func parseDuration(s string, min, max time.Duration, at func(string, string) pathError, errs *[]pathError) (time.Duration, bool) {
	if s == "" {
		return 0, true
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		*errs = append(*errs, at(fmt.Sprintf("%q is not a duration", s), "write a number with a unit, e.g. 5s, 250ms, 1m30s"))
		return 0, false
	case d < min || d > max:
		*errs = append(*errs, at(fmt.Sprintf("%v is out of range", d), fmt.Sprintf("use %v..%v", min, max)))
		return d, false
	}
	return d, true
}
