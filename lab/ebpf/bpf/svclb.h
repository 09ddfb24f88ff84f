/* svclb.h: the maps and map types shared by svclab's tc and socket load
 * balancers. Addresses and ports are stored in network byte order. */
#ifndef SVCLB_H
#define SVCLB_H

#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* Default sizes; the Go loader resizes every map before loading. */
#define MAX_SERVICES 65536
#define MAX_BACKENDS 262144
#define MAX_FLOWS 131072
/* An RST ends a TCP flow only when its sequence number is less than this
 * past the flow's initial one (16 MiB sent: svclab's connections send a
 * request); an unrelated flow's RST falls in that window 1 time in 256. */
#define RST_WINDOW (1U << 24)
#define MAX_AFFINITY 65536

/* A service port: ClusterIP, port and IP protocol. */
struct svc_key {
	__u32 vip;
	__u16 port;
	__u8 proto;
	__u8 pad;
};

/* A service port's backend list: backends[id, 0..count-1]. count 0 means
 * the service has no endpoints and is rejected. affinity_s > 0 turns on
 * ClientIP affinity with that timeout in seconds. */
struct svc_val {
	__u32 id;
	__u32 count;
	__u32 affinity_s;
	__u32 pad;
};

struct be_key {
	__u32 svc_id;
	__u32 slot;
};

/* A backend: address, port and its index in the counters map. */
struct be_val {
	__u32 ip;
	__u16 port;
	__u16 pad;
	__u32 counter;
};

/* A flow seen from one side: forward (client -> ClusterIP) or reverse
 * (backend -> client). */
struct flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

/* Forward flows map to the backend, reverse flows to the ClusterIP. isn is
 * the initial sequence number of a forward TCP flow, so a retransmitted SYN
 * keeps its backend while a new connection on a reused port chooses again. */
struct flow_val {
	__u32 ip;
	__u16 port;
	__u16 pad;
	__u32 isn;
};

/* Affinity is kept per client (its IPv4 address for tc, its network
 * namespace cookie for the socket LB) and service port. */
struct aff_key {
	__u64 client;
	__u32 svc_id;
	__u32 pad;
};

struct aff_val {
	__u64 last_ns;
	__u32 slot;
	__u32 ip;
	__u16 port;
	__u16 pad;
	__u32 pad2;
};

struct config {
	__u64 netns_cookie; /* socket LB: only this netns is balanced; 0: any */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_SERVICES);
	__type(key, struct svc_key);
	__type(value, struct svc_val);
} services SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_BACKENDS);
	__type(key, struct be_key);
	__type(value, struct be_val);
} backends SEC(".maps");

/* New connections per backend: the kernel's witness of the split. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MAX_BACKENDS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_AFFINITY);
	__type(key, struct aff_key);
	__type(value, struct aff_val);
} affinity SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct config);
} config SEC(".maps");

/* pick_backend chooses a backend of sv for client: the remembered one while
 * ClientIP affinity holds, else a uniform random slot. It counts a new
 * connection on the chosen backend when count is set. Returns 0 on success. */
static __always_inline int pick_backend(const struct svc_val *sv, __u64 client, struct flow_val *out, int count)
{
	struct be_key bk = {.svc_id = sv->id};
	struct aff_key ak = {.client = client, .svc_id = sv->id};
	struct be_val *be = 0;
	__u64 now = 0;

	if (sv->count == 0)
		return -1;
	if (sv->affinity_s) {
		now = bpf_ktime_get_ns();
		struct aff_val *av = bpf_map_lookup_elem(&affinity, &ak);
		if (av && now - av->last_ns < (__u64)sv->affinity_s * 1000000000ULL) {
			bk.slot = av->slot;
			be = bpf_map_lookup_elem(&backends, &bk);
			if (be && (be->ip != av->ip || be->port != av->port))
				be = 0; /* the endpoint is gone: choose again */
		}
	}
	if (!be) {
		bk.slot = bpf_get_prandom_u32() % sv->count;
		be = bpf_map_lookup_elem(&backends, &bk);
		if (!be)
			return -1;
	}
	if (sv->affinity_s) {
		struct aff_val nv = {.last_ns = now, .slot = bk.slot, .ip = be->ip, .port = be->port};
		bpf_map_update_elem(&affinity, &ak, &nv, BPF_ANY);
	}
	__u32 idx = be->counter;
	__u64 *cnt = count ? bpf_map_lookup_elem(&counters, &idx) : 0;
	if (cnt)
		*cnt += 1;
	out->ip = be->ip;
	out->port = be->port;
	return 0;
}

#endif
