package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	simnft "github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/render"
	rendnft "github.com/svclab/svclab/sim/render/nftables"
)

// TestNFTables: nftables mode, every sync by its transaction text and by
// the state the transactions so far leave in the table.
func TestNFTables(t *testing.T) { runSuite(t, kube.ModeNFTables, compareNFTables) }

func compareNFTables(ms []*model.Model, flags render.Flags, kp []kube.Sync) (string, error) {
	syncer := rendnft.NewSyncer(nftablesOptions(flags))
	var want, got simnft.TransactionState
	for i, s := range kp {
		var buf bytes.Buffer
		if _, err := syncer.Sync(&buf, ms[i]); err != nil {
			return "", fmt.Errorf("native nftables sync %d: %w", i, err)
		}
		if d := diffText(canonicalTx(s.Payload), canonicalTx(buf.String())); d != "" {
			return fmt.Sprintf("sync %d (%s) transaction text differs\n%s", i, syncKind(s), d), nil
		}
		if err := want.Apply(s.Payload); err != nil {
			return "", fmt.Errorf("kube-proxy transaction %d: %w", i, err)
		}
		if err := got.Apply(buf.String()); err != nil {
			return "", fmt.Errorf("native transaction %d: %w", i, err)
		}
		if d := diffText(simnft.SortTransaction(want.Dump()), simnft.SortTransaction(got.Dump())); d != "" {
			return fmt.Sprintf("sync %d (%s) final state differs\n%s", i, syncKind(s), d), nil
		}
	}
	return "", nil
}

// canonicalTx groups a transaction's lines by the object they act on
// (chain, set or map), objects sorted by name, each object's lines in
// their order except that runs of element lines are sorted (kube-proxy
// adds elements in map order), as are the rules of the services chain.
func canonicalTx(text string) string {
	groups := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		k := objectOf(l)
		groups[k] = append(groups[k], l)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		lines := groups[k]
		sortRuns(lines, func(l string) bool {
			return strings.HasPrefix(l, "add element ") || strings.HasPrefix(l, "delete element ") ||
				k == "services" && strings.HasPrefix(l, "add rule ")
		})
		b.WriteString("# " + k + "\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// objectOf returns the name of the object a transaction line acts on:
// "VERB KIND FAMILY TABLE NAME …" gives NAME; a table line gives "".
func objectOf(l string) string {
	f := strings.Fields(l)
	if len(f) < 5 || f[1] == "table" {
		return ""
	}
	return f[4]
}

// sortRuns sorts each maximal run of consecutive lines for which in is
// true, leaving the others in place.
func sortRuns(lines []string, in func(string) bool) {
	for i := 0; i < len(lines); {
		if !in(lines[i]) {
			i++
			continue
		}
		j := i
		for j < len(lines) && in(lines[j]) {
			j++
		}
		sort.Strings(lines[i:j])
		i = j
	}
}

// diffText is "" for equal texts, else a line diff.
func diffText(kubeProxy, native string) string {
	if kubeProxy == native {
		return ""
	}
	return "--- kube-proxy\n+++ native\n" + lineDiff(kubeProxy, native)
}
