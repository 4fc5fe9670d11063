/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by eht.bpf.c and src/eht-hosts.c: the bridge EHT host table and the
 * per-event counters.
 *
 * The bridge's IGMPv3/MLDv2 explicit host tracking (net/bridge/br_multicast_eht.c,
 * active on ports with fast leave on) keeps, per port group, one entry per
 * reporting host with its filter mode and one (source, host) set entry per
 * source it reported; an EXCLUDE host also gets a set entry for the all-zero
 * source. The BPF programs mirror that per host into the `hosts` map from the
 * bare tracepoints of bareatom's kernel patch.
 */
#ifndef __BAREATOM_EHT_ABI_H
#define __BAREATOM_EHT_ABI_H

#define EHT_MAX_HOSTS		16384
/* Longest host set-entry list walked when adopting a host (PG_SRC_ENT_LIMIT is 32). */
#define EHT_WALK_MAX		64
#define EHT_IFNAMSIZ		16

/* The kernel's filter modes (MCAST_EXCLUDE and MCAST_INCLUDE in linux/in.h). */
#define EHT_MODE_EXCLUDE	0
#define EHT_MODE_INCLUDE	1

/* Ethernet protocol numbers of the group's family (host byte order). */
#define EHT_PROTO_IPV4		0x0800
#define EHT_PROTO_IPV6		0x86DD

/*
 * One host of one port group. A port group is (bridge port, group, VLAN); the port is
 * named by its ifindex and network namespace (inode number), since ifindexes repeat
 * across namespaces. Addresses are 16 bytes; an IPv4 address takes the first four and
 * the rest are zero.
 */
struct eht_key {
	__u32 netns;		/* inode number of the port's network namespace */
	__u32 ifindex;		/* the bridge port */
	__u16 proto;		/* EHT_PROTO_IPV4 or EHT_PROTO_IPV6 */
	__u16 vid;		/* VLAN of the group, 0 without VLAN filtering */
	__u8 group[16];		/* the multicast group */
	__u8 host[16];		/* the reporting host: its source address */
};

/* Flags of a host. */
#define EHT_HOST_ADOPTED	0x1	/* existed before tracing began: reports counted since */
#define EHT_HOST_TRUNCATED	0x2	/* its set-entry list was too long to count in full */

struct eht_host {
	__u64 cookie;		/* drawn when the host was first seen; unique per run */
	__u64 first_ns;		/* bpf_ktime_get_ns() when first seen */
	__u64 last_change_ns;	/* bpf_ktime_get_ns() of its last event */
	__u64 reports;		/* set entries created + filter mode changes (atomic add) */
	__u32 sources;		/* its set entries with a non-zero source (atomic add) */
	__u8 mode;		/* EHT_MODE_INCLUDE or EHT_MODE_EXCLUDE */
	__u8 flags;		/* EHT_HOST_* */
	__u8 pad[2];
	char port[EHT_IFNAMSIZ];	/* the port's name when the host was first seen */
};

/* The tracepoints, in the order of eht_stats.events[]. */
enum eht_event {
	EHT_EV_HOST_CREATE,
	EHT_EV_HOST_DESTROY,
	EHT_EV_HOST_FILTER_MODE,
	EHT_EV_SET_ENTRY_CREATE,
	EHT_EV_SET_ENTRY_DELETE,
	EHT_EV_FAST_LEAVE,
	EHT_EV_NR,
};

/* In the program's .bss: everything added with atomic adds. */
struct eht_stats {
	__u64 events[EHT_EV_NR];	/* hits per tracepoint */
	__u64 adopted;		/* hosts first seen after their creation */
	__u64 lost;		/* hosts that could not be stored (map full), each once */
};

#endif /* __BAREATOM_EHT_ABI_H */
