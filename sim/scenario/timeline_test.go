package scenario

import (
	"strings"
	"testing"
	"time"
)

// TestShippedTimelines: the timeline scenarios parse, with their defaults
// filled and their events in time order.
func TestShippedTimelines(t *testing.T) {
	tests := []struct {
		name       string
		events     int
		first      EventKind
		dataplanes int
	}{
		{"udp-stale-conntrack", 2, EventScale, 1},
		{"rolling-update", 1, EventRollingUpdate, 2},
		{"rolling-update-guest", 1, EventRollingUpdate, 1},
		{"cold-start", 5, EventRestart, 2},
		{"cold-start-10k", 2, EventCreateServices, 2},
		{"service-storm", 1, EventCreateServices, 2},
		{"service-storm-guest", 1, EventCreateServices, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			tl := s.Timeline
			if tl == nil || len(tl.Events) != tt.events || tl.Events[0].Kind != tt.first || len(tl.Dataplanes) != tt.dataplanes {
				t.Fatalf("timeline %+v", tl)
			}
			if s.Kind() != "timeline" || tl.SyncPeriod != 30*time.Second || tl.MinSyncPeriod != time.Second {
				t.Errorf("kind %s, sync %v/%v", s.Kind(), tl.MinSyncPeriod, tl.SyncPeriod)
			}
			for i := 1; i < len(tl.Events); i++ {
				if tl.Events[i].At < tl.Events[i-1].At {
					t.Errorf("events out of order: %v", tl.Events)
				}
			}
		})
	}
}

// timelineBase is a valid timeline scenario each refusal case breaks.
const timelineBase = `name: tl
services:
  - name: statsd
    clusterIP: 10.96.0.53
    ports: [{name: statsd, protocol: UDP, port: 8125}]
    endpoints: [10.244.1.2]
synthetic: {services: 10, endpointsPerService: 1}
timeline:
  duration: 60s
  traffic:
    - {protocol: UDP, service: statsd, rate: 500}
  events:
    - {at: 5s, scale: {service: statsd, replicas: 0}}
`

// TestTimelineValidation: each broken field is reported with its line,
// field path and a hint.
func TestTimelineValidation(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           string
	}{
		{"valid", "", "", ""},
		{"no duration", "  duration: 60s\n", "", "timeline.duration: missing"},
		{"bad duration", "duration: 60s", "duration: 60", `timeline.duration: "60" is not a duration (write a number with a unit`},
		{"event outside window", "at: 5s", "at: 60s", "timeline.events[0].at: 1m0s is not inside the 1m0s window"},
		{"unknown service", "service: statsd, replicas", "service: dns, replicas", `timeline.events[0].scale.service: no service "dns" in services: (use one of: default/statsd)`},
		{"no kind", "{at: 5s, scale: {service: statsd, replicas: 0}}", "{at: 5s}", "timeline.events[0]: no event kind (write exactly one of scale, rollingUpdate"},
		{"two kinds", "{at: 5s, scale: {service: statsd, replicas: 0}}", "{at: 5s, scale: {service: statsd, replicas: 0}, restartKubeProxy: {}}", "more than one event kind: scale, restartKubeProxy"},
		{"no tcp port", "protocol: UDP, service: statsd, rate: 500", "service: statsd", "timeline.traffic[0].port: service default/statsd has no TCP port"},
		{"wrong port", "rate: 500}", "rate: 500, port: 53}", "service default/statsd has no UDP port 53 (use one of 8125)"},
		{"rate", "rate: 500", "rate: 0", "timeline.traffic[0].rate: 0 is out of range"},
		{"source port", "protocol: UDP, service: statsd, rate: 500", "protocol: UDP, service: statsd, sourcePort: 0", "timeline.traffic[0].sourcePort: 0 is out of range"},
		{"udp timeout", "rate: 500}", "rate: 500, timeout: 1s}", "timeline.traffic[0].timeout: a timeout for UDP traffic"},
		{"from", "rate: 500}", "rate: 500, from: node}", `timeline.traffic[0].from: unknown source "node"`},
		{"min sync", "  duration: 60s\n", "  duration: 60s\n  minSyncPeriod: 40s\n", "timeline.minSyncPeriod: 40s is longer than syncPeriod 30s"},
		{"delete too many", "scale: {service: statsd, replicas: 0}", "deleteServices: {count: 11}", "deleteServices.count: 11 services to delete, 10 synthetic and created ones exist then (use 1..10)"},
		{"storm then delete", "scale: {service: statsd, replicas: 0}}", "createServices: {count: 5, over: 1s}}\n    - {at: 6s, deleteServices: {count: 15}}", ""},
		{"delete both", "scale: {service: statsd, replicas: 0}", "deleteServices: {count: 1, service: statsd}", "name a service or a count, not both or neither"},
		{"delete pod unknown", "scale: {service: statsd, replicas: 0}", "deletePod: {ip: 10.244.9.9}", "deletePod.ip: 10.244.9.9 is no endpoint of the services"},
		{"change nothing", "scale: {service: statsd, replicas: 0}", "changeService: {service: statsd}", "changeService: nothing to change"},
		{"change dup ports", "scale: {service: statsd, replicas: 0}", "changeService: {service: statsd, ports: [{name: a, port: 1}, {name: b, port: 1}]}", "port 1/TCP is listed twice"},
		{"change affinity", "scale: {service: statsd, replicas: 0}", "changeService: {service: statsd, sessionAffinity: Sticky}", `unknown affinity "Sticky"`},
		{"roll interval", "scale: {service: statsd, replicas: 0}", "rollingUpdate: {service: statsd, interval: 0s}", "rollingUpdate.interval: 0s is out of range"},
		{"unknown field", "scale: {service: statsd, replicas: 0}", "scale: {service: statsd, replica: 0}", "replica: unknown field (allowed here: replicas, service)"},
		{"unknown dataplane", "  duration: 60s\n", "  duration: 60s\n  dataplanes: [iptables-fast]\n", `timeline.dataplanes: unknown dataplane "iptables-fast"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := timelineBase
			if tt.old != "" {
				if !strings.Contains(doc, tt.old) {
					t.Fatalf("no %q", tt.old)
				}
				doc = strings.Replace(doc, tt.old, tt.new, 1)
			}
			_, err := Parse("t.yaml", []byte(doc))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want %q", err, tt.want)
			case tt.want != "" && !strings.HasPrefix(err.Error(), "t.yaml:1") && !strings.Contains(err.Error(), "t.yaml:"):
				t.Fatalf("error %v has no line", err)
			}
		})
	}
}
