package timeline

import (
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

const base = `name: t
services:
  - name: statsd
    clusterIP: 10.96.0.53
    ports: [{name: statsd, protocol: UDP, port: 8125}]
    endpoints: [10.244.1.2, 10.244.1.3]
synthetic: {services: 5, endpointsPerService: 1}
timeline:
  duration: 20s
  traffic:
    - {protocol: UDP, service: statsd, rate: 10}
  events:
EOF_EVENTS`

func parse(t *testing.T, events string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte(strings.Replace(base, "EOF_EVENTS", events, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func ips(list ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range list {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

func endpointsOf(c *Change, svc string) string {
	var parts []string
	for _, e := range service(c, svc).Endpoints {
		s := e.IP.String()
		switch {
		case e.Terminating && e.Serving:
			s += "(terminating,serving)"
		case e.Terminating:
			s += "(terminating)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// TestBuild: each event kind becomes the states kube-proxy would see.
func TestBuild(t *testing.T) {
	tests := []struct {
		name   string
		events string
		// want lists each change as "at what: endpoints | synthetic".
		want      []string
		deleted   []netip.Addr
		pods      int // endpoint addresses of statsd over the timeline
		synthetic int
	}{
		{"scale to zero and back", "    - {at: 5s, scale: {service: statsd, replicas: 0}}\n    - {at: 9s, scale: {service: statsd, replicas: 1}}",
			[]string{"5s scale default/statsd from 2 to 0:  | 5", "9s scale default/statsd from 0 to 1: 10.244.0.1 | 5"}, ips("10.244.1.2", "10.244.1.3"), 3, 5},
		{"rolling update", "    - {at: 1s, rollingUpdate: {service: statsd, interval: 2s, overlap: 500ms}}",
			[]string{
				"1s roll default/statsd: pod 1 of 2 replaced, 10.244.1.2 terminating: 10.244.1.2(terminating,serving) 10.244.1.3 10.244.0.1 | 5",
				"1.5s roll default/statsd: 10.244.1.2 gone: 10.244.1.3 10.244.0.1 | 5",
				"3s roll default/statsd: pod 2 of 2 replaced, 10.244.1.3 terminating: 10.244.1.3(terminating,serving) 10.244.0.1 10.244.0.2 | 5",
				"3.5s roll default/statsd: 10.244.1.3 gone: 10.244.0.1 10.244.0.2 | 5",
			}, ips("10.244.1.2", "10.244.1.3"), 4, 5},
		{"storm then delete", "    - {at: 1s, createServices: {count: 3, over: 3s}}\n    - {at: 10s, deleteServices: {count: 2}}",
			[]string{"1s create service 1 of 3: 10.244.1.2 10.244.1.3 | 6", "2s create service 2 of 3: 10.244.1.2 10.244.1.3 | 7",
				"3s create service 3 of 3: 10.244.1.2 10.244.1.3 | 8", "10s delete service 1 of 2: 10.244.1.2 10.244.1.3 | 7",
				"10s delete service 2 of 2: 10.244.1.2 10.244.1.3 | 6"}, nil, 2, 8},
		{"delete pod with grace", "    - {at: 2s, deletePod: {ip: 10.244.1.3, grace: 3s}}",
			[]string{"2s delete pod 10.244.1.3: 10.244.1.2 10.244.1.3(terminating) | 5", "5s endpoint 10.244.1.3 removed: 10.244.1.2 | 5"}, ips("10.244.1.3"), 2, 5},
		{"restart and change", "    - {at: 2s, restartKubeProxy: {fresh: true}}\n    - {at: 3s, changeService: {service: statsd, sessionAffinity: ClientIP}}",
			[]string{"2s restart kube-proxy on a node without rules: 10.244.1.2 10.244.1.3 | 5", "3s change default/statsd: 10.244.1.2 10.244.1.3 | 5"}, nil, 2, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Build(parse(t, tt.events))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range p.Changes {
				c := &p.Changes[i]
				got = append(got, c.At.String()+" "+c.What+": "+endpointsOf(c, "default/statsd")+" | "+strconv.Itoa(c.Synthetic))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			deleted := p.DeletedBy(len(p.Changes) - 1)
			if len(deleted) != len(tt.deleted) {
				t.Errorf("deleted %v, want %v", deleted, tt.deleted)
			}
			for _, ip := range tt.deleted {
				if _, ok := deleted[ip]; !ok {
					t.Errorf("%s not deleted", ip)
				}
			}
			if n := len(p.Pods[0].Endpoints); n != tt.pods || p.MaxSynthetic != tt.synthetic {
				t.Errorf("pods %d, max synthetic %d; want %d, %d", n, p.MaxSynthetic, tt.pods, tt.synthetic)
			}
		})
	}
}

// TestStepStampsTriggerTime: the EndpointSlice of a changed service is
// updated with the event's time; a created service is added with its
// slice; the plan's models differ only where the events say.
func TestStepStampsTriggerTime(t *testing.T) {
	sc := parse(t, "    - {at: 1s, scale: {service: statsd, replicas: 1}}\n    - {at: 2s, createServices: {count: 1}}")
	p, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	trigger := time.Date(2026, 12, 2, 1, 0, 0, 123456789, time.UTC)
	var models []*kube.Step
	prev, err := p.Model(sc, -1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Changes {
		next, err := p.Model(sc, i)
		if err != nil {
			t.Fatal(err)
		}
		st := Step(prev.Services, next.Services, trigger)
		models = append(models, &st)
		prev = next
	}
	tests := []struct {
		step    int
		actions string
	}{{0, "update:EndpointSlice"}, {1, "add:Service add:EndpointSlice"}}
	for _, tt := range tests {
		var got []string
		for _, op := range models[tt.step].Ops {
			kind, _ := kube.Kind(op.Object)
			got = append(got, op.Action+":"+kind)
			if es, ok := op.Object.Object.(*discoveryv1.EndpointSlice); ok {
				if v := es.Annotations["endpoints.kubernetes.io/last-change-trigger-time"]; v != "2026-12-02T01:00:00.123456789Z" {
					t.Errorf("step %d: trigger time %q", tt.step, v)
				}
			}
		}
		if strings.Join(got, " ") != tt.actions {
			t.Errorf("step %d: ops %v, want %s", tt.step, got, tt.actions)
		}
	}
}

// TestModelSharesTheSyntheticServices: a state's model, built from the
// plan's synthetic services generated once, is the model the scenario
// builds for that state on its own (a generator's services are a prefix of
// a larger one's), and two states' unchanged services cost a step nothing.
func TestModelSharesTheSyntheticServices(t *testing.T) {
	sc := parse(t, "    - {at: 1s, createServices: {count: 3, over: 3s}}\n    - {at: 10s, deleteServices: {count: 2}}")
	p, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	for i := -1; i < len(p.Changes); i++ {
		got, err := p.Model(sc, i)
		if err != nil {
			t.Fatal(err)
		}
		st := p.State(i)
		want, err := sc.ModelOf(st.Explicit, st.Synthetic)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(model.Materialize(got.Services), model.Materialize(want.Services)) {
			t.Errorf("state %d (%s): the plan's model differs from the scenario's", i, st.What)
		}
	}
	a, _ := p.Model(sc, 0)
	b, _ := p.Model(sc, 0)
	if ops := Step(a.Services, b.Services, time.Now()).Ops; len(ops) != 0 {
		t.Errorf("a step between equal states: %d events, want none", len(ops))
	}
}
