package iptables

import (
	"bufio"
	"bytes"
	"fmt"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderWalkProbe renders m's payload (one family's model) and turns it
// into a walk probe keeping keep's services (WalkProbe), with its size.
func RenderWalkProbe(m *model.Model, opts Options, keep []netip.Addr) ([]byte, render.Stats, error) {
	var full bytes.Buffer
	if _, err := Render(&full, m, opts); err != nil {
		return nil, render.Stats{}, fmt.Errorf("walk probe: %w", err)
	}
	probe, rules, err := WalkProbe(full.Bytes(), keep)
	if err != nil {
		return nil, render.Stats{}, err
	}
	text := string(probe)
	return probe, render.Stats{Lines: strings.Count(text, "\n"), Bytes: len(probe), Rules: rules, Chains: strings.Count(text, "\n:")}, nil
}

// WalkProbe turns a rendered iptables-restore payload into a walk probe:
// every KUBE-SERVICES rule stays byte for byte, in its place, but only the
// chains of the services whose ClusterIP is in keep stay with their rules;
// every other service's KUBE-SERVICES rule jumps to the chain of one other
// service (the first one not kept, whose chains stay too), and every other
// service chain is left out.
//
// A first packet then walks the same KUBE-SERVICES rules as in the full
// ruleset, but the ruleset has a handful of chains instead of two or more per
// service: iptables-legacy-restore, whose cost grows with the chain count,
// loads it in a fraction of a full sync's time, so svclab plan calibrate can
// measure the cost of a rule walk at rule counts past the CPU's caches
// without the full ruleset. It returns the payload and the rules it holds.
func WalkProbe(payload []byte, keep []netip.Addr) ([]byte, int, error) {
	lines, err := payloadLines(payload)
	if err != nil {
		return nil, 0, err
	}
	kept, shared, err := keptChains(lines, keep)
	if err != nil {
		return nil, 0, err
	}
	var out bytes.Buffer
	rules := 0
	for _, line := range lines {
		line, ok := walkProbeLine(line, kept, shared)
		if !ok {
			continue
		}
		if strings.HasPrefix(line, "-A ") {
			rules++
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes(), rules, nil
}

// serviceChainPrefixes are the per-service chains kube-proxy writes.
var serviceChainPrefixes = []string{"KUBE-SVC-", "KUBE-SVL-", "KUBE-SEP-", "KUBE-EXT-", "KUBE-FW-"}

func isServiceChain(name string) bool {
	for _, p := range serviceChainPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func payloadLines(payload []byte) ([]string, error) {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(payload))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("walk probe: reading the payload: %w", err)
	}
	return lines, nil
}

// ruleChain and ruleJump are a rule line's chain (-A CHAIN) and jump
// target (-j TARGET), "" when absent.
func ruleChain(line string) string {
	if !strings.HasPrefix(line, "-A ") {
		return ""
	}
	chain, _, _ := strings.Cut(line[3:], " ")
	return chain
}

func ruleJump(line string) string {
	_, after, ok := strings.Cut(line, " -j ")
	if !ok {
		return ""
	}
	target, _, _ := strings.Cut(after, " ")
	return target
}

// ruleDestination is a rule's -d address, if any.
func ruleDestination(line string) (netip.Addr, bool) {
	_, after, ok := strings.Cut(line, " -d ")
	if !ok {
		return netip.Addr{}, false
	}
	field, _, _ := strings.Cut(after, " ")
	field, _, _ = strings.Cut(field, "/")
	a, err := netip.ParseAddr(field)
	return a, err == nil
}

// keptChains are the service chains reachable from the KUBE-SERVICES rules
// of keep's services and of the shared service, the first other one.
func keptChains(lines []string, keep []netip.Addr) (map[string]bool, string, error) {
	wanted := map[netip.Addr]bool{}
	for _, a := range keep {
		wanted[a] = true
	}
	jumps := map[string][]string{}
	var roots []string
	shared := ""
	for _, line := range lines {
		chain, target := ruleChain(line), ruleJump(line)
		if chain == "" || !isServiceChain(target) {
			continue
		}
		jumps[chain] = append(jumps[chain], target)
		if chain != "KUBE-SERVICES" {
			continue
		}
		if dst, ok := ruleDestination(line); ok && wanted[dst] {
			roots = append(roots, target)
		} else if shared == "" {
			shared = target
		}
	}
	if len(roots) == 0 {
		return nil, "", fmt.Errorf("walk probe: no KUBE-SERVICES rule for the services to keep (%v)", keep)
	}
	if shared != "" {
		roots = append(roots, shared)
	}
	kept := map[string]bool{}
	for len(roots) > 0 {
		c := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if !kept[c] {
			kept[c] = true
			roots = append(roots, jumps[c]...)
		}
	}
	return kept, shared, nil
}

// walkProbeLine is a payload line as the walk probe has it, or false when
// it is left out.
func walkProbeLine(line string, kept map[string]bool, shared string) (string, bool) {
	if name, ok := strings.CutPrefix(line, ":"); ok {
		name, _, _ = strings.Cut(name, " ")
		return line, !isServiceChain(name) || kept[name]
	}
	chain := ruleChain(line)
	if chain == "" {
		return line, true
	}
	if isServiceChain(chain) {
		return line, kept[chain]
	}
	if target := ruleJump(line); isServiceChain(target) && !kept[target] {
		return strings.Replace(line, " -j "+target, " -j "+shared, 1), true
	}
	return line, true
}
