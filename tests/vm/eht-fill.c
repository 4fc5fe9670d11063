// SPDX-License-Identifier: GPL-2.0
/*
 * eht-fill: fill the host table of a tracing eht-hosts directly, to test its snapshots of
 * a nearly full table without sending thousands of reports.
 *
 *   eht-fill MAP STABLE [CHURN STOPFILE [GROUP]]
 *
 * Writes STABLE rows into the pinned hosts map MAP: port "fill", group 239.9.0.1, hosts
 * 10.200.X.Y (0 to STABLE - 1), INCLUDE, cookie 1000000 + i, in a namespace and on an
 * ifindex no real port has. Then prints "filled" (flushed). With CHURN, it then keeps
 * adding and deleting CHURN more rows (group 239.9.0.GROUP, default 2) as fast as it can
 * until STOPFILE exists, deletes them, and prints how many rounds it made. Several can
 * churn at once with different GROUPs. Exit 0, or 1 on an error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "bpf/eht_abi.h"

#define FAKE_NETNS 1
#define FAKE_IFINDEX 999999

static void row(__u32 i, __u8 group_last, struct eht_key *k, struct eht_host *v)
{
	const __u8 group[4] = { 239, 9, 0, group_last };

	memset(k, 0, sizeof(*k));
	memset(v, 0, sizeof(*v));
	k->netns = FAKE_NETNS;
	k->ifindex = FAKE_IFINDEX;
	k->proto = EHT_PROTO_IPV4;
	memcpy(k->group, group, 4);
	k->host[0] = 10;
	k->host[1] = 200;
	k->host[2] = i >> 8;
	k->host[3] = i & 0xff;
	v->cookie = 1000000 + i;
	v->mode = EHT_MODE_INCLUDE;
	v->sources = 1;
	v->reports = 1;
	strcpy(v->port, "fill");
}

static int put(int fd, __u32 i, __u8 group_last)
{
	struct eht_key k;
	struct eht_host v;

	row(i, group_last, &k, &v);
	if (bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST)) {
		fprintf(stderr, "eht-fill: adding row %u: %s\n", i, strerror(errno));
		return -1;
	}
	return 0;
}

static int del(int fd, __u32 i, __u8 group_last)
{
	struct eht_key k;
	struct eht_host v;

	row(i, group_last, &k, &v);
	if (bpf_map_delete_elem(fd, &k)) {
		fprintf(stderr, "eht-fill: deleting row %u: %s\n", i, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long stable, churn = 0, rounds = 0, group = 2;
	const char *stop = NULL;
	int fd;

	if (argc < 3 || argc == 4 || argc > 6) {
		fprintf(stderr, "usage: eht-fill MAP STABLE [CHURN STOPFILE [GROUP]]\n");
		return 2;
	}
	stable = strtol(argv[2], NULL, 10);
	if (argc >= 5) {
		churn = strtol(argv[3], NULL, 10);
		stop = argv[4];
	}
	if (argc == 6)
		group = strtol(argv[5], NULL, 10);
	if (stable < 0 || stable > 65536 || churn < 0 || churn > 65536 || group < 2 || group > 255) {
		fprintf(stderr, "eht-fill: STABLE and CHURN go from 0 to 65536, GROUP from 2 to 255\n");
		return 2;
	}
	fd = bpf_obj_get(argv[1]);
	if (fd < 0) {
		fprintf(stderr, "eht-fill: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (long i = 0; i < stable; i++)
		if (put(fd, i, 1))
			return 1;
	printf("filled\n");
	fflush(stdout);
	while (stop && access(stop, F_OK)) {
		for (long i = 0; i < churn; i++)
			if (put(fd, i, group))
				return 1;
		for (long i = 0; i < churn; i++)
			if (del(fd, i, group))
				return 1;
		rounds++;
	}
	if (stop)
		printf("churned %ld rounds\n", rounds);
	return 0;
}
