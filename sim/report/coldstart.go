package report

import (
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/results"
)

// restart is what one kube-proxy restart of a timeline showed.
type restart struct {
	event results.TimelineEvent
	// end is when the next event started (the window's end for the last);
	// window is the window's end.
	end, window float64
	// fresh: the node had no rules (a cold start), not a restart with the
	// rules in place.
	fresh bool
	// sync is the restarted kube-proxy's first sync (nil: it had not
	// ended when the window did).
	sync *results.TimelineSync
}

// restarts lists the run's restart events with their first syncs.
func restarts(r results.TimelineRun) []restart {
	var out []restart
	for i, e := range r.Events {
		if e.Probe != results.ProbeRestart {
			continue
		}
		end := r.DurationS
		for _, n := range r.Events[i+1:] {
			if n.AtS > e.AtS {
				end = n.AtS
				break
			}
		}
		rs := restart{event: e, end: end, window: r.DurationS, fresh: strings.Contains(e.What, "without rules")}
		for j, s := range r.Syncs {
			if s.Restart && s.AtS >= e.AtS {
				rs.sync = &r.Syncs[j]
				break
			}
		}
		out = append(out, rs)
	}
	return out
}

// kind names the restart: "cold start" (a node without rules) or
// "restart with the rules in place".
func (rs restart) kind() string {
	if rs.fresh {
		return "cold start"
	}
	return "restart with the rules in place"
}

// services is "10,001 Services" from the first sync, or "".
func (rs restart) services() string {
	if rs.sync == nil || rs.sync.Services == 0 {
		return ""
	}
	return thousands(int64(rs.sync.Services)) + " Services"
}

// finding says in words how long the node took to serve again after the
// restart, and how long kube-proxy's first sync took.
func (rs restart) finding() string {
	e := rs.event
	head := fmt.Sprintf("%s: after %q at %.0f s", capitalize(rs.kind()), e.What, e.AtS)
	if e.AppliedLateS > 0 {
		head += fmt.Sprintf(" (restarted %.1f s late, when the previous restart's first sync ended; counted from then)", e.AppliedLateS)
	}
	sync := "kube-proxy's first sync had not ended when the window did"
	if rs.sync != nil {
		sync = fmt.Sprintf("its first sync took %.3f s", rs.sync.DurationS)
		if n := rs.services(); n != "" {
			sync = fmt.Sprintf("its first sync of %s took %.3f s", n, rs.sync.DurationS)
		}
	}
	lost := fmt.Sprintf("%d connections timed out and %d were refused until %.0f s", e.After.TimedOut, e.After.Refused, rs.end)
	if e.ProbeLatencyS == nil {
		return fmt.Sprintf("%s, the Service was not served again before the window ended: time to serve over %.0f s; %s; %s.",
			head, rs.window-e.AtS, sync, lost)
	}
	return fmt.Sprintf("%s, the Service was served again %.3f s later (time to serve); %s; %s.", head, *e.ProbeLatencyS, sync, lost)
}

// coldStartLine is the headline of a timeline's restarts, e.g. "cold
// start on nftables (engine kube-proxy 1.37): time to serve after
// kube-proxy's restart 0.41 s at 1,001 Services, 3.20 s at 5,001 Services,
// over 150 s at 10,001 Services (its first sync 0.30 / 3.01 / – s)".
func coldStartLine(r results.TimelineRun) string {
	rs := restarts(r)
	if len(rs) == 0 {
		return ""
	}
	var serve, syncs []string
	for _, x := range rs {
		s := fmt.Sprintf("over %.0f s", x.window-x.event.AtS)
		if x.event.ProbeLatencyS != nil {
			s = fmt.Sprintf("%.2f s", *x.event.ProbeLatencyS)
		}
		if n := x.services(); n != "" {
			s += " at " + n
		}
		if !x.fresh {
			s += " (rules in place)"
		}
		serve = append(serve, s)
		d := "–"
		if x.sync != nil {
			d = fmt.Sprintf("%.2f", x.sync.DurationS)
		}
		syncs = append(syncs, d)
	}
	return fmt.Sprintf("%s on %s (engine %s): time to serve after kube-proxy's restart %s (its first sync %s s)",
		rs[0].kind(), r.Dataplane, strings.TrimSpace(r.Engine+" "+r.KubeProxyVersion), strings.Join(serve, ", "), strings.Join(syncs, " / "))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// restartOf is the restart of event i of r (which must be a restart).
func restartOf(r results.TimelineRun, i int) restart {
	for _, rs := range restarts(r) {
		if rs.event.Index == r.Events[i].Index {
			return rs
		}
	}
	return restart{event: r.Events[i], end: r.DurationS, window: r.DurationS}
}
