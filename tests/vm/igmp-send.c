// SPDX-License-Identifier: GPL-2.0
/*
 * igmp-send: send one IGMPv3 or MLDv2 membership report, built by hand, from an interface.
 *
 *   igmp-send [-n NETNS] [-S SYNCDEV] [-t SECS] -i IFACE [-s SRC] RECORD...
 *   RECORD:   TYPE GROUP [SOURCE...]
 *   TYPE:     is_in, is_ex, to_in, to_ex, allow, block (the six record types of RFC 3376
 *             and RFC 3810), join (= to_ex with no sources), leave (= to_in with none)
 *
 * The report goes out through a packet socket, so the host needs no address of its own
 * and its kernel sends nothing else: SRC (default: IFACE's first address of the family)
 * is what names the host to the bridge's explicit host tracking. IPv4 groups give an
 * IGMPv3 report to 224.0.0.22 (IP router alert option, TTL 1, TOS 0xc0), IPv6 groups an
 * MLDv2 report to ff02::16 (hop-by-hop router alert, hop limit 1); all records of one
 * report are of one family. Checksums are computed here.
 *
 * -n NETNS sends from inside a network namespace (a name under /run/netns or a path).
 * -S SYNCDEV waits, after sending, until the report has come up through SYNCDEV (opened
 * before switching namespace, e.g. the bridge the report goes to): the bridge snoops a
 * report before passing it up, so when igmp-send returns the bridge has processed it.
 * Exit status: 0 sent (and seen), 1 error or not seen within -t SECS (default 120: a report
 * comes up at once, and a loaded machine must not pass for one that lost it), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#define MAX_RECORDS 16
#define MAX_SOURCES 64
#define MAX_PKT 4096

struct record {
	int type;			/* IGMPv3/MLDv2 record type, 1..6 (the same numbers) */
	int family;
	uint8_t group[16];
	uint8_t src[MAX_SOURCES][16];
	int nsrc;
};

static const struct {
	const char *name;
	int type;
} types[] = {
	{ "is_in", 1 }, { "is_ex", 2 }, { "to_in", 3 }, { "to_ex", 4 }, { "allow", 5 },
	{ "block", 6 }, { "join", 4 }, { "leave", 3 },
};

static void usage(void)
{
	fprintf(stderr,
		"usage: igmp-send [-n NETNS] [-S SYNCDEV] [-t SECS] -i IFACE [-s SRC] TYPE GROUP [SOURCE...]...\n"
		"  TYPE: is_in is_ex to_in to_ex allow block, join (to_ex {}), leave (to_in {})\n");
	exit(2);
}

static int record_type(const char *s)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(s, types[i].name))
			return types[i].type;
	return 0;
}

/* Parse an address of either family into 16 bytes; returns the family or 0. */
static int parse_addr(const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	if (inet_pton(AF_INET, s, out) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, out) == 1)
		return AF_INET6;
	return 0;
}

static uint32_t sum16(const void *data, size_t len, uint32_t sum)
{
	const uint8_t *p = data;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* IPv4 header with router alert + IGMPv3 report. Returns the length. */
static size_t build_igmp(uint8_t *pkt, const uint8_t src[16], struct record *recs, int nrec)
{
	static const uint8_t all_routers[4] = { 224, 0, 0, 22 };
	uint8_t *ip = pkt, *igmp = pkt + 24, *p = igmp + 8;
	uint16_t csum;
	size_t len;

	for (int r = 0; r < nrec; r++) {
		p[0] = recs[r].type;
		p[1] = 0;				/* aux data len */
		put16(p + 2, recs[r].nsrc);
		memcpy(p + 4, recs[r].group, 4);
		p += 8;
		for (int i = 0; i < recs[r].nsrc; i++, p += 4)
			memcpy(p, recs[r].src[i], 4);
	}
	len = p - pkt;
	igmp[0] = 0x22;				/* IGMPv3 membership report */
	igmp[1] = 0;
	put16(igmp + 2, 0);
	put16(igmp + 4, 0);
	put16(igmp + 6, nrec);
	csum = fold(sum16(igmp, len - 24, 0));
	memcpy(igmp + 2, &csum, 2);

	ip[0] = 0x46;				/* version 4, 6 words: one option */
	ip[1] = 0xc0;				/* internetwork control */
	put16(ip + 2, len);
	put16(ip + 4, (uint16_t)(rand() & 0xffff));
	put16(ip + 6, 0x4000);			/* don't fragment */
	ip[8] = 1;				/* TTL */
	ip[9] = IPPROTO_IGMP;
	put16(ip + 10, 0);
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, all_routers, 4);
	ip[20] = 0x94;				/* router alert, copied */
	ip[21] = 4;
	put16(ip + 22, 0);
	csum = fold(sum16(ip, 24, 0));
	memcpy(ip + 10, &csum, 2);
	return len;
}

/* IPv6 header + hop-by-hop router alert + MLDv2 report. Returns the length. */
static size_t build_mld(uint8_t *pkt, const uint8_t src[16], struct record *recs, int nrec)
{
	static const uint8_t all_mld2[16] = { 0xff, 0x02, [15] = 0x16 };
	uint8_t *ip6 = pkt, *hbh = pkt + 40, *icmp = hbh + 8, *p = icmp + 8;
	uint8_t pseudo[40];
	uint16_t csum;
	size_t len, icmp_len;
	uint32_t sum;

	for (int r = 0; r < nrec; r++) {
		p[0] = recs[r].type;
		p[1] = 0;
		put16(p + 2, recs[r].nsrc);
		memcpy(p + 4, recs[r].group, 16);
		p += 20;
		for (int i = 0; i < recs[r].nsrc; i++, p += 16)
			memcpy(p, recs[r].src[i], 16);
	}
	len = p - pkt;
	icmp_len = p - icmp;
	icmp[0] = 143;				/* MLDv2 report */
	icmp[1] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 4, 0);
	put16(icmp + 6, nrec);

	/* Checksum over the pseudo-header: source, destination, length, next header. */
	memset(pseudo, 0, sizeof(pseudo));
	memcpy(pseudo, src, 16);
	memcpy(pseudo + 16, all_mld2, 16);
	pseudo[32] = icmp_len >> 24;
	pseudo[33] = icmp_len >> 16;
	pseudo[34] = icmp_len >> 8;
	pseudo[35] = icmp_len;
	pseudo[39] = IPPROTO_ICMPV6;
	sum = sum16(pseudo, sizeof(pseudo), 0);
	csum = fold(sum16(icmp, icmp_len, sum));
	memcpy(icmp + 2, &csum, 2);

	hbh[0] = IPPROTO_ICMPV6;		/* next header */
	hbh[1] = 0;				/* 8 bytes */
	hbh[2] = 5;				/* router alert */
	hbh[3] = 2;
	put16(hbh + 4, 0);			/* MLD */
	hbh[6] = 1;				/* PadN, 0 bytes */
	hbh[7] = 0;

	memset(ip6, 0, 40);
	ip6[0] = 0x60;
	put16(ip6 + 4, len - 40);
	ip6[6] = IPPROTO_HOPOPTS;
	ip6[7] = 1;				/* hop limit */
	memcpy(ip6 + 8, src, 16);
	memcpy(ip6 + 24, all_mld2, 16);
	return len;
}

/* IFACE's first address of @family, in the current network namespace. */
static int iface_addr(const char *ifname, int family, uint8_t out[16])
{
	struct ifaddrs *ifa, *i;
	int found = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i && found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family || strcmp(i->ifa_name, ifname))
			continue;
		memset(out, 0, 16);
		if (family == AF_INET)
			memcpy(out, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
		else
			memcpy(out, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		found = 0;
	}
	freeifaddrs(ifa);
	return found;
}

static int packet_socket(const char *ifname, uint16_t proto, struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(proto));

	if (fd < 0) {
		fprintf(stderr, "igmp-send: packet socket: %s\n", strerror(errno));
		return -1;
	}
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(proto);
	sll->sll_ifindex = if_nametoindex(ifname);
	if (!sll->sll_ifindex) {
		fprintf(stderr, "igmp-send: no interface %s\n", ifname);
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll))) {
		fprintf(stderr, "igmp-send: bind to %s: %s\n", ifname, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait until the exact packet comes in on the sync socket. */
static int wait_seen(int fd, const uint8_t *pkt, size_t len, double timeout)
{
	double end = now() + timeout;
	uint8_t buf[MAX_PKT];

	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = end - now();
		ssize_t n;

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0)
			continue;
		/* A short frame may come back padded to the Ethernet minimum. */
		if (from.sll_pkttype != PACKET_OUTGOING && (size_t)n >= len && !memcmp(buf, pkt, len))
			return 0;
	}
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *netns = NULL, *syncdev = NULL, *srcarg = NULL;
	static struct record recs[MAX_RECORDS];
	static uint8_t pkt[MAX_PKT];
	struct sockaddr_ll sll, ssll;
	int opt, nrec = 0, family = 0, fd, syncfd = -1;
	double timeout = 120;
	uint8_t src[16];
	uint16_t proto;
	size_t len;

	while ((opt = getopt(argc, argv, "+n:S:t:i:s:h")) != -1) {
		switch (opt) {
		case 'n': netns = optarg; break;
		case 'S': syncdev = optarg; break;
		case 't': timeout = atof(optarg); break;
		case 'i': ifname = optarg; break;
		case 's': srcarg = optarg; break;
		default: usage();
		}
	}
	if (!ifname || optind == argc || timeout <= 0)
		usage();

	/* Records: TYPE GROUP [SOURCE...], a TYPE word starts the next one. */
	for (int i = optind; i < argc;) {
		const char *word = argv[i];
		int t = record_type(word), f;
		struct record *r;

		if (!t) {
			fprintf(stderr, "igmp-send: '%s' is not a record type\n", argv[i]);
			usage();
		}
		if (nrec == MAX_RECORDS || i + 1 == argc) {
			fprintf(stderr, "igmp-send: %s\n", nrec == MAX_RECORDS ? "too many records" :
				"a record type needs a group");
			return 2;
		}
		r = &recs[nrec++];
		r->type = t;
		f = parse_addr(argv[i + 1], r->group);
		if (!f || (family && f != family)) {
			fprintf(stderr, "igmp-send: bad group '%s' (one family per report)\n", argv[i + 1]);
			return 2;
		}
		family = r->family = f;
		for (i += 2; i < argc && !record_type(argv[i]); i++) {
			if (r->nsrc == MAX_SOURCES || parse_addr(argv[i], r->src[r->nsrc]) != family) {
				fprintf(stderr, "igmp-send: bad source '%s'\n", argv[i]);
				return 2;
			}
			r->nsrc++;
		}
		if (r->nsrc && (!strcmp(word, "join") || !strcmp(word, "leave"))) {
			fprintf(stderr, "igmp-send: join and leave take no sources\n");
			return 2;
		}
	}
	proto = family == AF_INET ? ETH_P_IP : ETH_P_IPV6;

	/* The sync socket lives in our namespace (the bridge's); the sender in NETNS. */
	if (syncdev) {
		syncfd = packet_socket(syncdev, proto, &ssll);
		if (syncfd < 0)
			return 1;
	}
	if (netns) {
		char path[256];
		int nsfd;

		snprintf(path, sizeof(path), strchr(netns, '/') ? "%s" : "/run/netns/%s", netns);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0 || setns(nsfd, CLONE_NEWNET)) {
			fprintf(stderr, "igmp-send: cannot enter network namespace %s: %s\n", netns,
				strerror(errno));
			return 1;
		}
		close(nsfd);
	}
	if (srcarg) {
		if (parse_addr(srcarg, src) != family) {
			fprintf(stderr, "igmp-send: bad source address '%s' for this family\n", srcarg);
			return 2;
		}
	} else if (iface_addr(ifname, family, src)) {
		fprintf(stderr, "igmp-send: %s has no %s address: give one with -s\n", ifname,
			family == AF_INET ? "IPv4" : "IPv6");
		return 1;
	}

	srand((unsigned int)(now() * 1e6) ^ (unsigned int)getpid());
	len = family == AF_INET ? build_igmp(pkt, src, recs, nrec) : build_mld(pkt, src, recs, nrec);
	if (len > 1500) {
		fprintf(stderr, "igmp-send: report too long (%zu bytes)\n", len);
		return 2;
	}
	fd = packet_socket(ifname, proto, &sll);
	if (fd < 0)
		return 1;
	/* The group MAC of 224.0.0.22 or ff02::16. */
	sll.sll_halen = ETH_ALEN;
	if (family == AF_INET)
		memcpy(sll.sll_addr, "\x01\x00\x5e\x00\x00\x16", 6);
	else
		memcpy(sll.sll_addr, "\x33\x33\x00\x00\x00\x16", 6);
	if (sendto(fd, pkt, len, 0, (struct sockaddr *)&sll, sizeof(sll)) != (ssize_t)len) {
		fprintf(stderr, "igmp-send: send on %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	close(fd);
	if (syncfd >= 0 && wait_seen(syncfd, pkt, len, timeout)) {
		fprintf(stderr, "igmp-send: the report did not come up through %s within %g s\n",
			syncdev, timeout);
		return 1;
	}
	return 0;
}
