package iptables

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// addrTypeChain is where kube-proxy writes the rules a walk probe's
// addrtype variant adds: a NodePort of a Service without endpoints is
// rejected in the filter table's KUBE-EXTERNAL-SERVICES with "-m addrtype
// --dst-type LOCAL", which every new forwarded connection walks.
const addrTypeChain = "KUBE-EXTERNAL-SERVICES"

// RenderAddrTypeProbe is RenderWalkProbe's probe with, in its filter
// table's KUBE-EXTERNAL-SERVICES, the addrtype rules kube-proxy writes for
// rules NodePort services without endpoints (NodePortRejects): the same
// walk plus that many routing lookups, so svclab plan calibrate times an
// addrtype rule against the plain ones.
func RenderAddrTypeProbe(m *model.Model, opts Options, probe []byte, rules int) ([]byte, render.Stats, error) {
	rejects, err := NodePortRejects(m.Cluster, opts, rules)
	if err != nil {
		return nil, render.Stats{}, err
	}
	out, err := withChainRules(probe, "filter", addrTypeChain, rejects)
	if err != nil {
		return nil, render.Stats{}, err
	}
	text := string(out)
	return out, render.Stats{Lines: strings.Count(text, "\n"), Bytes: len(out), Rules: strings.Count(text, "\n-A "),
		Chains: strings.Count(text, "\n:")}, nil
}

// NodePortRejects renders n one-port NodePort services without endpoints
// in cluster and returns their KUBE-EXTERNAL-SERVICES rules, as kube-proxy
// writes them ("-m addrtype --dst-type LOCAL -m tcp -p tcp --dport PORT -j
// REJECT").
func NodePortRejects(cluster model.Cluster, opts Options, n int) ([]string, error) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, Seed: 1, Namespace: "addrtype-probe", Mix: model.NodePortsWithoutEndpoints()})
	if err != nil {
		return nil, fmt.Errorf("addrtype probe: %w", err)
	}
	var payload bytes.Buffer
	if _, err := Render(&payload, &model.Model{Cluster: cluster, Services: gen}, opts); err != nil {
		return nil, fmt.Errorf("addrtype probe: %w", err)
	}
	lines, err := payloadLines(payload.Bytes())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range lines {
		if ruleChain(line) == addrTypeChain && strings.Contains(line, " -m addrtype ") {
			out = append(out, line)
		}
	}
	if len(out) != n {
		return nil, fmt.Errorf("addrtype probe: %d NodePort services without endpoints rendered %d addrtype rules in %s, want %d", n, len(out), addrTypeChain, n)
	}
	return out, nil
}

// withChainRules is payload with rules appended to chain's in table (after
// its last rule, or after its declaration when it has none).
func withChainRules(payload []byte, table, chain string, rules []string) ([]byte, error) {
	lines, err := payloadLines(payload)
	if err != nil {
		return nil, err
	}
	at, current := -1, ""
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "*"):
			current = line[1:]
		case current != table:
		case line == ":"+chain || strings.HasPrefix(line, ":"+chain+" ") || ruleChain(line) == chain:
			at = i
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("addrtype probe: the payload has no %s %s chain", table, chain)
	}
	var out bytes.Buffer
	for i, line := range lines {
		out.WriteString(line)
		out.WriteByte('\n')
		if i == at {
			for _, r := range rules {
				out.WriteString(r)
				out.WriteByte('\n')
			}
		}
	}
	return out.Bytes(), nil
}
