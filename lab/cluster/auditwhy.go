package cluster

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// podNode is the node a DaemonSet's pod is for: its node once bound, else
// the node its controller pinned it to (a required node affinity on
// metadata.name).
func podNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if p.Spec.Affinity == nil || p.Spec.Affinity.NodeAffinity == nil || p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == "metadata.name" && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// timedOut adds to the reports a result for each pod that printed none,
// saying why, and one for the scheduled nodes that have no pod yet.
func (w *reports) timedOut(pods []corev1.Pod, desired int) []simcluster.NodeResult {
	out := w.results()
	seen := len(w.byNode)
	for i := range pods {
		p := &pods[i]
		node := podNode(p)
		if _, ok := w.byNode[node]; ok {
			continue
		}
		seen++
		if node == "" {
			node = "(pod " + p.Name + ")"
		}
		out = append(out, simcluster.NodeResult{Node: node, Pod: p.Name, NoReport: podState(p, w.logErr[p.Name])})
	}
	if desired > seen {
		out = append(out, simcluster.NodeResult{Node: fmt.Sprintf("(%d more nodes)", desired-seen),
			NoReport: "the DaemonSet controller made no pod for them (kubectl describe daemonset)"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}

// missing names the nodes without a report, for the error.
func (w *reports) missing(pods []corev1.Pod, desired int) []string {
	var names []string
	for _, n := range w.timedOut(pods, desired) {
		if n.Audit == nil {
			names = append(names, n.Node+": "+n.NoReport)
		}
	}
	return names
}

// podState says where a pod is: its phase, why it is not scheduled, its
// container's state and restarts, and why its log held no report.
func podState(p *corev1.Pod, logErr error) string {
	parts := []string{"pod " + p.Name + " " + string(p.Status.Phase)}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			parts = append(parts, words("not scheduled:", c.Reason, c.Message))
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		switch s := cs.State; {
		case s.Waiting != nil:
			parts = append(parts, words("container "+cs.Name+" waiting:", s.Waiting.Reason, s.Waiting.Message))
		case s.Terminated != nil:
			parts = append(parts, words("container "+cs.Name+" terminated:", s.Terminated.Reason, fmt.Sprintf("exit %d", s.Terminated.ExitCode), s.Terminated.Message))
		case s.Running != nil:
			parts = append(parts, fmt.Sprintf("container %s running", cs.Name))
		}
		if cs.RestartCount > 0 {
			parts = append(parts, fmt.Sprintf("%d restarts", cs.RestartCount))
		}
	}
	if logErr != nil {
		parts = append(parts, "log: "+logErr.Error())
	}
	return strings.Join(parts, ", ")
}

// words joins the non-empty ones with spaces.
func words(ws ...string) string {
	var out []string
	for _, w := range ws {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}
