package analyze

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	renderipvs "github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/iptrace"
	"github.com/svclab/svclab/sim/trace/ipvstrace"
)

// KindIPVS is an `ipvsadm -Sn` output, or svclab render --mode ipvs's
// combined file (ipvsadm, ipset and iptables parts).
const KindIPVS = string(dataplane.ModeIPVS)

// isIPVS reports whether data is ipvsadm output or the combined file.
func isIPVS(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		switch {
		case bytes.Equal(line, []byte("# ipvsadm -R")):
			return true
		case len(line) == 0 || line[0] == '#':
			continue
		}
		f := bytes.Fields(line)
		return len(f) >= 2 && (bytes.Equal(f[0], []byte("-A")) || bytes.Equal(f[0], []byte("-a"))) &&
			(bytes.Equal(f[1], []byte("-t")) || bytes.Equal(f[1], []byte("-u")) || bytes.Equal(f[1], []byte("-f")) || bytes.Equal(f[1], []byte("--sctp-service")))
	}
	return false
}

// loadIPVS parses ipvsadm output, or the three parts of a combined file.
func loadIPVS(data []byte) (*Dump, error) {
	d := &Dump{Kind: KindIPVS}
	if !bytes.Contains(data, []byte("# ipvsadm -R")) {
		tab, err := ipvs.ParseIPVSAdm(bytes.NewReader(data))
		d.IPVS = tab
		return d, err
	}
	parts, err := renderipvs.Split(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if d.IPVS, err = ipvs.ParseIPVSAdm(bytes.NewReader(parts.IPVSAdm)); err != nil {
		return nil, err
	}
	if d.IPSets, err = ipvs.ParseIPSetSave(bytes.NewReader(parts.IPSet)); err != nil {
		return nil, err
	}
	if d.IPT, err = iptables.Parse(bytes.NewReader(parts.IPTables)); err != nil {
		return nil, fmt.Errorf("iptables part: %w", err)
	}
	return d, nil
}

// Trace walks p through the iptables rules and the virtual servers and
// reads the IPVS trace as a Result.
func (a ipvsTracer) Trace(p trace.Packet) (Result, error) {
	r, err := a.t.Trace(p)
	if err != nil {
		return Result{}, err
	}
	res := Result{Dump: KindIPVS, Packet: describe(p), Service: r.Service, Verdict: string(r.Verdict), Masquerade: r.Masquerade || r.LoopBack.IsValid(), Flags: r.Flags}
	if res.Verdict == "" {
		res.Verdict = string(iptrace.Accept)
	}
	if it := r.IPTables; it != nil {
		res.RulesEvaluated, res.Undecided = it.RulesEvaluated, it.Undecided
		var flags []string
		for _, f := range it.Flags {
			if r.Service != "" && strings.HasPrefix(f, "no service:") {
				continue // IPVS, not nat, serves the virtual address
			}
			flags = append(flags, f)
		}
		res.Flags = append(flags, res.Flags...)
		for _, s := range it.Path {
			res.Path = append(res.Path, fmt.Sprintf("%s %s #%d %s %s", s.Table(), s.Chain(), s.RuleIndex(), matched(s.Matched), clipRule(s.Rule())))
		}
	}
	if r.Service != "" {
		n := 0
		for _, e := range r.Endpoints {
			if e.Probability > 0 {
				n++
			}
		}
		res.Path = append(res.Path, fmt.Sprintf("ipvs virtual server %s (%s) → %d real servers", r.Service, r.Scheduler, n))
	}
	for _, e := range r.Endpoints {
		if e.Probability > 0 {
			res.Endpoints = append(res.Endpoints, Endpoint{Endpoint: e.Addr.String(), Probability: e.Probability, Effective: e.Probability,
				Verdict: res.Verdict, Masquerade: r.Masquerade || e.Addr == r.LoopBack, Rules: res.RulesEvaluated})
		}
	}
	return res, nil
}

// ipvsTracer is the IPVS mode's tracer behind Tracer.
type ipvsTracer struct{ t *ipvstrace.Tracer }

// compileIPVS compiles the virtual servers and the iptables rules around
// them, with the user's ipsets or else the dump's own.
func compileIPVS(d *Dump, opts Options) (Tracer, error) {
	sets := opts.IPSets
	if sets == nil {
		sets = d.IPSets
	}
	t, err := ipvstrace.New(d.IPVS, d.IPT, ipvstrace.Options{LocalAddrs: opts.Local, IPSets: sets})
	if err != nil {
		return nil, err
	}
	return ipvsTracer{t}, nil
}

// WithPaths returns a: the IPVS tracer keeps its paths always.
func (a ipvsTracer) WithPaths() (Tracer, bool) { return a, true }

// ipvsTargets lists the virtual servers with an address.
func ipvsTargets(d *Dump) []target {
	var out []target
	for i, s := range d.IPVS.Services {
		if s.Addr.IsValid() {
			out = append(out, target{name: s.Key(), pos: i + 1, dst: netip.AddrPortFrom(s.Addr.Addr(), s.Addr.Port()), proto: s.Protocol})
		}
	}
	return out
}
