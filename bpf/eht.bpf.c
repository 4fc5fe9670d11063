// SPDX-License-Identifier: GPL-2.0
/*
 * eht: the bridge's explicit host tracking (IGMPv3/MLDv2), host by host.
 *
 * One raw_tp program per bare tracepoint of bareatom's kernel patch
 * (include/trace/events/bridge_eht.h). They read the bridge's objects with
 * CO-RE and keep one `hosts` entry per (port, group, host): its filter mode,
 * how many sources it asked for, how many changes its reports made, and a
 * cookie drawn the first time it was seen.
 *
 * All EHT events of one bridge happen under its multicast_lock, so the events
 * of one host never race with each other; the adds are atomic anyway because
 * user space reads the entries while they change and the .bss counters are
 * shared by all bridges and CPUs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "bpf/atomics.h"
#include "bpf/eht_abi.h"

#define EEXIST 17

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EHT_MAX_HOSTS);
	__type(key, struct eht_key);
	__type(value, struct eht_host);
} hosts SEC(".maps");

/*
 * The hosts that did not fit in `hosts`: each is counted in stats.lost once, the first
 * time, and not again at each of its later events (every one tries to store it anew).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EHT_MAX_HOSTS);
	__type(key, struct eht_key);
	__type(value, __u8);
} lost_hosts SEC(".maps");

struct eht_stats stats;
/* Cookies handed out so far; the next one is this plus one. */
__u64 cookie_seq;
/* Set by user space: the pid of the eht-hosts that owns the pins (stale-pin check). */
__u32 owner_pid;

/*
 * A host's first-seen cookie: one atomic fetch-add on the .bss counter, so cookies
 * start at 1 and never repeat within one run, on any CPU.
 */
static __always_inline __u64 eht_cookie(void)
{
	return atomic_fetch_add(&cookie_seq, 1) + 1;
}

static __always_inline void count_event(const int ev)
{
	atomic_add(&stats.events[ev], 1);
}

/* The port group's part of the key: netns, port, family, VLAN and group. */
static __always_inline struct net_device *fill_key(struct eht_key *k,
						   struct net_bridge_port_group *pg)
{
	struct net_device *dev = BPF_CORE_READ(pg, key.port, dev);

	k->netns = BPF_CORE_READ(dev, nd_net.net, ns.inum);
	k->ifindex = BPF_CORE_READ(dev, ifindex);
	k->proto = bpf_ntohs(BPF_CORE_READ(pg, key.addr.proto));
	k->vid = BPF_CORE_READ(pg, key.addr.vid);
	BPF_CORE_READ_INTO(&k->group, pg, key.addr.dst);
	return dev;
}

/* IPv4 addresses use the first 4 of the 16 bytes: clear the rest of the unions. */
static __always_inline void trim_key(struct eht_key *k)
{
	if (k->proto != EHT_PROTO_IPV4)
		return;
	__builtin_memset(&k->group[4], 0, 12);
	__builtin_memset(&k->host[4], 0, 12);
}

static __always_inline bool addr_is_zero(const __u64 a[2])
{
	return !(a[0] | a[1]);
}

/* Does this set entry name a real source (not the zero source of an EXCLUDE host)? */
static __always_inline bool entry_has_source(struct net_bridge_group_eht_set_entry *set_h)
{
	__u64 src[2] = {};

	BPF_CORE_READ_INTO(&src, set_h, eht_set, src_addr);
	return !addr_is_zero(src);
}

/* The host's set entries with a non-zero source, walking its set_entries list. */
static __always_inline __u32 count_sources(struct net_bridge_group_eht_host *h, __u8 *flags)
{
	__u64 off = bpf_core_field_offset(struct net_bridge_group_eht_set_entry, host_list);
	struct hlist_node *n = BPF_CORE_READ(h, set_entries.first);
	__u32 cnt = 0;

	for (int i = 0; i < EHT_WALK_MAX && n; i++) {
		if (entry_has_source((void *)n - off))
			cnt++;
		n = BPF_CORE_READ(n, next);
	}
	if (n)
		*flags |= EHT_HOST_TRUNCATED;
	return cnt;
}

static __always_inline struct eht_host *store_host(struct eht_key *k, struct net_device *dev,
						    __u8 mode, __u32 sources, __u8 flags,
						    __u64 update_flags)
{
	struct eht_host v = {};
	__u64 now = bpf_ktime_get_ns();
	int err;

	v.cookie = eht_cookie();
	v.first_ns = now;
	v.last_change_ns = now;
	v.mode = mode;
	v.sources = sources;
	v.flags = flags;
	BPF_CORE_READ_STR_INTO(&v.port, dev, name);
	/*
	 * 6.1 inlines the update into a call of the map's int-returning op, so the upper half
	 * of the result is not a sign extension (-EEXIST reads 0xffffffef): compare the int.
	 */
	err = (int)bpf_map_update_elem(&hosts, k, &v, update_flags);
	if (err && err != -EEXIST) {
		__u8 one = 1;

		/* Only -EEXIST says it was counted: when lost_hosts is full too, count anyway. */
		if ((int)bpf_map_update_elem(&lost_hosts, k, &one, BPF_NOEXIST) != -EEXIST)
			atomic_add(&stats.lost, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&hosts, k);
}

/*
 * The entry of a host, or a new one for a host that existed before tracing began
 * (its sources counted from the kernel's list, which already holds the entry being
 * created). *adopted tells the caller the list was just counted.
 */
static __always_inline struct eht_host *lookup_or_adopt(struct eht_key *k, struct net_device *dev,
							 struct net_bridge_group_eht_host *h,
							 bool *adopted)
{
	struct eht_host *v = bpf_map_lookup_elem(&hosts, k);
	__u8 flags = EHT_HOST_ADOPTED;
	__u32 sources;

	*adopted = false;
	if (v)
		return v;
	sources = count_sources(h, &flags);
	v = store_host(k, dev, BPF_CORE_READ(h, filter_mode), sources, flags, BPF_NOEXIST);
	if (v) {
		atomic_add(&stats.adopted, 1);
		*adopted = true;
	}
	return v;
}

SEC("raw_tp/br_eht_host_create")
int BPF_PROG(eht_host_create, struct net_bridge_port_group *pg,
	     struct net_bridge_group_eht_host *h)
{
	struct eht_key k = {};
	struct net_device *dev;

	count_event(EHT_EV_HOST_CREATE);
	dev = fill_key(&k, pg);
	BPF_CORE_READ_INTO(&k.host, h, h_addr);
	trim_key(&k);
	/* A new kernel object: a fresh entry even if a stale one was left behind. */
	store_host(&k, dev, BPF_CORE_READ(h, filter_mode), 0, 0, BPF_ANY);
	return 0;
}

SEC("raw_tp/br_eht_host_destroy")
int BPF_PROG(eht_host_destroy, struct net_bridge_port_group *pg,
	     struct net_bridge_group_eht_host *h)
{
	struct eht_key k = {};

	count_event(EHT_EV_HOST_DESTROY);
	fill_key(&k, pg);
	BPF_CORE_READ_INTO(&k.host, h, h_addr);
	trim_key(&k);
	bpf_map_delete_elem(&hosts, &k);
	return 0;
}

SEC("raw_tp/br_eht_host_filter_mode")
int BPF_PROG(eht_host_filter_mode, struct net_bridge_port_group *pg,
	     struct net_bridge_group_eht_host *h, int old_mode)
{
	struct eht_key k = {};
	struct net_device *dev;
	struct eht_host *v;
	bool adopted;

	count_event(EHT_EV_HOST_FILTER_MODE);
	dev = fill_key(&k, pg);
	BPF_CORE_READ_INTO(&k.host, h, h_addr);
	trim_key(&k);
	v = lookup_or_adopt(&k, dev, h, &adopted);
	if (!v)
		return 0;
	v->mode = BPF_CORE_READ(h, filter_mode);
	v->last_change_ns = bpf_ktime_get_ns();
	atomic_add(&v->reports, 1);
	return 0;
}

SEC("raw_tp/br_eht_set_entry_create")
int BPF_PROG(eht_set_entry_create, struct net_bridge_port_group *pg,
	     struct net_bridge_group_eht_set_entry *set_h)
{
	struct eht_key k = {};
	struct net_device *dev;
	struct eht_host *v;
	bool adopted;

	count_event(EHT_EV_SET_ENTRY_CREATE);
	dev = fill_key(&k, pg);
	BPF_CORE_READ_INTO(&k.host, set_h, h_addr);
	trim_key(&k);
	v = lookup_or_adopt(&k, dev, BPF_CORE_READ(set_h, h_parent), &adopted);
	if (!v)
		return 0;
	if (!adopted && entry_has_source(set_h))
		atomic_add(&v->sources, 1);
	v->last_change_ns = bpf_ktime_get_ns();
	atomic_add(&v->reports, 1);
	return 0;
}

SEC("raw_tp/br_eht_set_entry_delete")
int BPF_PROG(eht_set_entry_delete, struct net_bridge_port_group *pg,
	     struct net_bridge_group_eht_set_entry *set_h)
{
	struct eht_key k = {};
	struct eht_host *v;

	count_event(EHT_EV_SET_ENTRY_DELETE);
	fill_key(&k, pg);
	BPF_CORE_READ_INTO(&k.host, set_h, h_addr);
	trim_key(&k);
	/* A host not seen yet is adopted at its next create, which counts its list then. */
	v = bpf_map_lookup_elem(&hosts, &k);
	if (!v)
		return 0;
	if (entry_has_source(set_h))
		atomic_add(&v->sources, -1);
	v->last_change_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/br_eht_fast_leave")
int BPF_PROG(eht_fast_leave, struct net_bridge_port_group *pg)
{
	count_event(EHT_EV_FAST_LEAVE);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
