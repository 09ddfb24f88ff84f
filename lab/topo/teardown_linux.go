package topo

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/svclab/svclab/lab/netns"
)

// Teardown is a LIFO stack of undo steps, pushed as each object is created
// and run in reverse order to remove them. The zero value is ready to use and
// it is safe for concurrent use.
type Teardown struct {
	mu    sync.Mutex
	steps []teardownStep
}

type teardownStep struct {
	name string
	undo func() error
}

// Push registers undo, which removes the object called name.
func (td *Teardown) Push(name string, undo func() error) {
	td.mu.Lock()
	defer td.mu.Unlock()
	td.steps = append(td.steps, teardownStep{name: name, undo: undo})
}

// Len reports how many undo steps are waiting.
func (td *Teardown) Len() int {
	td.mu.Lock()
	defer td.mu.Unlock()
	return len(td.steps)
}

// Run pops and runs every step, newest first, even after one fails or
// panics, and returns their errors joined. The stack is empty afterwards,
// so a second Run does nothing and returns nil.
func (td *Teardown) Run() error {
	td.mu.Lock()
	steps := td.steps
	td.steps = nil
	td.mu.Unlock()
	var errs []error
	for i := len(steps) - 1; i >= 0; i-- {
		if err := runStep(steps[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runStep runs one undo step and turns a panic into an error, so teardown
// finishes even from a deferred recover path.
func runStep(step teardownStep) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("remove %s: panic: %v", step.name, r)
		}
	}()
	if err := step.undo(); err != nil {
		return fmt.Errorf("remove %s: %w", step.name, err)
	}
	return nil
}

// createRegistered creates the named namespace with its removal registered
// on td first, so a namespace is never created unrecorded. A namespace that
// already existed (someone else's) is not removed.
func createRegistered(td *Teardown, name string) error {
	theirs := false
	td.Push("netns "+name, func() error {
		if theirs {
			return nil
		}
		return netns.Delete(name)
	})
	err := netns.Create(name)
	theirs = errors.Is(err, os.ErrExist)
	return err
}
