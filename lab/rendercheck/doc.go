// Package rendercheck holds the real-kernel acceptance tests of svclab's
// renderers: each scenario is rendered by the sim renderer, checked with
// the kernel tool's dry run, loaded into a scratch network namespace, loaded
// again over itself, listed back and compared with the rendered input.
package rendercheck
