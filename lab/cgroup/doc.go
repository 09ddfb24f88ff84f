// Package cgroup finds this host's cgroup hierarchies (a cgroup v1
// hierarchy by the controller it carries, or cgroup2) and the process's own
// group in each, moves the process between groups, and removes groups
// (waiting for processes still exiting, or killing a finished run's
// children first). It is the ground both groups svclab makes stand on: a
// run's memory group, which tells its own kernel memory from another
// process's (lab/procstat), and the cgroup2 group the ebpf-sock dataplane
// attaches its connect4 program to (lab/ebpf). Linux only; it reads /proc/self, and moving a process or
// making a group needs root.
package cgroup
