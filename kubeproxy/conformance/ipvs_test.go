package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendipvs "github.com/svclab/svclab/sim/render/ipvs"
)

// TestIPVS: IPVS mode, after every sync: the iptables-restore payload, the
// IPVS table (ipvsadm -Sn form) and the ipsets (ipset save form) that
// kube-proxy's fakes hold.
func TestIPVS(t *testing.T) { runSuite(t, kube.ModeIPVS, compareIPVS) }

func compareIPVS(ms []*model.Model, flags render.Flags, kp []kube.Sync) (string, error) {
	return compareIPVSWith(ms, kp, ipvsOptions(flags))
}

// compareIPVSWith compares every sync of kube-proxy with the native
// renderer's payloads of the same model (one family's projection).
func compareIPVSWith(ms []*model.Model, kp []kube.Sync, opts rendipvs.Options) (string, error) {
	for i, s := range kp {
		var ipt, adm, set bytes.Buffer
		if _, err := rendipvs.RenderIPTables(&ipt, ms[i], opts); err != nil {
			return "", fmt.Errorf("native ipvs iptables, sync %d: %w", i, err)
		}
		if _, err := rendipvs.RenderIPVSAdm(&adm, ms[i], opts); err != nil {
			return "", fmt.Errorf("native ipvsadm, sync %d: %w", i, err)
		}
		if _, err := rendipvs.RenderIPSet(&set, ms[i], opts); err != nil {
			return "", fmt.Errorf("native ipset, sync %d: %w", i, err)
		}
		d, err := diffRestore(sortOutFilter(s.Payload), sortOutFilter(ipt.String()))
		if err != nil || d != "" {
			return fmt.Sprintf("sync %d iptables payload differs\n%s", i, d), err
		}
		if d := diffText(s.IPVS, canonicalIPVSAdm(adm.String())); d != "" {
			return fmt.Sprintf("sync %d IPVS table differs\n%s", i, d), nil
		}
		if d := diffText(s.IPSet, canonicalIPSet(set.String())); d != "" {
			return fmt.Sprintf("sync %d ipsets differ\n%s", i, d), nil
		}
	}
	return "", nil
}

// sortOutFilter sorts the KUBE-IPVS-OUT-FILTER rules of a payload in place:
// kube-proxy writes one per load balancer in service-map order.
func sortOutFilter(text string) string {
	lines := strings.Split(text, "\n")
	var idx []int
	var rules []string
	for i, l := range lines {
		if strings.HasPrefix(l, "-A KUBE-IPVS-OUT-FILTER ") {
			idx = append(idx, i)
			rules = append(rules, l)
		}
	}
	sort.Strings(rules)
	for k, i := range idx {
		lines[i] = rules[k]
	}
	return strings.Join(lines, "\n")
}

// canonicalIPVSAdm sorts ipvsadm -R input as the driver's dump is sorted:
// virtual servers by their line, each followed by its real servers sorted.
func canonicalIPVSAdm(text string) string {
	type block struct {
		head  string
		reals []string
	}
	var blocks []*block
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "-A "):
			blocks = append(blocks, &block{head: l})
		case strings.HasPrefix(l, "-a ") && len(blocks) > 0:
			b := blocks[len(blocks)-1]
			b.reals = append(b.reals, l)
		}
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].head < blocks[j].head })
	var out strings.Builder
	for _, b := range blocks {
		sort.Strings(b.reals)
		out.WriteString(b.head + "\n")
		for _, r := range b.reals {
			out.WriteString(r + "\n")
		}
	}
	return out.String()
}

// canonicalIPSet turns ipset restore input into the driver's ipset save
// form: no -exist, create lines sorted, then add lines sorted.
func canonicalIPSet(text string) string {
	var creates, adds []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, " -exist")
		switch {
		case strings.HasPrefix(l, "create "):
			creates = append(creates, l)
		case strings.HasPrefix(l, "add "):
			adds = append(adds, l)
		}
	}
	sort.Strings(creates)
	sort.Strings(adds)
	return strings.Join(append(creates, adds...), "\n") + "\n"
}
