// Package timeline runs a scenario's timeline on a lab node: it applies the
// plan's states (sim/timeline) at their times through an engine (the
// native renderer re-rendered and loaded on each change, or kube-proxy's
// own sync loop fed the object events), while traffic runs through the
// node: a steady stream of new TCP connections, one-way UDP senders (one
// socket, a fixed source port, like statsd), and probes of created
// Services. Every pod address the timeline ever uses is a lab pod from the
// start; a deleted pod's namespace stays as a sink that counts what still
// arrives there, so nothing sent to a deleted address is silently lost.
// The node's conntrack entries per Service are sampled every second.
//
// What the lab saw goes back to sim/timeline as observations, which turns
// them into the run's record. The package is Linux-only and privileged.
package timeline
