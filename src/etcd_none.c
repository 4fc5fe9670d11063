// SPDX-License-Identifier: GPL-2.0
/*
 * etcd.h without an etcd client, for make static's cookie-gend: Debian ships no static
 * libcurl (nor static builds of what it links: nghttp2, ssh2, gssapi, ldap, ...), so the
 * static file refuses --etcd with a usage error that says to use the packaged cookie-gend.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "src/etcd.h"

int etcd_open(struct etcd *e, const char *urls, long timeout_ms)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->err, sizeof(e->err), "this cookie-gend is make static's, built without "
		 "libcurl (Debian has no static libcurl): use the packaged cookie-gend for --etcd");
	return -EINVAL;
}

void etcd_close(struct etcd *e)
{
}

int etcd_grant(struct etcd *e, int64_t ttl, int64_t *lease, int64_t *granted_ttl)
{
	return -EHOSTUNREACH;
}

int etcd_keepalive(struct etcd *e, int64_t lease, int64_t *ttl)
{
	return -EHOSTUNREACH;
}

int etcd_revoke(struct etcd *e, int64_t lease)
{
	return -EHOSTUNREACH;
}

int etcd_list(struct etcd *e, const char *prefix, struct etcd_kv *kvs, int max, int *n)
{
	*n = 0;
	return -EHOSTUNREACH;
}

void etcd_txn_cmp(struct etcd_txn *t, const char *key, enum etcd_target target, int64_t v)
{
}

void etcd_txn_put(struct etcd_txn *t, bool success, const char *key, const char *value, int64_t lease)
{
}

void etcd_txn_get(struct etcd_txn *t, bool success, const char *key)
{
}

int etcd_txn_run(struct etcd *e, const struct etcd_txn *t, bool *succeeded, int64_t *rev,
		 struct etcd_kv *kvs, int max)
{
	return -EHOSTUNREACH;
}
