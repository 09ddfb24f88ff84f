//go:build ignore

/* svclb.c: svclab's eBPF service load balancers.
 *
 * svc_ingress and svc_egress run at tc (tcx, or clsact with cls_bpf in
 * direct-action mode) on the node-side veth of a client pod: ingress sees
 * what the client sends, egress what the node sends to it. Ingress looks
 * up ClusterIP:port:proto, picks a backend, remembers the flow and rewrites
 * the destination; egress rewrites the source of replies back to the
 * ClusterIP. A service without backends is rejected with ICMP port
 * unreachable, as kube-proxy's REJECT rule does.
 *
 * sock_connect4 is the socket-level variant (cgroup/connect4): it rewrites
 * the address a socket connects to, so packets carry the backend from the
 * start and need no reverse translation. */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include "svclb.h"

char __license[] SEC("license") = "Dual BSD/GPL";

#define IP_OFF ETH_HLEN
#define L4_OFF (ETH_HLEN + sizeof(struct iphdr))
#define IP_CSUM_OFF (IP_OFF + 10)
#define IP_SRC_OFF (IP_OFF + 12)
#define IP_DST_OFF (IP_OFF + 16)
#define TCP_CSUM_OFF (L4_OFF + 16)
#define UDP_CSUM_OFF (L4_OFF + 6)
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10
#define ECONNREFUSED 111
#define AF_INET 2
#define ICMP_DEST_UNREACH 3
#define ICMP_PORT_UNREACH 3

/* icmphdr is an ICMP destination-unreachable header (linux/icmp.h pulls in
 * libc headers that do not build for the BPF target). */
struct icmphdr {
	__u8 type;
	__u8 code;
	__u16 checksum;
	__u32 unused;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_FLOWS);
	__type(key, struct flow_key);
	__type(value, struct flow_val);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_FLOWS);
	__type(key, struct flow_key);
	__type(value, struct flow_val);
} rev_flows SEC(".maps");

/* pkt is what the tc programs read from a packet before rewriting it. */
struct pkt {
	struct flow_key k;
	__u32 seq; /* TCP sequence number, network byte order */
	__u8 tcp_flags;
};

/* parse fills p from an IPv4 TCP or UDP packet without options or
 * fragments. Returns 0 when the packet is one the balancer handles. */
static __always_inline int parse(struct __sk_buff *skb, struct pkt *p)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + IP_OFF;
	__u8 *l4 = data + L4_OFF;

	if ((void *)(l4 + 8) > end)
		return -1;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || ip->ihl != 5)
		return -1;
	if (ip->frag_off & bpf_htons(0x3fff))
		return -1;
	if (ip->protocol != IPPROTO_TCP && ip->protocol != IPPROTO_UDP)
		return -1;
	if (ip->protocol == IPPROTO_TCP && (void *)(l4 + 20) > end)
		return -1;
	p->k.saddr = ip->saddr;
	p->k.daddr = ip->daddr;
	p->k.sport = *(__u16 *)l4;
	p->k.dport = *(__u16 *)(l4 + 2);
	p->k.proto = ip->protocol;
	if (ip->protocol == IPPROTO_TCP) {
		p->seq = *(__u32 *)(l4 + 4);
		p->tcp_flags = l4[13];
	}
	return 0;
}

/* rewrite replaces one address and port (the destination when dst is set,
 * else the source) and fixes the IP and L4 checksums. */
static __always_inline int rewrite(struct __sk_buff *skb, __u8 proto, int dst, __u32 old_ip, __u32 new_ip,
				   __u16 old_port, __u16 new_port)
{
	__u32 csum_off = proto == IPPROTO_TCP ? TCP_CSUM_OFF : UDP_CSUM_OFF;
	__u64 mangled = proto == IPPROTO_UDP ? BPF_F_MARK_MANGLED_0 : 0;
	__u32 ip_off = dst ? IP_DST_OFF : IP_SRC_OFF;
	__u32 port_off = dst ? L4_OFF + 2 : L4_OFF;

	if (bpf_l4_csum_replace(skb, csum_off, old_ip, new_ip, BPF_F_PSEUDO_HDR | mangled | 4))
		return -1;
	if (bpf_l4_csum_replace(skb, csum_off, old_port, new_port, mangled | 2))
		return -1;
	if (bpf_l3_csum_replace(skb, IP_CSUM_OFF, old_ip, new_ip, 4))
		return -1;
	if (bpf_skb_store_bytes(skb, ip_off, &new_ip, 4, 0))
		return -1;
	return bpf_skb_store_bytes(skb, port_off, &new_port, 2, 0);
}

static __always_inline __u16 csum_fold(__u32 csum)
{
	csum = (csum & 0xffff) + (csum >> 16);
	csum = (csum & 0xffff) + (csum >> 16);
	return (__u16)~csum;
}

/* icmp_reply is the whole reply reject builds: Ethernet, IPv4, ICMP and the
 * offending packet's IPv4 header with the start of its payload: 8 bytes for
 * UDP, the 20-byte TCP header for TCP (a partly checksummed TCP packet may
 * not be cut shorter than its checksum field). */
struct icmp_reply {
	struct ethhdr eth;
	__u16 pad;
	struct iphdr ip;
	struct icmphdr icmp;
	__u8 orig[40];
};

/* reject turns the packet into an ICMP port unreachable for its sender and
 * sends it back out of the interface it came in on. */
static __always_inline int reject(struct __sk_buff *skb, __u8 proto)
{
	struct icmp_reply r = {};
	__u8 macs[12];
	__u32 olen = proto == IPPROTO_TCP ? 40 : 28;

	if (bpf_skb_load_bytes(skb, 0, macs, sizeof(macs)) || bpf_skb_load_bytes(skb, IP_OFF, r.orig, olen))
		return TC_ACT_SHOT;
	__builtin_memcpy(r.eth.h_dest, macs + 6, ETH_ALEN);
	__builtin_memcpy(r.eth.h_source, macs, ETH_ALEN);
	r.eth.h_proto = bpf_htons(ETH_P_IP);
	struct iphdr *orig = (struct iphdr *)r.orig;
	r.ip.version = 4;
	r.ip.ihl = 5;
	r.ip.tot_len = bpf_htons(sizeof(r.ip) + sizeof(r.icmp) + olen);
	r.ip.ttl = 64;
	r.ip.protocol = IPPROTO_ICMP;
	r.ip.saddr = orig->daddr;
	r.ip.daddr = orig->saddr;
	r.ip.check = csum_fold(bpf_csum_diff(0, 0, (__be32 *)&r.ip, sizeof(r.ip), 0));
	r.icmp.type = ICMP_DEST_UNREACH;
	r.icmp.code = ICMP_PORT_UNREACH;
	r.icmp.checksum = csum_fold(bpf_csum_diff(0, 0, (__be32 *)&r.icmp, sizeof(r.icmp) + olen, 0));

	if (bpf_skb_change_tail(skb, ETH_HLEN + olen, 0))
		return TC_ACT_SHOT;
	if (bpf_skb_adjust_room(skb, sizeof(r.ip) + sizeof(r.icmp), BPF_ADJ_ROOM_MAC, 0))
		return TC_ACT_SHOT;
	if (bpf_skb_store_bytes(skb, 0, &r.eth, ETH_HLEN, 0))
		return TC_ACT_SHOT;
	if (bpf_skb_store_bytes(skb, IP_OFF, &r.ip, sizeof(r.ip) + sizeof(r.icmp) + olen, 0))
		return TC_ACT_SHOT;
	return bpf_redirect(skb->ifindex, 0);
}

/* reverse_of is the key egress sees for replies of the flow k once its
 * destination became be. */
static __always_inline void reverse_of(const struct flow_key *k, const struct flow_val *be, struct flow_key *r)
{
	r->saddr = be->ip;
	r->sport = be->port;
	r->daddr = k->saddr;
	r->dport = k->sport;
	r->proto = k->proto;
}

/* forget drops stale reverse state of a flow that does not go to a
 * service, so a client port reused for a direct connection to a backend is
 * not translated back to an old ClusterIP. */
static __always_inline void forget(const struct pkt *p)
{
	struct flow_key r = {.saddr = p->k.daddr, .sport = p->k.dport, .daddr = p->k.saddr, .dport = p->k.sport,
			     .proto = p->k.proto};
	bpf_map_delete_elem(&rev_flows, &r);
}

SEC("tc")
int svc_ingress(struct __sk_buff *skb)
{
	struct pkt p = {};
	if (parse(skb, &p))
		return TC_ACT_OK;
	struct svc_key sk = {.vip = p.k.daddr, .port = p.k.dport, .proto = p.k.proto};
	struct svc_val *sv = bpf_map_lookup_elem(&services, &sk);
	__u8 syn = (p.tcp_flags & (TCP_SYN | TCP_ACK)) == TCP_SYN;
	if (!sv) {
		if (syn || p.k.proto == IPPROTO_UDP)
			forget(&p);
		return TC_ACT_OK;
	}

	struct flow_val be = {};
	struct flow_val *known = bpf_map_lookup_elem(&flows, &p.k);
	/* A SYN starts a new flow, even on a reused client port, unless it
	 * retransmits the one the flow began with. */
	if (known && syn && known->isn != p.seq)
		known = 0;
	if (known) {
		be = *known;
	} else {
		/* Only new flows are rejected, as kube-proxy's REJECT rules match
		 * conntrack state NEW: a flow keeps its backend after the
		 * service loses its endpoints. */
		if (sv->count == 0)
			return reject(skb, p.k.proto);
		/* Only a flow's opening packet is a new connection: a TCP packet
		 * of a flow whose entry is gone is sent on, not counted. */
		if (pick_backend(sv, p.k.saddr, &be, syn || p.k.proto == IPPROTO_UDP))
			return TC_ACT_SHOT;
		be.isn = p.seq;
		struct flow_key r = {};
		struct flow_val vip = {.ip = p.k.daddr, .port = p.k.dport};
		reverse_of(&p.k, &be, &r);
		bpf_map_update_elem(&flows, &p.k, &be, BPF_ANY);
		bpf_map_update_elem(&rev_flows, &r, &vip, BPF_ANY);
	}
	if (rewrite(skb, p.k.proto, 1, p.k.daddr, be.ip, p.k.dport, be.port))
		return TC_ACT_SHOT;
	if ((p.tcp_flags & TCP_RST) && bpf_ntohl(p.seq) - bpf_ntohl(be.isn) < RST_WINDOW) {
		/* svclab's clients close with RST: the flow ends here. An RST of
		 * an older connection on the same client port, processed after the
		 * new connection's SYN (they can sit on two CPUs' backlogs), must
		 * not end the new flow: its sequence number is not just past the
		 * new flow's initial one. */
		struct flow_key r = {};
		reverse_of(&p.k, &be, &r);
		bpf_map_delete_elem(&flows, &p.k);
		bpf_map_delete_elem(&rev_flows, &r);
	}
	return TC_ACT_OK;
}

SEC("tc")
int svc_egress(struct __sk_buff *skb)
{
	struct pkt p = {};
	if (parse(skb, &p))
		return TC_ACT_OK;
	struct flow_val *vip = bpf_map_lookup_elem(&rev_flows, &p.k);
	if (!vip)
		return TC_ACT_OK;
	struct flow_val v = *vip;
	if (rewrite(skb, p.k.proto, 0, p.k.saddr, v.ip, p.k.sport, v.port))
		return TC_ACT_SHOT;
	if (p.tcp_flags & TCP_RST) {
		struct flow_key f = {.saddr = p.k.daddr, .sport = p.k.dport, .daddr = v.ip, .dport = v.port,
				     .proto = p.k.proto};
		bpf_map_delete_elem(&rev_flows, &p.k);
		bpf_map_delete_elem(&flows, &f);
	}
	return TC_ACT_OK;
}

SEC("cgroup/connect4")
int sock_connect4(struct bpf_sock_addr *ctx)
{
	__u32 zero = 0;
	struct config *cfg = bpf_map_lookup_elem(&config, &zero);
	__u64 cookie = bpf_get_netns_cookie(ctx);

	if (ctx->user_family != AF_INET)
		return 1;
	if (cfg && cfg->netns_cookie && cfg->netns_cookie != cookie)
		return 1;
	if (ctx->protocol != IPPROTO_TCP && ctx->protocol != IPPROTO_UDP)
		return 1;
	struct svc_key sk = {.vip = ctx->user_ip4, .port = (__u16)ctx->user_port, .proto = (__u8)ctx->protocol};
	struct svc_val *sv = bpf_map_lookup_elem(&services, &sk);
	if (!sv)
		return 1;
	if (sv->count == 0) {
		bpf_set_retval(-ECONNREFUSED);
		return 0;
	}
	struct flow_val be = {};
	if (pick_backend(sv, cookie, &be, 1)) {
		bpf_set_retval(-ECONNREFUSED);
		return 0;
	}
	ctx->user_ip4 = be.ip;
	ctx->user_port = be.port;
	return 1;
}
