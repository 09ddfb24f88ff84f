package kubeproxy

import (
	"encoding/json"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svclab/svclab/sim/kube"
)

// objectSet is the Services and EndpointSlices a loop session has sent,
// as an API server would hold them, so that a restarted kube-proxy starts
// from the current state.
type objectSet struct {
	items map[objectKey]runtime.RawExtension
}

type objectKey struct{ kind, namespace, name string }

func newObjectSet(l v1.List) (*objectSet, error) {
	s := &objectSet{items: map[objectKey]runtime.RawExtension{}}
	for i, item := range l.Items {
		if err := s.apply(kube.Op{Action: kube.Add, Object: item}); err != nil {
			return nil, fmt.Errorf("object %d of the list: %w", i, err)
		}
	}
	return s, nil
}

// apply records one event (encoded as JSON, so that later changes to the
// caller's object do not show).
func (s *objectSet) apply(op kube.Op) error {
	b := op.Object.Raw
	if b == nil {
		var err error
		if b, err = json.Marshal(op.Object.Object); err != nil {
			return fmt.Errorf("%s: %w", op.Action, err)
		}
	}
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return fmt.Errorf("%s: %w", op.Action, err)
	}
	if meta.Kind != "Service" && meta.Kind != "EndpointSlice" {
		return fmt.Errorf("%s of kind %q: want Service or EndpointSlice", op.Action, meta.Kind)
	}
	key := objectKey{meta.Kind, meta.Metadata.Namespace, meta.Metadata.Name}
	switch op.Action {
	case kube.Add, kube.Update:
		s.items[key] = runtime.RawExtension{Raw: b}
	case kube.Delete:
		delete(s.items, key)
	default:
		return fmt.Errorf("action %q of %s %s/%s: want add, update or delete", op.Action, key.kind, key.namespace, key.name)
	}
	return nil
}

// list returns the objects, Services first, each kind by namespace and
// name.
func (s *objectSet) list() v1.List {
	keys := make([]objectKey, 0, len(s.items))
	for k := range s.items {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.kind != b.kind {
			return a.kind == "Service"
		}
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		return a.name < b.name
	})
	l := v1.List{}
	l.APIVersion, l.Kind = "v1", "List"
	for _, k := range keys {
		l.Items = append(l.Items, s.items[k])
	}
	return l
}
