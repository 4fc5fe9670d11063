// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend's BPF side: load the programs, reuse the pinned maps (the counter survives
 * restarts) or replace those of an older layout (an upgrade), and keep a pinned link only
 * when it runs exactly this binary's program. Everything it uses is in struct cookie_pins.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <syslog.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cookie.skel.h"
#include "src/libcookie.h"
#include "src/bpf_util.h"
#include "src/clock.h"
#include "src/cookie_pins.h"
#include "src/pins.h"

/* Every pin cookie-gend makes, for --uninstall; the links and programs come in pairs. */
static const char *const pin_names[] = {
	"link_fork", "link_tpgen", "prog_fork", "prog_tpgen", "state", "batch", "task_cookies",
	"events", "follower",
};
static const size_t nr_pin_names = sizeof(pin_names) / sizeof(pin_names[0]);

static const char *pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, COOKIE_PIN_DIR "/%s", name);
	return buf;
}

/* Does the pinned map @fd have exactly the layout this binary's @map declares? */
static int same_layout(int fd, struct bpf_map *map, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &len))
		return -errno;
	return info->type == bpf_map__type(map) && info->key_size == bpf_map__key_size(map) &&
	       info->value_size == bpf_map__value_size(map) &&
	       info->max_entries == bpf_map__max_entries(map) &&
	       info->map_flags == bpf_map__map_flags(map);
}

/* Offsets of the fields every layout of struct cookie_state has kept since the first. */
#define OLD_NEXT	0
#define OLD_LIMIT	8
#define OLD_OWNER	56

/*
 * An older layout's state map (an upgrade: it grew from 80 to 88 bytes with node ids) is
 * replaced, and what its counter could have given is kept in p->old_floor: every cookie it
 * handed out (BPF batches too) is below its limit, which cannot rise meanwhile (no daemon
 * runs: the instance and directory locks are ours), and below its next. A map that counts
 * for another state directory is refused, as the current layout's is (-ECANCELED: logged).
 */
static int old_state(struct cookie_pins *p, int fd, const struct bpf_map_info *info)
{
	__u64 buf[64] = {}, next, limit, owner;
	__u32 zero = 0;

	if (info->type != BPF_MAP_TYPE_ARRAY || info->key_size != 4 || info->max_entries < 1 ||
	    info->value_size < OLD_OWNER + 8 || info->value_size > sizeof(buf) ||
	    bpf_map_lookup_elem(fd, &zero, buf)) {
		p->log(LOG_ERR, "the state map pinned in " COOKIE_PIN_DIR " has a layout this "
		       "cookie-gend cannot read (value of %u bytes): its counter is unknown; run "
		       "cookie-gend --uninstall and cookie-gend --raise-mark above its newest cookie",
		       info->value_size);
		return -ECANCELED;
	}
	next = buf[OLD_NEXT / 8];
	limit = buf[OLD_LIMIT / 8];
	owner = buf[OLD_OWNER / 8];
	if (owner && owner != p->owner) {
		p->log(LOG_ERR, "the maps pinned in " COOKIE_PIN_DIR " count for another state "
		       "directory: stop that daemon and run cookie-gend --uninstall first");
		return -ECANCELED;
	}
	p->old_floor = next > limit ? next : limit;
	p->log(LOG_INFO, "replacing the state map pinned in " COOKIE_PIN_DIR ": an older layout "
	       "(%u bytes, not %zu); its counter (next %llu, limit %llu) is kept below the new one",
	       info->value_size, sizeof(struct cookie_state), (unsigned long long)next,
	       (unsigned long long)limit);
	return 0;
}

/*
 * --etcd: our counter, but one that must not go on (replaced by a fresh one, as
 * cookie_pins_renew() would have; the old one's limit stays where it was):
 *  - of another node than the directory's: a move cut short after the directory's node
 *    file was written (cookie_mark_move());
 *  - past its limit: refused draws burned values above it, and a drawer may still hold
 *    one (a fast-path client paused between its fetch-add and its read of the limit).
 *    Another holder may have served those values while this daemon was down (its id
 *    taken, then given back), and the drawer would check its value against the limit
 *    this start raises above them.
 */
static void stale_counter(struct cookie_pins *p, int fd)
{
	struct cookie_state st = {};
	__u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, &st) || st.owner != p->owner)
		return;
	if (st.node != p->node) {
		p->fresh = true;
		p->log(LOG_NOTICE, "the counter pinned in " COOKIE_PIN_DIR " is node %llu's, the "
		       "state directory node %u's (a move to another id was cut short): a fresh "
		       "counter replaces it; the old one's limit stays where it was",
		       (unsigned long long)st.node, p->node);
	} else if (st.next > st.limit) {
		p->fresh = true;
		p->log(LOG_NOTICE, "the counter pinned in " COOKIE_PIN_DIR " is past its limit "
		       "(next %llu, limit %llu: refused draws took values another holder of node "
		       "%u may have served since): a fresh counter replaces it; the old one's limit "
		       "stays where it was", (unsigned long long)st.next,
		       (unsigned long long)st.limit, p->node);
	}
}

int cookie_pins_probe(struct cookie_pins *p)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[256];
	int fd = bpf_obj_get(pin_path(path, sizeof(path), "state")), err = 0;

	p->old_floor = 0;
	if (fd < 0)
		return 0;	/* nothing pinned (or nothing we may see: setup will say) */
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		p->log(LOG_ERR, "cannot inspect %s: %s", path, strerror(-err));
		err = -ECANCELED;
	} else if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != 4 ||
		   info.value_size != sizeof(struct cookie_state) || info.max_entries != 1 ||
		   info.map_flags != BPF_F_MMAPABLE) {
		err = old_state(p, fd, &info);
	} else if (p->replace_stale) {
		stale_counter(p, fd);
	}
	close(fd);
	return err;
}

static int reuse_or_pin_map(struct cookie_pins *p, struct bpf_map *map, const char *name, bool *reused)
{
	struct bpf_map_info info;
	char path[256];
	int fd = bpf_obj_get(pin_path(path, sizeof(path), name)), same, err;

	if (fd >= 0) {
		/*
		 * A counter being replaced (cookie_pins_renew(), stale_counter()) is never reused,
		 * nor the per-CPU batches taken from it: every cookie drawn after is the new one's.
		 */
		same = p->fresh && (!strcmp(name, "state") || !strcmp(name, "batch")) ? 0 :
		       same_layout(fd, map, &info);
		if (same == 1) {
			err = bpf_map__reuse_fd(map, fd);
			close(fd);
			*reused = true;
			return err;
		}
		close(fd);
		if (same < 0)
			return same;
		/*
		 * An older layout. The state map's counter was probed first (cookie_pins_probe) and
		 * the mark raised above it; the old programs keep their maps until their links are
		 * replaced.
		 */
		if (unlink(path))
			return -errno;
		if (strcmp(name, "state") && !p->fresh)
			p->log(LOG_INFO, "replacing %s: an older layout", path);
	}
	return bpf_map__set_pin_path(map, path);
}

#define MAX_PROG_MAPS 16

/* A loaded program as the kernel sees it: its tag and the maps it uses. */
struct prog_id {
	__u8 tag[BPF_TAG_SIZE];
	__u32 nr_maps;
	__u32 maps[MAX_PROG_MAPS];
};

static int prog_identity(int prog_fd, struct prog_id *id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	info.nr_map_ids = MAX_PROG_MAPS;
	info.map_ids = (__u64)(unsigned long)id->maps;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	if (info.nr_map_ids > MAX_PROG_MAPS)
		return -E2BIG;
	memcpy(id->tag, info.tag, sizeof(id->tag));
	id->nr_maps = info.nr_map_ids;
	return 0;
}

/* The value of map @map_id when it is a .rodata map (the program's settings), else -ENOENT. */
static int rodata_of(__u32 map_id, void *buf, __u32 size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	int fd = bpf_map_get_fd_by_id(map_id), err = -ENOENT;

	if (fd < 0)
		return -errno;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && strstr(info.name, ".rodata")) {
		err = info.value_size == size && !bpf_map_lookup_elem(fd, &zero, buf) ? 0 : -EINVAL;
	}
	close(fd);
	return err;
}

/*
 * Does the program behind the pinned link @link_fd run exactly what we loaded as @prog:
 * the same instructions (tag), the same maps (a state map gone from the pins leaves an old
 * link drawing from an orphan that is never extended) and the same settings (.rodata:
 * --global)? Returns 1 when it does, 0 when it differs, or a negative errno.
 */
static int same_program(struct cookie_pins *p, int link_fd, struct bpf_program *prog)
{
	struct bpf_link_info li = {};
	__u32 len = sizeof(li);
	struct prog_id ours = {}, theirs = {};
	size_t rosz = bpf_map__value_size(p->skel->maps.rodata);
	char old_ro[256];
	int fd, err;

	if (bpf_obj_get_info_by_fd(link_fd, &li, &len))
		return -errno;
	fd = bpf_prog_get_fd_by_id(li.prog_id);
	if (fd < 0)
		return -errno;
	err = prog_identity(fd, &theirs) ?: prog_identity(bpf_program__fd(prog), &ours);
	close(fd);
	if (err)
		return err;
	if (memcmp(ours.tag, theirs.tag, sizeof(ours.tag)) || ours.nr_maps != theirs.nr_maps ||
	    rosz > sizeof(old_ro))
		return 0;
	for (__u32 i = 0; i < theirs.nr_maps; i++) {
		bool found = false;

		for (__u32 k = 0; k < ours.nr_maps && !found; k++)
			found = ours.maps[k] == theirs.maps[i];
		if (found)
			continue;
		/* Each load has its own .rodata map: compare what it holds. */
		if (rodata_of(theirs.maps[i], old_ro, rosz) ||
		    memcmp(old_ro, p->skel->rodata, rosz))
			return 0;
	}
	return 1;
}

/* Pin @fd at NAME through a temporary pin renamed over it: the old pin goes in one step. */
static int pin_over(int fd, const char *name)
{
	char path[256], tmp[256];

	pin_path(path, sizeof(path), name);
	/* bpffs reserves names with dots: the temporary pin is new_NAME. */
	snprintf(tmp, sizeof(tmp), COOKIE_PIN_DIR "/new_%s", name);
	unlink(tmp);
	if (bpf_obj_pin(fd, tmp))
		return -errno;
	if (rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

/*
 * Attach @prog and pin its link as link_NAME and the program as prog_NAME, for bpftool. A
 * link pinned by an earlier run is kept when it runs exactly this program; otherwise (an
 * upgrade, other settings, pins left half-made) the new link is attached and pinned first
 * and only then is the old one dropped, so no event goes without a program meanwhile.
 * The counter is never lost: the state map is the pinned one (reuse_or_pin_map).
 */
static int attach_or_keep(struct cookie_pins *p, struct bpf_program *prog, const char *name)
{
	char path[256], pname[64];
	struct bpf_link *link;
	int fd = bpf_obj_get(pin_path(path, sizeof(path), name)), err;

	snprintf(pname, sizeof(pname), "prog_%s", name + strlen("link_"));
	if (fd >= 0) {
		int same = same_program(p, fd, prog);

		close(fd);
		if (same == 1)
			return 0;
		p->log(LOG_INFO, "replacing %s: the pinned program %s", path, same == 0 ?
		       "differs from this cookie-gend's (another version, other options or other maps)" :
		       "cannot be inspected");
	}
	link = bpf_program__attach(prog);
	if (!link)
		return -errno;
	err = pin_over(bpf_link__fd(link), name) ?: pin_over(bpf_program__fd(prog), pname);
	if (err) {
		bpf_link__destroy(link);
		return err;
	}
	/*
	 * The pin keeps it attached after we exit. A disconnected link's fd is left open by
	 * bpf_link__destroy(): close it, or this process holds the link, and a later
	 * replacement of the pin (cookie_pins_renew()) would leave it attached beside the new.
	 */
	fd = bpf_link__fd(link);
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	close(fd);
	return 0;
}

int cookie_pins_setup(struct cookie_pins *p)
{
	bool reused = false;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	int err;
	void *m;

	mkdir(PINS_ROOT, 0700);
	if (mkdir(COOKIE_PIN_DIR, 0700) && errno != EEXIST)
		return -errno;
	p->skel = cookie_bpf__open();
	if (!p->skel)
		return -errno;
	p->skel->rodata->batched = !p->global;
	if (!p->tpgen)
		bpf_program__set_autoload(p->skel->progs.cookie_tpgen, false);
	err = reuse_or_pin_map(p, p->skel->maps.state, "state", &reused) ?:
	      reuse_or_pin_map(p, p->skel->maps.batch, "batch", &reused) ?:
	      reuse_or_pin_map(p, p->skel->maps.task_cookies, "task_cookies", &reused) ?:
	      reuse_or_pin_map(p, p->skel->maps.events, "events", &reused) ?:
	      reuse_or_pin_map(p, p->skel->maps.follower, "follower", &reused);
	if (err)
		return err;
	err = cookie_bpf__load(p->skel);
	if (err)
		return err;
	p->fresh = false;
	p->state_fd = bpf_map__fd(p->skel->maps.state);
	p->task_fd = bpf_map__fd(p->skel->maps.task_cookies);
	if (bpf_obj_get_info_by_fd(p->state_fd, &info, &len))
		return -errno;
	p->map_len = ((size_t)info.value_size * info.max_entries + page - 1) / page * page;
	m = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, p->state_fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	p->st = m;
	p->log(LOG_DEBUG, "%s the pinned maps in " COOKIE_PIN_DIR, reused ? "reusing" : "created");
	return 0;
}

int cookie_pins_attach(struct cookie_pins *p)
{
	int err = attach_or_keep(p, p->skel->progs.cookie_fork, "link_fork");

	if (err) {
		p->log(LOG_ERR, "cannot attach to sched_process_fork: %s", util_bpf_load_hint(err));
		return err;
	}
	if (!p->tpgen) {
		char path[256];

		/* --tpgen decides: a link left by a run with --tpgen is detached. */
		unlink(pin_path(path, sizeof(path), "prog_tpgen"));
		if (!unlink(pin_path(path, sizeof(path), "link_tpgen")))
			p->log(LOG_INFO, "detached from tpgen_b (no --tpgen)");
	} else {
		err = attach_or_keep(p, p->skel->progs.cookie_tpgen, "link_tpgen");
		if (err) {
			p->log(LOG_ERR, "cannot attach to tpgen_b: %s", err == -ENOENT ?
			       "the tpgen module is not loaded (modprobe tpgen)" : util_bpf_load_hint(err));
			return err;
		}
	}
	return 0;
}

/*
 * What STATS and the metrics count as totals goes on from the old counter's (before the new
 * programs run: what the old ones count meanwhile is lost, never counted twice).
 */
static void carry_counts(struct cookie_state *to, const struct cookie_state *from)
{
	static const size_t counts[] = {
		offsetof(struct cookie_state, fork_cookies), offsetof(struct cookie_state, tpgen_cookies),
		offsetof(struct cookie_state, denied), offsetof(struct cookie_state, batches),
		offsetof(struct cookie_state, events_lost), offsetof(struct cookie_state, room_requests),
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		__atomic_fetch_add((__u64 *)((char *)to + counts[i]),
				   __atomic_load_n((const __u64 *)((const char *)from + counts[i]),
						   __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

int cookie_pins_renew(struct cookie_pins *p)
{
	struct cookie_pins old = *p;
	int err;

	p->fresh = true;
	p->skel = NULL;
	p->st = NULL;
	err = cookie_pins_setup(p);
	if (err) {
		p->log(LOG_ERR, "cannot load a fresh counter for the new node id: %s",
		       util_bpf_load_hint(err));
	} else {
		carry_counts(p->st, old.st);
		err = cookie_pins_attach(p);	/* logs */
	}
	if (err) {
		if (p->st)
			munmap(p->st, p->map_len);
		cookie_bpf__destroy(p->skel);
		*p = old;
		return err;
	}
	/* The old counter: ours no more. Its pins went with setup's and attach's. */
	munmap(old.st, old.map_len);
	cookie_bpf__destroy(old.skel);
	p->log(LOG_INFO, "a fresh counter is pinned as " COOKIE_PIN_DIR "/state, its programs "
	       "attached; the old counter is left to whatever still maps it, its limit where it was");
	return 0;
}

/*
 * A `cookie --follow` killed before it could unregister leaves its pid in the follower
 * map, and the programs would go on filling the ring for nobody (and count its losses).
 * Its lock is free once it is gone: then take its pid out. The lock is held only for
 * this check; a follower starting meanwhile retries (src/cookie.c).
 */
void cookie_pins_clear_dead_follower(struct cookie_pins *p)
{
	__u32 zero = 0, pid = 0, none = 0;
	double now = clock_now();
	int fd;

	/* The tick comes every 20 ms: a system call or three each time would be for nothing. */
	if (now < p->follower_check_at)
		return;
	p->follower_check_at = now + 1.0;
	if (bpf_map__lookup_elem(p->skel->maps.follower, &zero, sizeof(zero), &pid, sizeof(pid), 0) ||
	    !pid)
		return;
	fd = open(COOKIE_FOLLOW_LOCK, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);	/* held: the follower lives */
		return;
	}
	bpf_map__update_elem(p->skel->maps.follower, &zero, sizeof(zero), &none, sizeof(none), 0);
	p->log(LOG_INFO, "cookie --follow (pid %u) is gone: no more events are written for it", pid);
	if (fd >= 0)
		close(fd);
}

void cookie_pins_remove(const struct cookie_pins *p)
{
	char path[256];

	for (size_t i = 0; i < nr_pin_names; i++)
		if (unlink(pin_path(path, sizeof(path), pin_names[i])) && errno != ENOENT)
			p->log(LOG_ERR, "cannot remove %s: %s", path, strerror(errno));
	if (rmdir(COOKIE_PIN_DIR) && errno != ENOENT)
		p->log(LOG_ERR, "cannot remove " COOKIE_PIN_DIR ": %s", strerror(errno));
}
