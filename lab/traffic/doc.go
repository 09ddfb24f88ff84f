// Package traffic is the lab's client: it opens many TCP connections from a
// network namespace to a target (a ClusterIP or a pod), optionally speaks
// HTTP over them, and reports each connection as a Record while it runs.
//
// Connect latency is the time around the dial, which returns when the
// SYN-ACK arrives, so it includes the netfilter work done on the first
// packet of each new connection. Short connections are closed with
// SO_LINGER 0 (an RST) so the client keeps no TIME_WAIT sockets and does
// not run out of ephemeral ports over tens of thousands of connections.
// Each connection is bound to the next source port of one cycle over the
// range, so no 4-tuple recurs while conntrack remembers its last use and
// every connection is a new flow through the nat table.
package traffic
