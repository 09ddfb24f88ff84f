// Package ipvstrace predicts what IPVS does with the first packet of a
// connection, from `ipvsadm -Sn` plus, optionally, the node's
// iptables-save and `ipset save`: which virtual server the packet hits
// (firewall mark first, then protocol, address and port, as ip_vs_in
// looks it up), and each real server's chance under the scheduler — rr
// and lc equal, wrr and wlc by weight, sh the one this source hashes to
// (the kernel's 256-bucket table and hash_32), mh by weight (its table
// depends on a per-boot key) — and whether the iptables rules accept and
// masquerade the packet.
//
// The package is pure: it never runs ipvsadm.
package ipvstrace
