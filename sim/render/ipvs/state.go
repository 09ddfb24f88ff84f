package ipvs

import "strings"

// CombinedFromState writes IPVS mode's state as another writer left it
// (kube-proxy's own proxier: `ipvsadm -Sn`, `ipset save` and its
// iptables-restore payload) in the three sections Render prints, so that
// sim/analyze loads it as it loads the native payload.
func CombinedFromState(ipvsadmSave, ipsetSave, iptablesPayload string) string {
	var b strings.Builder
	for _, part := range []struct {
		p    Part
		text string
	}{{PartIPVSAdm, ipvsadmSave}, {PartIPSet, IPSetRestoreForm(ipsetSave)}, {PartIPTables, iptablesPayload}} {
		b.WriteString(part.p.Header() + "\n" + part.text)
	}
	return b.String()
}

// IPSetRestoreForm turns `ipset save` output into `ipset restore` input,
// the form Render prints: every create and add with -exist.
func IPSetRestoreForm(save string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(save, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		if strings.HasPrefix(body, "create ") || strings.HasPrefix(body, "add ") {
			body += " -exist"
		}
		b.WriteString(body)
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}
