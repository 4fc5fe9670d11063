// SPDX-License-Identifier: GPL-2.0
/*
 * etcd's v3 JSON gateway through libcurl and json-c (etcd.h): the endpoints, one POST with
 * failover, and the lease, range and txn calls over it. Keys and values travel in base64
 * (etcd_b64.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include "src/etcd.h"
#include "src/etcd_b64.h"

#define REPLY_MAX	(1 << 20)	/* a bigger reply is not one of ours: refused */

struct reply {
	char *buf;
	size_t len;
	bool too_big;
};

static void seterr(struct etcd *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->err, sizeof(e->err), fmt, ap);
	va_end(ap);
}

int etcd_open(struct etcd *e, const char *urls, long timeout_ms)
{
	char *copy, *tok, *save = NULL;

	memset(e, 0, sizeof(*e));
	e->timeout_ms = timeout_ms;
	copy = strdup(urls);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(tok);
		const char *host = tok + 7;

		if (strncmp(tok, "http://", 7) || !*host || strpbrk(host, "/?#@ \t\n") ||
		    !strchr(host, ':')) {
			seterr(e, "'%s' is not an etcd endpoint: give http://HOST:PORT (plain http, "
			       "no path)", tok);
			goto bad;
		}
		if (e->nurls == ETCD_MAX_URLS) {
			seterr(e, "more than %d etcd endpoints", ETCD_MAX_URLS);
			goto bad;
		}
		e->urls[e->nurls] = strndup(tok, n);
		if (!e->urls[e->nurls++])
			goto bad;
	}
	if (!e->nurls) {
		seterr(e, "no etcd endpoint given");
		goto bad;
	}
	free(copy);
	e->curl = curl_easy_init();
	if (!e->curl) {
		seterr(e, "cannot set up libcurl");
		etcd_close(e);
		return -ENOMEM;
	}
	return 0;
bad:
	free(copy);
	etcd_close(e);
	return -EINVAL;
}

void etcd_close(struct etcd *e)
{
	for (int i = 0; i < e->nurls; i++)
		free(e->urls[i]);
	e->nurls = 0;
	if (e->curl)
		curl_easy_cleanup(e->curl);
	e->curl = NULL;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t len = size * n;
	char *nb;

	if (r->len + len > REPLY_MAX) {
		r->too_big = true;
		return 0;
	}
	nb = realloc(r->buf, r->len + len + 1);
	if (!nb)
		return 0;
	memcpy(nb + r->len, p, len);
	r->buf = nb;
	r->len += len;
	r->buf[r->len] = '\0';
	return len;
}

/* The value of @name in @o as an int64: etcd sends them as strings; absent is 0. */
static int64_t get_i64(json_object *o, const char *name)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, name, &v))
		return 0;
	if (json_object_is_type(v, json_type_string))
		return strtoll(json_object_get_string(v), NULL, 10);
	return json_object_get_int64(v);
}

/*
 * POST @body to @path on each endpoint in turn until one answers as etcd does; the parsed
 * reply in *out (the caller puts it). A streaming reply (keepalive) is {"result": ...}:
 * its first object is returned unwrapped.
 */
static int post(struct etcd *e, const char *path, json_object *body, json_object **out)
{
	const char *req = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
	int ret = -EHOSTUNREACH;

	for (int k = 0; k < e->nurls; k++) {
		int i = (e->cur + k) % e->nurls;
		struct reply r = { 0 };
		char url[256];
		long code = 0;
		CURLcode cc;
		json_object *o, *v;
		enum json_tokener_error jerr;

		snprintf(url, sizeof(url), "%s%s", e->urls[i], path);
		curl_easy_reset(e->curl);
		curl_easy_setopt(e->curl, CURLOPT_URL, url);
		curl_easy_setopt(e->curl, CURLOPT_POSTFIELDS, req);
		curl_easy_setopt(e->curl, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(e->curl, CURLOPT_WRITEDATA, &r);
		curl_easy_setopt(e->curl, CURLOPT_TIMEOUT_MS, e->timeout_ms);
		curl_easy_setopt(e->curl, CURLOPT_CONNECTTIMEOUT_MS, e->timeout_ms);
		curl_easy_setopt(e->curl, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(e->curl, CURLOPT_PROTOCOLS_STR, "http");
		curl_easy_setopt(e->curl, CURLOPT_NOPROXY, "*");
		cc = curl_easy_perform(e->curl);
		if (cc != CURLE_OK || r.too_big) {
			seterr(e, "%s: %s", e->urls[i], r.too_big ? "reply too large" : curl_easy_strerror(cc));
			free(r.buf);
			ret = r.too_big ? -EPROTO : -EHOSTUNREACH;
			continue;
		}
		curl_easy_getinfo(e->curl, CURLINFO_RESPONSE_CODE, &code);
		o = r.buf ? json_tokener_parse_verbose(r.buf, &jerr) : NULL;
		if (!o || !json_object_is_type(o, json_type_object)) {
			seterr(e, "%s%s answered HTTP %ld, not JSON: not etcd's v3 gateway?", e->urls[i],
			       path, code);
			json_object_put(o);
			free(r.buf);
			ret = -EPROTO;
			continue;
		}
		free(r.buf);
		if (json_object_object_get_ex(o, "result", &v) && json_object_is_type(v, json_type_object)) {
			json_object_get(v);
			json_object_put(o);
			o = v;
		}
		if (json_object_object_get_ex(o, "error", &v)) {
			json_object *m = NULL;

			json_object_object_get_ex(o, "message", &m);
			seterr(e, "%s: etcd: %s", e->urls[i], json_object_get_string(m ? m : v));
			json_object_put(o);
			ret = -EREMOTEIO;
			continue;	/* no leader here, maybe one elsewhere */
		}
		if (code != 200) {
			seterr(e, "%s%s answered HTTP %ld", e->urls[i], path, code);
			json_object_put(o);
			ret = -EPROTO;
			continue;
		}
		e->cur = i;
		*out = o;
		return 0;
	}
	return ret;
}

static void add_i64(json_object *o, const char *name, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	json_object_object_add(o, name, json_object_new_string(buf));
}

static void add_b64(json_object *o, const char *name, const char *s)
{
	size_t len = strlen(s);
	char *enc = malloc(4 * ((len + 2) / 3) + 1);

	if (!enc)
		return;
	etcd_b64_encode(s, len, enc);
	json_object_object_add(o, name, json_object_new_string(enc));
	free(enc);
}

/* One key of a range reply ("kvs" element) into @kv. 0, or -EPROTO. */
static int parse_kv(json_object *o, struct etcd_kv *kv)
{
	json_object *k, *v;
	long n;

	memset(kv, 0, sizeof(*kv));
	if (!json_object_object_get_ex(o, "key", &k))
		return -EPROTO;
	n = etcd_b64_decode(json_object_get_string(k), kv->key, sizeof(kv->key) - 1);
	if (n < 0)
		return -EPROTO;
	kv->key[n] = '\0';
	if (json_object_object_get_ex(o, "value", &v)) {
		n = etcd_b64_decode(json_object_get_string(v), kv->value, sizeof(kv->value) - 1);
		if (n < 0)
			return -EPROTO;
		kv->value_len = n;
		kv->value[n] = '\0';
	}
	kv->found = true;
	kv->create_rev = get_i64(o, "create_revision");
	kv->mod_rev = get_i64(o, "mod_revision");
	kv->version = get_i64(o, "version");
	kv->lease = get_i64(o, "lease");
	return 0;
}

/* The first kv of a range reply @o (none: kv->found false). */
static int first_kv(struct etcd *e, json_object *o, struct etcd_kv *kv)
{
	json_object *kvs;

	memset(kv, 0, sizeof(*kv));
	if (!json_object_object_get_ex(o, "kvs", &kvs) || !json_object_array_length(kvs))
		return 0;
	if (parse_kv(json_object_array_get_idx(kvs, 0), kv)) {
		seterr(e, "etcd sent a key or value that is not base64");
		return -EPROTO;
	}
	return 0;
}

/* A lease call: {"ID": @id} and/or {"TTL": @ttl} (each left out when 0) to @path; the reply in *out. */
static int lease_call(struct etcd *e, const char *path, int64_t id, int64_t ttl, json_object **out)
{
	json_object *req = json_object_new_object();
	int err;

	if (id)
		add_i64(req, "ID", id);
	if (ttl)
		add_i64(req, "TTL", ttl);
	err = post(e, path, req, out);
	json_object_put(req);
	return err;
}

int etcd_grant(struct etcd *e, int64_t ttl, int64_t *lease, int64_t *granted_ttl)
{
	json_object *o;
	int err = lease_call(e, "/v3/lease/grant", 0, ttl, &o);

	if (err)
		return err;
	*lease = get_i64(o, "ID");
	*granted_ttl = get_i64(o, "TTL");
	json_object_put(o);
	if (!*lease || *granted_ttl <= 0) {
		seterr(e, "etcd granted no lease");
		return -EPROTO;
	}
	return 0;
}

int etcd_keepalive(struct etcd *e, int64_t lease, int64_t *ttl)
{
	json_object *o;
	int err = lease_call(e, "/v3/lease/keepalive", lease, 0, &o);

	if (err)
		return err;
	*ttl = get_i64(o, "TTL");
	json_object_put(o);
	return 0;
}

int etcd_revoke(struct etcd *e, int64_t lease)
{
	json_object *o;
	int err = lease_call(e, "/v3/lease/revoke", lease, 0, &o);

	if (!err)
		json_object_put(o);
	return err;
}

int etcd_get(struct etcd *e, const char *key, struct etcd_kv *kv, int64_t *rev)
{
	json_object *req = json_object_new_object(), *o, *h;
	int err;

	add_b64(req, "key", key);
	err = post(e, "/v3/kv/range", req, &o);
	json_object_put(req);
	if (err)
		return err;
	err = first_kv(e, o, kv);
	if (rev)
		*rev = json_object_object_get_ex(o, "header", &h) ? get_i64(h, "revision") : 0;
	json_object_put(o);
	return err;
}

int etcd_list(struct etcd *e, const char *prefix, struct etcd_kv *kvs, int max, int *n)
{
	json_object *req = json_object_new_object(), *o, *arr;
	size_t len = strlen(prefix);
	char *end = strdup(prefix);
	int err;

	*n = 0;
	if (!end || !len) {
		free(end);
		json_object_put(req);
		return -EINVAL;
	}
	end[len - 1]++;		/* the range end of a prefix: its last byte plus one */
	add_b64(req, "key", prefix);
	add_b64(req, "range_end", end);
	add_i64(req, "limit", max);
	json_object_object_add(req, "keys_only", json_object_new_boolean(1));
	free(end);
	err = post(e, "/v3/kv/range", req, &o);
	json_object_put(req);
	if (err)
		return err;
	if (json_object_object_get_ex(o, "kvs", &arr)) {
		for (size_t i = 0; i < json_object_array_length(arr) && *n < max; i++) {
			if (parse_kv(json_object_array_get_idx(arr, i), &kvs[*n])) {
				seterr(e, "etcd sent a key that is not base64");
				json_object_put(o);
				return -EPROTO;
			}
			(*n)++;
		}
	}
	json_object_put(o);
	return 0;
}

void etcd_txn_cmp(struct etcd_txn *t, const char *key, enum etcd_target target, int64_t v)
{
	if (t->ncmp < ETCD_TXN_OPS)
		t->cmp[t->ncmp++] = (typeof(t->cmp[0])){ key, target, v };
}

void etcd_txn_put(struct etcd_txn *t, bool success, const char *key, const char *value, int64_t lease)
{
	if (t->nops[success] < ETCD_TXN_OPS)
		t->ops[success][t->nops[success]++] = (typeof(t->ops[0][0])){ key, value, lease, true };
}

void etcd_txn_get(struct etcd_txn *t, bool success, const char *key)
{
	if (t->nops[success] < ETCD_TXN_OPS)
		t->ops[success][t->nops[success]++] = (typeof(t->ops[0][0])){ key, NULL, 0, false };
}

static json_object *txn_json(const struct etcd_txn *t)
{
	static const char *const target[] = { "CREATE", "MOD", "LEASE" };
	static const char *const field[] = { "create_revision", "mod_revision", "lease" };
	json_object *req = json_object_new_object(), *cmp = json_object_new_array();

	for (int i = 0; i < t->ncmp; i++) {
		json_object *c = json_object_new_object();

		add_b64(c, "key", t->cmp[i].key);
		json_object_object_add(c, "target", json_object_new_string(target[t->cmp[i].target]));
		json_object_object_add(c, "result", json_object_new_string("EQUAL"));
		add_i64(c, field[t->cmp[i].target], t->cmp[i].v);
		json_object_array_add(cmp, c);
	}
	json_object_object_add(req, "compare", cmp);
	for (int b = 0; b < 2; b++) {
		json_object *ops = json_object_new_array();

		for (int i = 0; i < t->nops[b]; i++) {
			json_object *op = json_object_new_object(), *r = json_object_new_object();

			add_b64(r, "key", t->ops[b][i].key);
			if (t->ops[b][i].put) {
				add_b64(r, "value", t->ops[b][i].value);
				if (t->ops[b][i].lease)
					add_i64(r, "lease", t->ops[b][i].lease);
			}
			json_object_object_add(op, t->ops[b][i].put ? "request_put" : "request_range", r);
			json_object_array_add(ops, op);
		}
		json_object_object_add(req, b ? "success" : "failure", ops);
	}
	return req;
}

int etcd_txn_run(struct etcd *e, const struct etcd_txn *t, bool *succeeded, int64_t *rev,
		 struct etcd_kv *kvs, int max)
{
	json_object *req = txn_json(t), *o, *v, *resps;
	int err, n = 0;

	err = post(e, "/v3/kv/txn", req, &o);
	json_object_put(req);
	if (err)
		return err;
	*succeeded = json_object_object_get_ex(o, "succeeded", &v) && json_object_get_boolean(v);
	*rev = json_object_object_get_ex(o, "header", &v) ? get_i64(v, "revision") : 0;
	for (int i = 0; i < max; i++)
		memset(&kvs[i], 0, sizeof(kvs[i]));
	if (json_object_object_get_ex(o, "responses", &resps)) {
		for (size_t i = 0; i < json_object_array_length(resps) && n < max; i++) {
			json_object *r = json_object_array_get_idx(resps, i), *rr;

			if (!json_object_object_get_ex(r, "response_range", &rr))
				continue;
			err = first_kv(e, rr, &kvs[n++]);
			if (err)
				break;
		}
	}
	json_object_put(o);
	return err;
}
