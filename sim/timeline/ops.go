package timeline

import (
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
)

// TriggerTimeAnnotation is the annotation kube-proxy reads from an
// EndpointSlice to measure network programming latency (the time of the
// change that caused the slice's last update).
const TriggerTimeAnnotation = "endpoints.kubernetes.io/last-change-trigger-time"

// Step returns the object events that turn prev into next (kube.Diff),
// with every added or updated EndpointSlice annotated with trigger, the
// wall-clock time of the event, as the EndpointSlice controller does.
func Step(prev, next model.List, trigger time.Time) kube.Step {
	st := kube.Diff(prev, next)
	stamp := trigger.UTC().Format(time.RFC3339Nano)
	for i, op := range st.Ops {
		es, ok := op.Object.Object.(*discoveryv1.EndpointSlice)
		if !ok || op.Action == kube.Delete {
			continue
		}
		c := es.DeepCopy()
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[TriggerTimeAnnotation] = stamp
		st.Ops[i].Object = kube.Raw(c)
	}
	return st
}
