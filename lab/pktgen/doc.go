// Package pktgen is svclab's packet-rate mode: it measures how many new
// flows per second the node's service rules forward, and the CPU each one
// costs, without a TCP stack on the sending side.
//
// Blast sends pre-built Ethernet/IPv4/TCP SYN frames from the client pod's
// eth0 over an AF_PACKET socket opened inside the client namespace, in
// batches of one sendmmsg call each. Frames are built once per target with
// gopacket; per packet only the source port, the sequence number and the
// TCP checksum (patched incrementally, RFC 1624) change. Source ports cycle
// through a range (1024-65535 by default), so within one conntrack epoch
// every SYN is a distinct 5-tuple and takes the node's nat table as a NEW
// connection.
//
// Conntrack: a SYN whose 5-tuple still has a live conntrack entry on the
// node (one in SYN_SENT, say, when the pod never answers) reuses that
// entry's NAT binding and skips the nat table, which would hide the rule
// lookup being measured. Blast therefore calls Spec.FlushConntrack (see
// FlushConntrackIn) before the first packet and every FlushEvery packets;
// source ports cycle on across flushes, so a port comes round only after a
// flush at least (port range - FlushEvery) packets after its last use.
// Without the hook Blast counts the packets that may have reused an entry
// in Result.RepeatedTuples. (The kernel itself deletes an entry whose only
// reply was an RST, and kills a closed entry when a SYN reopens it, so with
// pods that answer most repeats would be NEW anyway; the flush is what keeps
// the table from filling when closed entries linger for 10 s.)
// ConntrackUsage reads nf_conntrack_count and nf_conntrack_max in the node
// namespace so Measure can warn when the table could fill.
//
// Counting flows: the pods answer each SYN (a SYN-ACK, or an RST without a
// listener) and the client kernel answers a SYN-ACK with an RST, so a pod's
// rx_packets (RxCounter) counts more than flows. SynCounter counts flows
// instead: an AF_PACKET socket on the pod's eth0, bound to IPv4 only, whose
// classic BPF filter accepts only TCP segments with SYN set and ACK clear.
// It never reads a packet: its tiny receive buffer fills at once and the
// kernel counts every further match as a drop, and PACKET_STATISTICS
// returns accepted plus dropped matches. "Flows forwarded" is the sum of
// those counts over the backend pods (and the sink) during a blast.
//
// Measure offers a series of doubling rates, then bisects between the last
// good and the first bad rate, and returns the knee: the most flows per
// second forwarded with less than MaxLoss (5%) lost, where loss compares the
// flows counted at the pods with the rate offered over the blast's time. The
// CPU per packet is the machine-wide system plus softirq time from
// /proc/stat over each step divided by the flows forwarded: it includes the
// sender's own sendmmsg work, the pods' answers (and the client's handling
// of them) and anything else running on the machine, so keep the machine
// otherwise idle; Measure subtracts the load it finds on the idle machine
// just before the first step. /proc/stat counts in clock ticks (10 ms), so
// a step needs a few hundred milliseconds for the figure to mean much.
//
// On veth, the receive softirq of a sent frame mostly runs at once on the
// sender's CPU (and the pod's veth on the same), so the sender slows down as
// the node's per-packet cost grows: saturation shows as the sender falling
// behind the offered rate as well as, past the backlog, as frames refused
// (Result.Dropped). Loss counts both.
package pktgen
