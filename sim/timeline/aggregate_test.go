package timeline

import (
	"testing"
	"time"

	"github.com/svclab/svclab/sim/results"
)

// udpObs is one datagram sent at ms and received at ip ("" for none).
func udpObs(ms int, ip string) []Observation {
	at := time.Duration(ms) * time.Millisecond
	out := []Observation{{At: at, Traffic: 0, Kind: Sent}}
	if ip != "" {
		out = append(out, Observation{At: at, Traffic: 0, Kind: Delivered, Endpoint: ips(ip)[0]})
	}
	return out
}

// stream sends one datagram every 100 ms from..to (ms), received at ip.
func stream(from, to int, ip string) []Observation {
	var out []Observation
	for ms := from; ms < to; ms += 100 {
		out = append(out, udpObs(ms, ip)...)
	}
	return out
}

func concat(parts ...[]Observation) []Observation {
	var out []Observation
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestAggregate: the stale-conntrack shapes of kubernetes#139628 and its
// fix, classified and timed from synthetic observations.
func TestAggregate(t *testing.T) {
	events := "    - {at: 5s, scale: {service: statsd, replicas: 0}}\n    - {at: 15s, scale: {service: statsd, replicas: 1}}"
	tests := []struct {
		name       string
		obs        []Observation
		blackholed int
		lost       int
		served     int
		// latency of each event in seconds; -1: not converged.
		latency []float64
	}{
		{"stale entry for the whole window (v1.35)", stream(0, 20000, "10.244.1.2"), 150, 0, 50, []float64{-1, -1}},
		{"entry cleared at the next sync (v1.37)",
			concat(stream(0, 6000, "10.244.1.2"), stream(6000, 15500, ""), stream(15500, 20000, "10.244.0.1")),
			10, 95, 95, []float64{0.9, 0.5}},
		{"nothing reaches the removed pod", concat(stream(0, 5000, "10.244.1.3"), stream(5000, 15000, ""), stream(15000, 20000, "10.244.0.1")),
			0, 100, 100, []float64{0, 0}},
		{"a live pod that is no endpoint any more", concat(stream(0, 5000, "10.244.1.3"), stream(5000, 20000, "10.244.9.9")),
			0, 0, 50, []float64{0, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := parse(t, events)
			p, err := Build(sc)
			if err != nil {
				t.Fatal(err)
			}
			run := Aggregate(p, sc.Timeline, tt.obs)
			tot := run.Totals[0]
			if tot.Blackholed != tt.blackholed || tot.Lost != tt.lost || tot.Served != tt.served || run.Blackholed != tt.blackholed {
				t.Errorf("totals %+v, want blackholed %d lost %d served %d", tot, tt.blackholed, tt.lost, tt.served)
			}
			if len(run.Seconds) != 20 || run.Seconds[0].Traffic[0].Total() != 10 {
				t.Errorf("seconds: %d, first %+v", len(run.Seconds), run.Seconds[0])
			}
			for i, want := range tt.latency {
				ev := run.Events[i]
				switch {
				case want < 0 && (ev.Converged || ev.ProbeLatencyS != nil):
					t.Errorf("event %d (%s) converged after %v, want never", i, ev.Probe, ev.ProbeLatencyS)
				case want >= 0 && (!ev.Converged || ev.ProbeLatencyS == nil || abs(*ev.ProbeLatencyS-want) > 1e-9):
					t.Errorf("event %d (%s): converged %v latency %v, want %v", i, ev.Probe, ev.Converged, ev.ProbeLatencyS, want)
				}
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestAggregateTCP: refused and timed-out connections, and a connection
// answered by a deleted pod, are counted apart; a restart's latency is the
// first connection served after it.
func TestAggregateTCP(t *testing.T) {
	sc := parse(t, "    - {at: 2s, deletePod: {ip: 10.244.1.3}}\n    - {at: 4s, restartKubeProxy: {fresh: true}}")
	p, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	obs := []Observation{
		{At: at(100), Traffic: 0, Kind: Delivered, Endpoint: ips("10.244.1.3")[0]},
		{At: at(2100), Traffic: 0, Kind: Delivered, Endpoint: ips("10.244.1.3")[0]},
		{At: at(2200), Traffic: 0, Kind: Delivered, Endpoint: ips("10.244.1.2")[0]},
		{At: at(4100), Traffic: 0, Kind: Refused},
		{At: at(4200), Traffic: 0, Kind: TimedOut},
		{At: at(4700), Traffic: 0, Kind: Delivered, Endpoint: ips("10.244.1.2")[0]},
	}
	run := Aggregate(p, sc.Timeline, obs)
	want := results.Outcome{Served: 3, Refused: 1, TimedOut: 1, Blackholed: 1}
	got := run.Totals[0]
	got.Lost = 0 // no Sent observations: the UDP generator counts its lost ones from them
	if got != want {
		t.Errorf("totals %+v, want %+v", got, want)
	}
	if l := run.Events[1].ProbeLatencyS; l == nil || abs(*l-0.7) > 1e-9 {
		t.Errorf("restart latency %v, want 0.7 s", l)
	}
	if l := run.Events[0].ProbeLatencyS; l == nil || abs(*l-0.1) > 1e-9 {
		t.Errorf("delete latency %v, want 0.1 s (the last connection to the deleted pod)", l)
	}
}

// TestProbedStorm: of 250 created services every second one is probed
// (at most MaxProbed); an unprobed creation is not counted as unconverged,
// a probed one never answered is.
func TestProbedStorm(t *testing.T) {
	sc := parse(t, "    - {at: 1s, createServices: {count: 250, over: 5s}}")
	p, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	var obs []Observation
	probed := 0
	for i := range p.Changes {
		if p.Probed(i) {
			probed++
			if probed > 1 { // the first probed service never answers
				obs = append(obs, Observation{At: p.Changes[i].At + 300*time.Millisecond, Traffic: ProbeTraffic, Change: i, Kind: Delivered})
			}
		}
	}
	run := Aggregate(p, sc.Timeline, obs)
	if probed != 125 || run.Unconverged != 1 || len(run.ChangeLatenciesS) != 124 || abs(run.ProbeLatencyP50S-0.3) > 1e-9 {
		t.Errorf("probed %d, unconverged %d, latencies %d, p50 %v", probed, run.Unconverged, len(run.ChangeLatenciesS), run.ProbeLatencyP50S)
	}
}

// TestRestartServedAgain: a restart's time to serve ends its longest run
// of failed connections: one still served by the old rules just after the
// event, and a stray timeout after the outage, do not move it; an outage
// that lasts to the window's end never converges.
func TestRestartServedAgain(t *testing.T) {
	sc := parse(t, "    - {at: 4s, restartKubeProxy: {fresh: true}}")
	p, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	served := func(ms int) Observation {
		return Observation{At: at(ms), Traffic: 0, Kind: Delivered, Endpoint: ips("10.244.1.2")[0]}
	}
	failed := func(ms int) Observation { return Observation{At: at(ms), Traffic: 0, Kind: TimedOut} }
	tests := []struct {
		name string
		obs  []Observation
		want float64 // -1: never served again
	}{
		{"old rules, outage, stray timeout", []Observation{served(4010), served(4020), failed(4100), failed(4200), failed(4300), served(6500), failed(7000), served(7100)}, 2.5},
		{"no outage", []Observation{served(4010), served(4500)}, 0.01},
		{"outage to the end", []Observation{served(4010), failed(4100), served(4150), failed(4200), failed(4300)}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := Aggregate(p, sc.Timeline, tt.obs)
			l := run.Events[0].ProbeLatencyS
			switch {
			case tt.want < 0 && l != nil:
				t.Errorf("served again after %v s, want never", *l)
			case tt.want >= 0 && (l == nil || abs(*l-tt.want) > 1e-9):
				t.Errorf("latency %v, want %v s", l, tt.want)
			}
		})
	}
}

// TestRestartServedAfterNextEvent: an outage that outlasts the next
// restart's time (which waits for this one's first sync) ends at the
// first connection served after it; the next restart's is counted from
// when the lab applied it.
func TestRestartServedAfterNextEvent(t *testing.T) {
	sc := parse(t, "    - {at: 4s, restartKubeProxy: {fresh: true}}\n    - {at: 6s, restartKubeProxy: {fresh: true}}")
	p, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	var obs []Observation
	for ms := 4100; ms < 6500; ms += 100 {
		obs = append(obs, Observation{At: time.Duration(ms) * time.Millisecond, Traffic: 0, Kind: TimedOut})
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	obs = append(obs, Observation{At: ms(6600), Traffic: 0, Kind: Delivered, Endpoint: ips("10.244.1.2")[0]},
		Observation{At: ms(6700), Traffic: ProbeTraffic, Change: 1, Kind: Applied},
		Observation{At: ms(6800), Traffic: 0, Kind: TimedOut}, Observation{At: ms(7500), Traffic: 0, Kind: TimedOut},
		Observation{At: ms(8000), Traffic: 0, Kind: Delivered, Endpoint: ips("10.244.1.2")[0]})
	run := Aggregate(p, sc.Timeline, obs)
	if l := run.Events[0].ProbeLatencyS; l == nil || abs(*l-2.6) > 1e-9 {
		t.Errorf("first restart served again after %v, want 2.6 s", l)
	}
	if l := run.Events[1].ProbeLatencyS; l == nil || abs(*l-1.3) > 1e-9 || abs(run.Events[1].AppliedLateS-0.7) > 1e-9 {
		t.Errorf("second restart (applied 0.7 s late) served again after %v, late %v; want 1.3 s from when it was applied", l, run.Events[1].AppliedLateS)
	}
}
