// Package trace holds what every tracer under it takes: the first packet
// of a connection (Packet). The tracers themselves are its subpackages:
// iptrace (iptables rules), nfttrace (an nftables ruleset), ipvstrace
// (IPVS virtual servers and the iptables rules around them) and hosttrace
// (iptables-nft and the host's own nftables tables walked as one);
// sim/analyze puts one front end over them.
package trace
