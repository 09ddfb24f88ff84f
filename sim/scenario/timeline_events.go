package scenario

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/model"
)

// kindsSet lists the kinds an event sets.
func (e *timelineEvent) kindsSet() []string {
	set := []bool{e.Scale != nil, e.RollingUpdate != nil, e.CreateServices != nil, e.DeleteServices != nil,
		e.ChangeService != nil, e.RestartKubeProxy != nil, e.DeletePod != nil}
	var out []string
	for i, ok := range set {
		if ok {
			out = append(out, eventKinds[i])
		}
	}
	return out
}

// event checks one event; created counts the synthetic and created
// services so far (deleteServices may not delete more).
func (c *timelineCheck) event(e *timelineEvent, created *int, at func(keys ...any) func(string, string) pathError) []pathError {
	var errs []pathError
	if e.At == "" {
		errs = append(errs, at("at")("missing", "when the event happens, from the start of the window, e.g. at: 5s"))
	} else if d, ok := parseDuration(e.At, 0, MaxTimelineDuration, at("at"), &errs); ok && c.window > 0 && d >= c.window {
		errs = append(errs, at("at")(fmt.Sprintf("%v is not inside the %v window", d, c.window), "use a time below timeline.duration"))
	}
	if i := controlChar(e.Comment); i >= 0 {
		errs = append(errs, at("comment")(fmt.Sprintf("control character at byte %d", i), "use plain text"))
	}
	kinds := e.kindsSet()
	if len(kinds) != 1 {
		msg := "no event kind"
		if len(kinds) > 1 {
			msg = "more than one event kind: " + strings.Join(kinds, ", ")
		}
		return append(errs, at()(msg, "write exactly one of "+strings.Join(eventKinds, ", ")))
	}
	in := func(k string) func(keys ...any) func(string, string) pathError {
		return func(keys ...any) func(string, string) pathError { return at(append([]any{k}, keys...)...) }
	}
	switch {
	case e.Scale != nil:
		errs = append(errs, c.scale(e.Scale, in("scale"))...)
	case e.RollingUpdate != nil:
		errs = append(errs, c.rolling(e.RollingUpdate, in("rollingUpdate"))...)
	case e.CreateServices != nil:
		errs = append(errs, c.storm(e.CreateServices, created, in("createServices"))...)
	case e.DeleteServices != nil:
		errs = append(errs, c.deletion(e.DeleteServices, created, in("deleteServices"))...)
	case e.ChangeService != nil:
		errs = append(errs, c.change(e.ChangeService, in("changeService"))...)
	case e.DeletePod != nil:
		errs = append(errs, c.deletePod(e.DeletePod, in("deletePod"))...)
	}
	return errs
}

func (c *timelineCheck) scale(e *scaleEvent, at func(keys ...any) func(string, string) pathError) []pathError {
	_, errs := c.lookup(e.Service, at("service"))
	if e.Replicas == nil {
		return append(errs, at("replicas")("missing", "the endpoint count to scale to, e.g. replicas: 0"))
	}
	return append(errs, checkRange(*e.Replicas, intRange{0, MaxLabPods, 0}, at("replicas"))...)
}

func (c *timelineCheck) rolling(e *rollingEvent, at func(keys ...any) func(string, string) pathError) []pathError {
	_, errs := c.lookup(e.Service, at("service"))
	parseDuration(defaultDuration(&e.Interval, defaultRollInterval), time.Millisecond, MaxTimelineDuration, at("interval"), &errs)
	parseDuration(defaultDuration(&e.Overlap, defaultRollOverlap), 0, MaxTimelineDuration, at("overlap"), &errs)
	return errs
}

func (c *timelineCheck) storm(e *stormEvent, created *int, at func(keys ...any) func(string, string) pathError) []pathError {
	var errs []pathError
	if c.f.Synthetic == nil {
		errs = append(errs, at()("createServices needs a synthetic: section", "add synthetic: {services: 0, endpointsPerService: 1}: created services are more synthetic ones"))
	}
	if e.Count == nil {
		errs = append(errs, at("count")("missing", "how many services to create, e.g. count: 1000"))
	} else if errs = append(errs, checkRange(*e.Count, intRange{1, MaxSyntheticServices, 0}, at("count"))...); *e.Count >= 1 {
		*created += *e.Count
	}
	parseDuration(e.Over, 0, MaxTimelineDuration, at("over"), &errs)
	return errs
}

func (c *timelineCheck) deletion(e *deleteEvent, created *int, at func(keys ...any) func(string, string) pathError) []pathError {
	var errs []pathError
	parseDuration(e.Over, 0, MaxTimelineDuration, at("over"), &errs)
	switch {
	case (e.Service == "") == (e.Count == nil):
		return append(errs, at()("name a service or a count, not both or neither", "service: NS/NAME deletes that service; count: K deletes the K newest synthetic ones"))
	case e.Service != "":
		_, serrs := c.lookup(e.Service, at("service"))
		return append(errs, serrs...)
	case *e.Count < 1 || *e.Count > *created:
		return append(errs, at("count")(fmt.Sprintf("%d services to delete, %d synthetic and created ones exist then", *e.Count, *created), fmt.Sprintf("use 1..%d", *created)))
	}
	*created -= *e.Count
	return errs
}

func (c *timelineCheck) change(e *changeEvent, at func(keys ...any) func(string, string) pathError) []pathError {
	s, errs := c.lookup(e.Service, at("service"))
	if e.Ports == nil && e.SessionAffinity == "" {
		errs = append(errs, at()("nothing to change", "give ports: (the whole new list) or sessionAffinity:"))
	}
	if e.SessionAffinity != "" && e.SessionAffinity != "None" && e.SessionAffinity != "ClientIP" {
		errs = append(errs, at("sessionAffinity")(fmt.Sprintf("unknown affinity %q", e.SessionAffinity), "use None or ClientIP"))
	}
	if e.Ports != nil && len(e.Ports) == 0 {
		errs = append(errs, at("ports")("an empty list", "a service needs at least one port"))
	}
	if s == nil {
		return errs
	}
	for j := range e.Ports {
		errs = append(errs, validatePort(s, &e.Ports[j], func(k string) func(string, string) pathError { return at("ports", j, k) })...)
	}
	if len(e.Ports) > 0 {
		view := *s
		view.Ports = e.Ports
		checked := checkView(&view)
		for _, p := range problemsOfPorts(checked) {
			errs = append(errs, at("ports")(p, "port names and port/protocol pairs must be unique"))
		}
	}
	return errs
}

// problemsOfPorts lists duplicated port names and port/protocol pairs.
func problemsOfPorts(s model.Service) []string {
	var out []string
	names := make([]string, len(s.Ports))
	pairs := make([]string, len(s.Ports))
	for i, p := range s.Ports {
		names[i], pairs[i] = p.Name, fmt.Sprintf("%d/%s", p.Port, p.Protocol)
	}
	if i, _ := firstDuplicate(names); i >= 0 {
		out = append(out, fmt.Sprintf("port name %q is used twice", names[i]))
	}
	if i, _ := firstDuplicate(pairs); i >= 0 {
		out = append(out, fmt.Sprintf("port %s is listed twice", pairs[i]))
	}
	return out
}

func (c *timelineCheck) deletePod(e *deletePodEvent, at func(keys ...any) func(string, string) pathError) []pathError {
	var errs []pathError
	parseDuration(e.Grace, 0, MaxTimelineDuration, at("grace"), &errs)
	ip, err := netip.ParseAddr(e.IP)
	if err != nil {
		return append(errs, at("ip")(fmt.Sprintf("%q is not an IP address", e.IP), "the address of one of the services' endpoints"))
	}
	for _, s := range c.services {
		if slices.ContainsFunc(s.Endpoints, func(ep endpoint) bool { return ep.IP == ip.String() }) {
			return errs
		}
	}
	return append(errs, at("ip")(fmt.Sprintf("%s is no endpoint of the services", ip), "delete a pod that services: lists as an endpoint"))
}

// sortedStrings returns list sorted.
func sortedStrings(list []string) []string {
	slices.Sort(list)
	return list
}
