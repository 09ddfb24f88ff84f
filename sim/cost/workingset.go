package cost

import "fmt"

// KubeServicesRuleBytes estimates the kernel memory of one KUBE-SERVICES
// rule, the memory a first packet's walk streams through: in the legacy
// xtables blob an ipt_entry (112 B), a comment match (32 + 256 B), a tcp
// match (40 B) and a standard target (40 B); nf_tables rules through
// iptables-nft carry the same matches as expressions. An estimate from the
// kernel's structures, not a measurement.
const KubeServicesRuleBytes = 480

// WorkingSet is the memory a first packet's rule walk touches for the
// evaluations it does (LinearWalk; 0 for a map lookup).
func WorkingSet(lookup Lookup, evaluations float64) int64 {
	if lookup != LinearWalk {
		return 0
	}
	return int64(evaluations * KubeServicesRuleBytes)
}

// cacheWarning says when the walk at the prediction outgrows the largest
// cache of the calibration's machine although every calibrated walk fitted
// in it: the per-rule cost then rises (on the reference machine, iptables-
// legacy's went from about 6 ns at 5,000-70,000 services to 9.5 ns at
// 100,000, a walk of about 48 MB).
func cacheWarning(dataplane string, m Machine, calibratedWalk, walk float64) string {
	llc := m.LargestCache()
	if llc == 0 {
		return ""
	}
	calibrated, target := WorkingSet(LinearWalk, calibratedWalk), WorkingSet(LinearWalk, walk)
	if calibrated > llc || target <= llc {
		return ""
	}
	return fmt.Sprintf("%s: the rule walk (about %s) outgrows the calibration machine's largest cache (%s), which every calibrated walk (up to %s) fitted in: the cost per rule rises beyond it, so latency and CPU are likely underestimated",
		dataplane, sizeText(target), sizeText(llc), sizeText(calibrated))
}
