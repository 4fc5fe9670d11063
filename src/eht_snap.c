// SPDX-License-Identifier: GPL-2.0
/* eht-hosts' snapshots (eht_snap.h): batched copies of the host table, and their diff. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "src/eht_snap.h"
#include "src/clock.h"

const char *const eht_tp_names[EHT_EV_NR] = {
	[EHT_EV_HOST_CREATE] = "br_eht_host_create",
	[EHT_EV_HOST_DESTROY] = "br_eht_host_destroy",
	[EHT_EV_HOST_FILTER_MODE] = "br_eht_host_filter_mode",
	[EHT_EV_SET_ENTRY_CREATE] = "br_eht_set_entry_create",
	[EHT_EV_SET_ENTRY_DELETE] = "br_eht_set_entry_delete",
	[EHT_EV_FAST_LEAVE] = "br_eht_fast_leave",
};

static int key_cmp(const struct eht_key *a, const struct eht_key *b)
{
	int c;

	if (a->netns != b->netns)
		return a->netns < b->netns ? -1 : 1;
	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	if (a->proto != b->proto)
		return a->proto < b->proto ? -1 : 1;
	c = memcmp(a->group, b->group, sizeof(a->group));
	if (c)
		return c;
	if (a->vid != b->vid)
		return a->vid < b->vid ? -1 : 1;
	return memcmp(a->host, b->host, sizeof(a->host));
}

static int row_cmp(const void *a, const void *b)
{
	return key_cmp(&((const struct eht_row *)a)->k, &((const struct eht_row *)b)->k);
}

void eht_snap_sort(struct eht_snap *s)
{
	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), row_cmp);
}

void eht_snap_free(struct eht_snap *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static int read_counters(const struct eht_source *src, struct eht_snap *s)
{
	struct eht_stats st;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	char *buf;

	if (src->stats) {
		for (int i = 0; i < EHT_EV_NR; i++)
			s->events[i] = __atomic_load_n(&src->stats->events[i], __ATOMIC_RELAXED);
		s->adopted = __atomic_load_n(&src->stats->adopted, __ATOMIC_RELAXED);
		s->lost = __atomic_load_n(&src->stats->lost, __ATOMIC_RELAXED);
		return 0;
	}
	if (bpf_obj_get_info_by_fd(src->counters_fd, &info, &len))
		return -errno;
	if (info.value_size < src->stats_off + sizeof(st))
		return -EINVAL;	/* not the .bss of this eht-hosts */
	buf = calloc(1, info.value_size);
	if (!buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(src->counters_fd, &zero, buf)) {
		free(buf);
		return -errno;
	}
	memcpy(&st, buf + src->stats_off, sizeof(st));
	free(buf);
	memcpy(s->events, st.events, sizeof(s->events));
	s->adopted = st.adopted;
	s->lost = st.lost;
	return 0;
}

int eht_snap_reserve(struct eht_snap *s, size_t need)
{
	size_t cap = s->cap ? s->cap : 64;
	struct eht_row *rows;

	while (cap - s->n < need)
		cap *= 2;
	if (cap == s->cap)
		return 0;
	rows = realloc(s->rows, cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	s->rows = rows;
	s->cap = cap;
	return 0;
}

/*
 * Copy the table with batched lookups. A hash map's batch walk goes bucket by bucket,
 * each copied whole under its lock, so entries can come and go meanwhile without the
 * walk restarting (as get_next_key does after a deletion): every host that is there
 * for the whole walk is copied exactly once, however full the table.
 */
int eht_snap_take(const struct eht_source *src, struct eht_snap *s)
{
	size_t chunk = 1024;	/* rows per call; a bucket must fit in one (ENOSPC if not) */
	struct eht_key *keys = NULL;
	struct eht_host *vals = NULL;
	__u32 batch, count;
	bool first = true;
	int err = 0;

	s->n = 0;
	s->ts = clock_wallclock();
	s->mono_ns = clock_now_ns();
	for (;;) {
		if (!keys) {
			keys = calloc(chunk, sizeof(*keys));
			vals = calloc(chunk, sizeof(*vals));
			if (!keys || !vals) {
				err = -ENOMEM;
				break;
			}
		}
		count = chunk;
		err = bpf_map_lookup_batch(src->hosts_fd, first ? NULL : &batch, &batch, keys, vals,
					   &count, NULL);
		if (err && errno == ENOSPC && chunk < EHT_MAX_HOSTS * 4) {
			/* A bucket larger than the buffer: the same call again, with more room. */
			free(keys), free(vals);
			keys = NULL, vals = NULL;
			chunk *= 2;
			continue;
		}
		if (err && errno != ENOENT) {
			err = -errno;
			break;
		}
		if (eht_snap_reserve(s, count)) {
			err = -ENOMEM;
			break;
		}
		for (__u32 i = 0; i < count; i++, s->n++) {
			s->rows[s->n].k = keys[i];
			s->rows[s->n].v = vals[i];
		}
		if (err) {	/* ENOENT: that was the last bucket */
			err = 0;
			break;
		}
		first = false;
	}
	free(keys);
	free(vals);
	if (err)
		return err;
	eht_snap_sort(s);
	return read_counters(src, s);
}

const char *eht_change_name(enum eht_change what)
{
	return what == EHT_NEW ? "new" : what == EHT_GONE ? "gone" : "change";
}

static bool same_state(const struct eht_row *a, const struct eht_row *b)
{
	return a->v.cookie == b->v.cookie && a->v.mode == b->v.mode &&
	       a->v.sources == b->v.sources && a->v.reports == b->v.reports;
}

void eht_diff_init(struct eht_diff *d, const struct eht_snap *old, const struct eht_snap *cur)
{
	*d = (struct eht_diff){ .old = old, .cur = cur };
}

bool eht_diff_next(struct eht_diff *d, struct eht_change_at *c)
{
	const struct eht_snap *old = d->old, *cur = d->cur;

	if (d->new_next) {
		d->new_next = false;
		*c = (struct eht_change_at){ EHT_NEW, cur, &cur->rows[d->j++] };
		return true;
	}
	while (d->i < old->n || d->j < cur->n) {
		int cmp = d->i == old->n ? 1 : d->j == cur->n ? -1 :
			  key_cmp(&old->rows[d->i].k, &cur->rows[d->j].k);

		if (cmp < 0) {
			*c = (struct eht_change_at){ EHT_GONE, old, &old->rows[d->i++] };
			return true;
		}
		if (cmp > 0) {
			*c = (struct eht_change_at){ EHT_NEW, cur, &cur->rows[d->j++] };
			return true;
		}
		if (old->rows[d->i].v.cookie != cur->rows[d->j].v.cookie) {
			d->new_next = true;
			*c = (struct eht_change_at){ EHT_GONE, old, &old->rows[d->i++] };
			return true;
		}
		if (!same_state(&old->rows[d->i], &cur->rows[d->j])) {
			*c = (struct eht_change_at){ EHT_CHANGED, cur, &cur->rows[d->j] };
			d->i++, d->j++;
			return true;
		}
		d->i++, d->j++;
	}
	return false;
}

int eht_snap_diff(const struct eht_snap *old, const struct eht_snap *cur)
{
	int n = memcmp(old->events, cur->events, sizeof(old->events)) ? 1 : 0;
	struct eht_diff d;
	struct eht_change_at c;

	eht_diff_init(&d, old, cur);
	for (;;) {
		bool second_half = d.new_next;	/* of a host whose cookie changed: counted once */

		if (!eht_diff_next(&d, &c))
			return n;
		n += !second_half;
	}
}
