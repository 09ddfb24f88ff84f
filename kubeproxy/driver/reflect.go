package driver

import (
	"fmt"
	"reflect"
	"unsafe"
)

// setField sets the unexported field name of the struct *obj points to.
// It fails, naming the field and the type, if the field does not exist or
// value does not fit: kube-proxy renamed or retyped it, and the driver must
// be updated rather than silently keep a host-bound member.
func setField(obj any, name string, value any) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("set field %s: %T is not a pointer to a struct", name, obj)
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() {
		return fmt.Errorf("set field %s: %T has no such field (renamed in this kube-proxy version?)", name, obj)
	}
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	if value == nil {
		f.Set(reflect.Zero(f.Type()))
		return nil
	}
	val := reflect.ValueOf(value)
	if !val.Type().AssignableTo(f.Type()) {
		return fmt.Errorf("set field %s of %T: %s is not assignable to %s", name, obj, val.Type(), f.Type())
	}
	f.Set(val)
	return nil
}

// getField reads the unexported field name of the struct *obj points to.
func getField(obj any, name string) (any, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("get field %s: %T is not a pointer to a struct", name, obj)
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() {
		return nil, fmt.Errorf("get field %s: %T has no such field (renamed in this kube-proxy version?)", name, obj)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface(), nil
}

// setFields applies setField for each name/value pair, stopping at the
// first error.
func setFields(obj any, fields map[string]any) error {
	for name, value := range fields {
		if err := setField(obj, name, value); err != nil {
			return err
		}
	}
	return nil
}
