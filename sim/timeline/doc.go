// Package timeline is the pure model of a scenario's timeline: it turns the
// events into the sequence of cluster states a node sees (Plan: explicit
// Services with their endpoints' conditions, the synthetic Service count,
// the pods deleted, kube-proxy's restarts), the object events kube-proxy
// receives for each (Step: kube.Op adds, updates and deletes, with the
// EndpointSlices' endpoints.kubernetes.io/last-change-trigger-time), and
// aggregates what the lab observed into per-second and per-event results
// (Aggregate): served by which endpoint, refused, timed out, lost,
// blackholed (reached a deleted pod's address), misdelivered (reached a
// live pod that was no endpoint then), and each event's programming
// latency as the probe measures it.
//
// Like all of sim/, it execs nothing and makes no syscalls: lab/runner
// runs the plan on a lab node and hands the observations back.
package timeline
