package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	rendnft "github.com/svclab/svclab/sim/render/nftables"
)

// TestNFTables: nftables mode, by the state the transactions produce after
// every sync, and by the transaction text wherever the native renderer
// writes that sync (the full sync, and partial syncs that change one
// existing service's endpoints).
func TestNFTables(t *testing.T) { runSuite(t, kube.ModeNFTables, compareNFTables) }

func compareNFTables(ms []*model.Model, kp []kube.Sync) (string, error) {
	opts := nftablesOptions()
	state := newNFTState()
	for i, s := range kp {
		if err := state.apply(s.Payload); err != nil {
			return "", fmt.Errorf("kube-proxy transaction %d: %w", i, err)
		}
		native, ok, err := nativeNFTTransaction(ms, i, opts)
		if err != nil {
			return "", err
		}
		if ok {
			if d := diffText(canonicalTx(s.Payload), canonicalTx(native)); d != "" {
				return fmt.Sprintf("sync %d (%s) transaction text differs\n%s", i, syncKind(s), d), nil
			}
		}
		var full bytes.Buffer
		if _, err := rendnft.Render(&full, ms[i], opts); err != nil {
			return "", fmt.Errorf("native nftables full render of state %d: %w", i, err)
		}
		fresh := newNFTState()
		if err := fresh.apply(full.String()); err != nil {
			return "", fmt.Errorf("native nftables transaction for state %d: %w", i, err)
		}
		if d := diffText(state.dump(), fresh.dump()); d != "" {
			return fmt.Sprintf("sync %d (%s) final state differs\n%s", i, syncKind(s), d), nil
		}
	}
	return "", nil
}

// nativeNFTTransaction renders sync i natively when the renderer has a form
// for it: the full sync, or a partial sync changing the endpoints of one
// service present before and after.
func nativeNFTTransaction(ms []*model.Model, i int, opts rendnft.Options) (string, bool, error) {
	var buf bytes.Buffer
	if i == 0 {
		_, err := rendnft.Render(&buf, ms[0], opts)
		return buf.String(), true, err
	}
	before, after, ok := oneServiceChange(ms[i-1], ms[i])
	if !ok {
		return "", false, nil
	}
	_, err := rendnft.RenderServiceChange(&buf, ms[i].Cluster, before, after, opts)
	return buf.String(), true, err
}

// oneServiceChange returns the one service whose endpoints changed between
// two states, if that is the only change.
func oneServiceChange(a, b *model.Model) (*model.Service, *model.Service, bool) {
	if a.Services.Len() != b.Services.Len() {
		return nil, nil, false
	}
	var before, after *model.Service
	for i := 0; i < a.Services.Len(); i++ {
		x, y := a.Services.At(i), b.Services.At(i)
		if key(x) != key(y) {
			return nil, nil, false
		}
		if fmt.Sprint(*x) != fmt.Sprint(*y) {
			if before != nil {
				return nil, nil, false
			}
			before, after = x, y
		}
	}
	return before, after, before != nil
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
