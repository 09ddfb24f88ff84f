package driver

import (
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svclab/svclab/sim/kube"
)

// store holds the objects the proxier has seen, so that updates and
// deletes can hand kube-proxy the previous object as an informer does.
type store struct {
	services map[string]*v1.Service
	slices   map[string]*discoveryv1.EndpointSlice
}

func newStore() *store {
	return &store{services: map[string]*v1.Service{}, slices: map[string]*discoveryv1.EndpointSlice{}}
}

func decode(raw runtime.RawExtension, into any) error {
	b := raw.Raw
	if b == nil && raw.Object != nil {
		var err error
		if b, err = json.Marshal(raw.Object); err != nil {
			return err
		}
	}
	return json.Unmarshal(b, into)
}

// apply hands one event to the proxier.
func (d *Driver) apply(op kube.Op) error {
	kind, err := kube.Kind(op.Object)
	if err != nil {
		return err
	}
	switch kind {
	case "Service":
		svc := new(v1.Service)
		if err := decode(op.Object, svc); err != nil {
			return fmt.Errorf("service: %w", err)
		}
		return d.applyService(op.Action, svc)
	case "EndpointSlice":
		es := new(discoveryv1.EndpointSlice)
		if err := decode(op.Object, es); err != nil {
			return fmt.Errorf("endpoint slice: %w", err)
		}
		return d.applySlice(op.Action, es)
	}
	return fmt.Errorf("object kind %q: want Service or EndpointSlice", kind)
}

func (d *Driver) applyService(action string, svc *v1.Service) error {
	return applyEvent(action, "service", svc.Namespace+"/"+svc.Name, svc, d.store.services, handlers[*v1.Service]{
		add: d.proxier.OnServiceAdd, update: d.proxier.OnServiceUpdate, delete: d.proxier.OnServiceDelete,
	})
}

func (d *Driver) applySlice(action string, es *discoveryv1.EndpointSlice) error {
	return applyEvent(action, "endpoint slice", es.Namespace+"/"+es.Name, es, d.store.slices, handlers[*discoveryv1.EndpointSlice]{
		add: d.proxier.OnEndpointSliceAdd, update: d.proxier.OnEndpointSliceUpdate, delete: d.proxier.OnEndpointSliceDelete,
	})
}

// handlers are a proxier's event handlers for one kind of object.
type handlers[T any] struct {
	add    func(T)
	update func(old, new T)
	delete func(T)
}

// applyEvent hands one event on obj (key "ns/name") to the proxier as an
// informer would: an add of a known object is an update, an update or
// delete of an unknown one is an error; known keeps what the proxier has
// seen.
func applyEvent[T any](action, kind, key string, obj T, known map[string]T, h handlers[T]) error {
	old, ok := known[key]
	switch {
	case action == kube.Add && !ok:
		h.add(obj)
	case action == kube.Update && ok, action == kube.Add && ok:
		h.update(old, obj)
	case action == kube.Delete && ok:
		h.delete(old)
		delete(known, key)
		return nil
	default:
		return fmt.Errorf("%s %s %s: not known to the proxier", action, kind, key)
	}
	known[key] = obj
	return nil
}
