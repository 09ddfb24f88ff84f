package timeline

import (
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
)

// Step returns the object events that turn prev into next (kube.Diff),
// with every added or updated EndpointSlice annotated with trigger, the
// wall-clock time of the event, as the EndpointSlice controller does (kube.StampTriggerTime).
func Step(prev, next model.List, trigger time.Time) kube.Step {
	st := kube.Diff(prev, next)
	for i, op := range st.Ops {
		es, ok := op.Object.Object.(*discoveryv1.EndpointSlice)
		if !ok || op.Action == kube.Delete {
			continue
		}
		c := es.DeepCopy()
		kube.StampTriggerTime(c, trigger)
		st.Ops[i].Object = kube.Raw(c)
	}
	return st
}
