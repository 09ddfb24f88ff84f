package timeline

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
	tl "github.com/svclab/svclab/sim/timeline"
)

// execution is one timeline run on one engine.
type execution struct {
	env   Env
	eng   Engine
	sc    *scenario.Scenario
	plan  *tl.Plan
	rec   *recorder
	wg    sync.WaitGroup
	errMu sync.Mutex
	err   error
}

// Run runs the scenario's timeline on the lab env with eng: it programs the
// first state, starts the traffic, applies every change at its time, and
// returns what the window showed (Dataplane and Engine are the caller's to
// fill). ctx ending stops it early with ctx's error.
func Run(ctx context.Context, env Env, eng Engine, sc *scenario.Scenario, plan *tl.Plan) (results.TimelineRun, error) {
	x := &execution{env: env, eng: eng, sc: sc, plan: plan, rec: &recorder{}}
	m0, err := plan.Model(sc, -1)
	if err != nil {
		return results.TimelineRun{}, err
	}
	if err := eng.Start(ctx, m0); err != nil {
		return results.TimelineRun{}, err
	}
	sinks := &udpSinks{}
	defer sinks.close()
	targets, err := x.targets()
	if err != nil {
		return results.TimelineRun{}, err
	}
	for g, t := range sc.Timeline.Traffic {
		if t.Protocol == model.UDP {
			if err := sinks.listen(env, targets[g].targetPort, g, x.rec); err != nil {
				return results.TimelineRun{}, err
			}
		}
	}
	window, cancel := context.WithTimeout(ctx, sc.Timeline.Duration)
	defer cancel()
	x.rec.start = time.Now()
	if err := x.startTraffic(window, targets); err != nil {
		cancel()
		x.wg.Wait()
		return results.TimelineRun{}, err
	}
	var samples []results.ConntrackSample
	x.wg.Go(func() {
		samples = sampleConntrack(window, env.NodeNetns, conntrackTargets(targets), x.deleted(), x.rec)
	})
	applyErr := x.follow(window, m0)
	<-window.Done()
	x.wg.Wait()
	sinks.close()
	if ctx.Err() != nil {
		return results.TimelineRun{}, ctx.Err()
	}
	if applyErr == nil {
		applyErr = x.err
	}
	run := tl.Aggregate(plan, sc.Timeline, x.rec.all())
	tl.AttachSyncs(&run, sc.Timeline, eng.Syncs(x.rec.start))
	run.Conntrack = samples
	return run, applyErr
}

// target is where a generator sends: the service's address and the port
// its endpoints listen on.
type target struct {
	addr       netip.AddrPort
	targetPort int
	proto      model.Protocol
	service    string
}

// targets resolves each generator's service port.
func (x *execution) targets() ([]target, error) {
	var out []target
	for g, t := range x.sc.Timeline.Traffic {
		s := findService(x.plan.Pods, t.Service)
		if s == nil {
			return nil, fmt.Errorf("timeline traffic %d: no service %s", g, t.Service)
		}
		found := false
		for _, p := range s.Ports {
			if p.Port == t.Port && p.Protocol == t.Protocol {
				out, found = append(out, target{addr: netip.AddrPortFrom(s.ClusterIP, uint16(p.Port)), targetPort: p.TargetPort, proto: p.Protocol, service: t.Service}), true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("timeline traffic %d: service %s has no %s port %d", g, t.Service, t.Protocol, t.Port)
		}
	}
	return out, nil
}

func findService(l model.Slice, key string) *model.Service {
	for i := range l {
		if l[i].Namespace+"/"+l[i].Name == key {
			return &l[i]
		}
	}
	return nil
}

// source is the namespace and address a generator sends from.
func (x *execution) source(t scenario.Traffic) (string, netip.Addr) {
	if t.From == "external" {
		return x.env.ExternalNetns, x.env.ExternalIP
	}
	return x.env.ClientNetns, netip.Addr{}
}

// startTraffic starts every generator for the window.
func (x *execution) startTraffic(window context.Context, targets []target) error {
	for g, t := range x.sc.Timeline.Traffic {
		ns, src := x.source(t)
		if t.Protocol == model.UDP {
			conn, err := dialUDP(ns, src, t.SourcePort, targets[g].addr)
			if err != nil {
				return err
			}
			s := &udpSender{conn: conn, rate: t.Rate, g: g}
			x.wg.Go(func() { s.run(window, x.rec); _ = conn.Close() })
			continue
		}
		s := tcpStream{ns: ns, source: src, target: targets[g].addr, rate: t.Rate, timeout: t.Timeout, g: g}
		x.wg.Go(func() {
			if err := s.run(window, x.env, x.sc.Timeline.Duration, x.rec); err != nil {
				x.fail(fmt.Errorf("tcp traffic to %s: %w", s.target, err))
			}
		})
	}
	return nil
}

func (x *execution) fail(err error) {
	x.errMu.Lock()
	x.err = err
	x.errMu.Unlock()
}

// deleted says whether a pod address was deleted at a time of the window.
func (x *execution) deleted() func(netip.Addr, time.Duration) bool {
	at := x.plan.DeletedBy(len(x.plan.Changes) - 1)
	return func(ip netip.Addr, t time.Duration) bool {
		d, ok := at[ip]
		return ok && d <= t
	}
}

func conntrackTargets(targets []target) []conntrackTarget {
	var out []conntrackTarget
	seen := map[string]bool{}
	for _, t := range targets {
		name := fmt.Sprintf("%s:%d/%s", t.service, t.addr.Port(), t.proto)
		if !seen[name] {
			seen[name] = true
			out = append(out, conntrackTarget{service: name, addr: t.addr.Addr(), proto: strings.ToLower(string(t.proto))})
		}
	}
	return out
}
