package rendercheck

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/nfttrace"
)

// TestNFTables137TraceKernel loads the v1.37 layout of each scenario into a
// scratch namespace and traces every service port through the rendered
// script, the kernel's `nft list table` and its `nft -j list table`: each
// must give the endpoints, probabilities, verdicts and masquerading the
// v1.35 layout of the same model gives. Hairpin packets (from the first
// endpoint) are traced only for endpoints on this node: v1.36+ lists only
// those in hairpin-connections, v1.35 masqueraded any endpoint's own
// traffic.
func TestNFTables137TraceKernel(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	for name, m := range nftScenarios(t) {
		t.Run(name, func(t *testing.T) {
			script := renderNFT(t, m, rendernft.Options{Version: render.KubeProxy137})
			ns := labtest.ScratchNetns(t)
			nft(t, ns, script, "-f", "-")
			listing := nft(t, ns, nil, "list", "table", "ip", "kube-proxy")
			js := nft(t, ns, nil, "-j", "list", "table", "ip", "kube-proxy")
			want := traceModel(t, "v1.35 script", parseRuleset(t, renderNFT(t, m, rendernft.Options{Version: render.KubeProxy135}), false), m)
			for _, f := range []struct {
				name string
				rs   *nftables.Ruleset
			}{
				{"v1.37 script", parseRuleset(t, script, false)},
				{"kernel listing", parseRuleset(t, listing, false)},
				{"kernel JSON listing", parseRuleset(t, js, true)},
			} {
				got := traceModel(t, f.name, f.rs, m)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s: %s\nv1.35 gives   %s", f.name, got[i], want[i])
					}
				}
			}
		})
	}
}

// parseRuleset parses a script or listing (JSON when js).
func parseRuleset(t *testing.T, src []byte, js bool) *nftables.Ruleset {
	t.Helper()
	parse := nftables.Parse
	if js {
		parse = nftables.ParseJSON
	}
	rs, err := parse(bytes.NewReader(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return rs
}

// traceModel traces a first packet to each service port of m, from a pod
// and (for a local first endpoint) from that endpoint, one line each.
func traceModel(t *testing.T, what string, rs *nftables.Ruleset, m *model.Model) []string {
	t.Helper()
	prog, err := nfttrace.Compile(rs, nfttrace.Options{SkipPath: true})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var out []string
	for i := 0; i < m.Services.Len(); i++ {
		svc := m.Services.At(i)
		srcs := []netip.Addr{netip.MustParseAddr("10.244.255.1")}
		if len(svc.Endpoints) > 0 && svc.Endpoints[0].IsLocal(m.Cluster.NodeName) {
			srcs = append(srcs, svc.Endpoints[0].IP)
		}
		for _, p := range svc.Ports {
			for _, src := range srcs {
				pkt := trace.Packet{Src: src, Dst: svc.ClusterIP, Proto: strings.ToLower(string(p.Protocol)), DPort: uint16(p.Port)}
				r, err := prog.Trace(pkt)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				out = append(out, fmt.Sprintf("%s/%s %s → %s:%d: %s", svc.Namespace, svc.Name, src, svc.ClusterIP, p.Port, outcomes(r)))
			}
		}
	}
	return out
}

// outcomes is a trace's verdict and, per outcome, DNAT destination, both
// probabilities and masquerading.
func outcomes(r nfttrace.Result) string {
	var parts []string
	for _, o := range r.Outcomes {
		parts = append(parts, fmt.Sprintf("%s %v p=%.10f kernel=%.10f masq=%v", o.Verdict, o.Endpoint, o.Probability, o.Effective, o.Masquerade))
	}
	return r.Verdict + ": " + strings.Join(parts, "; ")
}
