// Package machine says what a lab run asks of the host it runs on: a
// Machine builds a Lab (a node, a client, pods and their servers) from a
// LabSpec, reads the machine-wide CPU time and kernel memory, and holds a
// run's claim. lab/runner's Kernel is the real machine, lab/labfake's
// Machine a simulated one; the measurements (lab/sweep,
// lab/fairness) are written against these interfaces only.
package machine
