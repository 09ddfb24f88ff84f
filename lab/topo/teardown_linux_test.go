package topo

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestTeardownRunsNewestFirstAndJoinsErrors(t *testing.T) {
	var td Teardown
	var order []string
	errB := errors.New("b failed")
	td.Push("a", func() error { order = append(order, "a"); return nil })
	td.Push("b", func() error { order = append(order, "b"); return errB })
	td.Push("c", func() error { order = append(order, "c"); panic("boom") })
	td.Push("d", func() error { order = append(order, "d"); return nil })
	if td.Len() != 4 {
		t.Fatalf("Len = %d, want 4", td.Len())
	}
	err := td.Run()
	if want := []string{"d", "c", "b", "a"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order = %v, want %v", order, want)
	}
	if !errors.Is(err, errB) || !strings.Contains(err.Error(), "remove b") || !strings.Contains(err.Error(), "remove c: panic: boom") {
		t.Errorf("Run error = %v, want b's error and c's panic, each naming its step", err)
	}
	if err := td.Run(); err != nil || td.Len() != 0 || len(order) != 4 {
		t.Errorf("second Run = %v with %d steps, ran %v; want nothing", err, td.Len(), order)
	}
}

func TestTeardownZeroValueRunsClean(t *testing.T) {
	var td Teardown
	if err := td.Run(); err != nil {
		t.Fatal(err)
	}
}
