package main

import (
	"os"
	"testing"
)

// afterAll holds what the tests of this process set up once and must
// remove at its end (the svclab binary the end-to-end tests build).
var afterAll []func()

// TestMain runs the tests, then removes what afterAll names.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, f := range afterAll {
		f()
	}
	os.Exit(code)
}
