package migrateverify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"time"

	"github.com/svclab/svclab/lab/apply"
	_ "github.com/svclab/svclab/lab/kubeproxy" // the kube-proxy engine of lab/apply.Open
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/model"
)

// Options of a verification.
type Options struct {
	// Engine writes each side's rules: scenario.EngineKubeProxy or
	// scenario.EngineNative, as the comparison did.
	Engine string
	// Connections per probe (default 3) and the time each may take before
	// it counts as dropped (default 1 s).
	Connections int
	Timeout     time.Duration
	// Log receives one line per kernel run (nil: none).
	Log io.Writer
}

func (o Options) withDefaults() Options {
	if o.Connections <= 0 {
		o.Connections = 3
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// Verify sends the probes through the kernel on each side of r, once per
// dataplane of the side's mode, and returns what the kernel did
// (sim/migrate.Judge compares it with the tracer).
func Verify(ctx context.Context, r *migrate.Result, probes []migrate.Probe, opts Options) ([]migrate.Kernel, error) {
	opts = opts.withDefaults()
	var out []migrate.Kernel
	for _, s := range []struct {
		name string
		side migrate.Side
	}{{migrate.SideFrom, r.From}, {migrate.SideTo, r.To}} {
		for _, d := range dataplane.ByMode(s.side.Mode) {
			k := migrate.Kernel{Side: s.name, Dataplane: string(d.Name)}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			start := time.Now()
			run := runSide
			if needsGuest(d.Name) {
				run = runInGuest
			}
			var err error
			if k.Seen, k.Unsent, err = run(ctx, r, s.side, d.Name, probes, opts); err != nil {
				return nil, fmt.Errorf("migrate --verify: --%s %s on %s: %w", s.name, s.side, d.Name, err)
			}
			fmt.Fprintf(opts.Log, "svclab migrate --verify: --%s %s on %s: %d probes in %.1fs\n", s.name, s.side, d.Name, len(probes), time.Since(start).Seconds())
			out = append(out, k)
		}
	}
	return out, nil
}

// runSide builds a lab, has the side's engine program the model into its
// node as the dataplane called name, and sends every probe the lab can.
func runSide(ctx context.Context, r *migrate.Result, side migrate.Side, name dataplane.Name, probes []migrate.Probe, opts Options) ([][]migrate.Observation, []string, error) {
	pl := planOf(r.Model, r.Node, probes)
	l, err := build(pl)
	if err != nil {
		return nil, nil, err
	}
	defer l.close()
	dp, err := apply.Open(string(name), apply.Node{Netns: l.node}, apply.Settings{Config: side.Config, Engine: opts.Engine})
	if err != nil {
		return nil, nil, err
	}
	err = program(ctx, dp, l.node, name, r.Model)
	if err == nil {
		err = l.sysctl(l.node, "net.ipv4.conf.all.route_localnet="+routeLocalnet(side))
	}
	if err == nil {
		err = l.startServers(pl)
	}
	if err != nil {
		return nil, nil, errors.Join(err, dp.Close())
	}
	seen, unsent, err := l.sendAll(ctx, probes, opts)
	return seen, unsent, errors.Join(err, dp.Close())
}

// routeLocalnet is net.ipv4.conf.all.route_localnet as kube-proxy sets it
// on the side: 1 when it serves NodePorts on 127.0.0.1 (iptables mode with
// --iptables-localhost-nodeports and loopback among its NodePort
// addresses; nftables with the KubeProxyNFTablesLocalhostNodePorts gate).
func routeLocalnet(s migrate.Side) string {
	p := s.Flags
	loopback := len(p.NodePortAddresses) == 0 && !p.NodePortPrimary
	for _, c := range p.NodePortAddresses {
		loopback = loopback || c.Contains(netip.MustParseAddr("127.0.0.1"))
	}
	if (s.Mode == dataplane.ModeIPTables && !p.NoLocalhostNodePorts && loopback) || (s.Mode == dataplane.ModeNFTables && s.LocalhostNodePortsGate) {
		return "1"
	}
	return "0"
}

// maxInFlight is how many probes run at once (a dropped one waits for its
// timeout).
const maxInFlight = 16

// sendAll sends every probe the lab supports, several at once.
// It stops starting probes once ctx ends, and then returns ctx's error.
func (l *lab) sendAll(ctx context.Context, probes []migrate.Probe, opts Options) ([][]migrate.Observation, []string, error) {
	seen := make([][]migrate.Observation, len(probes))
	unsent := make([]string, len(probes))
	errs := make([]error, len(probes))
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxInFlight)
	for i, p := range probes {
		if ctx.Err() != nil {
			break
		}
		if why := unsupported(p); why != "" {
			unsent[i] = why
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			seen[i], errs[i] = l.send(p.Path, opts.Connections, opts.Timeout)
			if errors.Is(errs[i], errNoLab) {
				unsent[i], errs[i] = errs[i].Error(), nil
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return seen, unsent, errors.Join(errs...)
}

// programAttempts is how often a node is programmed before its rules are
// given up on.
const programAttempts = 3

// program has dp program m into the node, and checks that the rules
// reached the kernel: kube-proxy's sync can end without them when the
// xtables lock (one for every namespace) is held by another process past
// its wait. It tries again from a reset node before giving up.
func program(ctx context.Context, dp apply.Dataplane, ns string, name dataplane.Name, m *model.Model) error {
	var err error
	for range programAttempts {
		if _, err = dp.Program(ctx, m); err == nil {
			var ok bool
			if ok, err = programmed(ns, name); ok {
				return nil
			}
			if err == nil {
				err = fmt.Errorf("the node lacks kube-proxy's rules after programming (xtables lock held elsewhere?)")
			}
		}
		if rerr := dp.Reset(ctx); rerr != nil {
			return errors.Join(err, rerr)
		}
	}
	return fmt.Errorf("%s after %d attempts: %w", name, programAttempts, err)
}

// programmed reports whether the node holds the IPv4 service rules of
// the dataplane called name: KUBE-SERVICES in the nat table (iptables and
// IPVS modes), or nftables' service-ips map.
func programmed(ns string, name dataplane.Name) (bool, error) {
	info, err := dataplane.Parse(string(name))
	if err != nil {
		return false, err
	}
	if info.IPTablesBackend != "" { // iptables mode, and IPVS mode's iptables rules
		out, err := (&apply.IPTables{Netns: ns, Backend: info.IPTablesBackend}).Save("nat")
		return bytes.Contains(out, []byte("-A KUBE-SERVICES")), err
	}
	out, err := (&apply.NFTables{Netns: ns}).List()
	return err == nil && bytes.Contains(out, []byte("service-ips")), nil
}
