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
	key := svc.Namespace + "/" + svc.Name
	old, ok := d.store.services[key]
	switch {
	case action == kube.Add && !ok:
		d.proxier.OnServiceAdd(svc)
	case action == kube.Update && ok, action == kube.Add && ok:
		d.proxier.OnServiceUpdate(old, svc)
	case action == kube.Delete && ok:
		d.proxier.OnServiceDelete(old)
		delete(d.store.services, key)
		return nil
	default:
		return fmt.Errorf("%s service %s: not known to the proxier", action, key)
	}
	d.store.services[key] = svc
	return nil
}

func (d *Driver) applySlice(action string, es *discoveryv1.EndpointSlice) error {
	key := es.Namespace + "/" + es.Name
	old, ok := d.store.slices[key]
	switch {
	case action == kube.Add && !ok:
		d.proxier.OnEndpointSliceAdd(es)
	case action == kube.Update && ok, action == kube.Add && ok:
		d.proxier.OnEndpointSliceUpdate(old, es)
	case action == kube.Delete && ok:
		d.proxier.OnEndpointSliceDelete(old)
		delete(d.store.slices, key)
		return nil
	default:
		return fmt.Errorf("%s endpoint slice %s: not known to the proxier", action, key)
	}
	d.store.slices[key] = es
	return nil
}
