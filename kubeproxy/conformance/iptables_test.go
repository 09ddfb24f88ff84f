package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"testing"

	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
)

// TestIPTables: iptables mode, every sync's iptables-restore payload.
func TestIPTables(t *testing.T) { runSuite(t, kube.ModeIPTables, compareIPTables) }

func compareIPTables(ms []*model.Model, flags render.Flags, kp []kube.Sync) (string, error) {
	syncer := rendipt.NewSyncer(iptablesOptions(flags))
	for i, s := range kp {
		var buf bytes.Buffer
		var err error
		if s.Full && i > 0 {
			_, err = syncer.FullSync(&buf, ms[i])
		} else {
			_, err = syncer.Sync(&buf, ms[i])
		}
		if err != nil {
			return "", fmt.Errorf("native iptables sync %d: %w", i, err)
		}
		if d, err := diffRestore(s.Payload, buf.String()); err != nil || d != "" {
			return fmt.Sprintf("sync %d (%s) differs\n%s", i, syncKind(s), d), err
		}
	}
	return "", nil
}

// setChains are emitted by kube-proxy in Go map order: compared as sets.
var setChains = map[string]bool{"KUBE-SERVICES": true, "KUBE-NODEPORTS": true, "KUBE-EXTERNAL-SERVICES": true, "KUBE-PROXY-FIREWALL": true}

// canonicalRestore parses an iptables-restore payload, applies kube-proxy's
// canonical sort, then sorts the rules of the set chains as text (keeping
// nat KUBE-SERVICES' nodeports rule last).
func canonicalRestore(text string) (string, error) {
	d, err := simipt.ParseString(text)
	if err != nil {
		return "", err
	}
	simipt.Sort(d)
	for _, tb := range d.Tables {
		for _, c := range tb.Chains {
			if !setChains[c.Name] {
				continue
			}
			sort.SliceStable(c.Rules, func(i, j int) bool {
				a, b := c.Rules[i], c.Rules[j]
				if last(a) != last(b) {
					return last(b)
				}
				return a.String() < b.String()
			})
		}
	}
	return d.String(), nil
}

func last(r *simipt.Rule) bool {
	return r.HasComment && bytes.Contains([]byte(r.Comment), []byte("must be the last rule"))
}

// diffRestore compares two payloads after canonicalRestore.
func diffRestore(kubeProxy, native string) (string, error) {
	want, err := canonicalRestore(kubeProxy)
	if err != nil {
		return "", fmt.Errorf("kube-proxy payload: %w", err)
	}
	got, err := canonicalRestore(native)
	if err != nil {
		return "", fmt.Errorf("native payload: %w", err)
	}
	if want == got {
		return "", nil
	}
	return "--- kube-proxy\n+++ native\n" + lineDiff(want, got), nil
}
