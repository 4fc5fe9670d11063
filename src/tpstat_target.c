// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat's targets (-p, -t, -G, -- CMD's process tree): checked before anything is loaded,
 * the filter chosen in .rodata, the targets map filled and the programs that keep it
 * current (forks, exits) attached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <bpf/libbpf.h>
#include "src/tpstat_opts.h"
#include "src/cli.h"
#include "src/tpstat_target.h"
#include "tpstat.skel.h"
#include "src/bpf_util.h"

/* -p/-t: every target must exist now (one line naming the first that does not). */
static int check_ids(const struct tpstat_opts *o)
{
	char path[64];

	for (int i = 0; i < o->ntargets; i++) {
		snprintf(path, sizeof(path), "/proc/%d", o->targets[i]);
		if (access(path, F_OK)) {
			fprintf(stderr, "tpstat: no such %s: %d\n", o->tids ? "thread" : "process",
				o->targets[i]);
			return EXIT_USAGE;
		}
		if (o->tids) {
			/* /proc/TID works for threads; a process id passed as -t is a thread too. */
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%d", o->targets[i], o->targets[i]);
		if (access(path, F_OK)) {
			fprintf(stderr, "tpstat: %d is a thread, not a process: use -t %d\n",
				o->targets[i], o->targets[i]);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* -G: a cgroup v2 directory, as a path or relative to /sys/fs/cgroup; its fd, or -1. */
static int open_cgroup(const struct tpstat_opts *o, char *path, size_t len)
{
	struct statfs sfs;
	int fd;

	if (o->cgroup[0] == '/')
		snprintf(path, len, "%s", o->cgroup);
	else
		snprintf(path, len, "/sys/fs/cgroup/%s", o->cgroup);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "tpstat: cannot open cgroup '%s': %s\n", o->cgroup, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "tpstat: '%s' is not a cgroup v2 directory (mount cgroup2 at "
			"/sys/fs/cgroup)\n", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* -C: every CPU named must be one this machine can have (perf stat refuses others too). */
static int check_cpus(const struct tpstat_opts *o)
{
	int ncpu = libbpf_num_possible_cpus();

	if (!o->cpu_list || ncpu <= 0)
		return 0;
	for (int c = ncpu; c < TPSTAT_MAX_CPUS; c++)
		if (o->cpu_set[c / 64] >> (c % 64) & 1) {
			fprintf(stderr, "tpstat: -C %s: there is no CPU %d (possible CPUs: 0-%d)\n",
				o->cpu_list, c, ncpu - 1);
			return EXIT_USAGE;
		}
	return 0;
}

int tpstat_check_targets(const struct tpstat_opts *o)
{
	char path[4096];
	int fd, err = check_ids(o);

	if (!err)
		err = check_cpus(o);
	if (err || !o->cgroup)
		return err;
	fd = open_cgroup(o, path, sizeof(path));
	if (fd < 0)
		return EXIT_USAGE;
	close(fd);
	return 0;
}

bool tpstat_choose_target(const struct tpstat_opts *o, struct tpstat_bpf *skel, char *target,
			  size_t len)
{
	__u32 filter = TPSTAT_FILTER_NONE;
	bool tree = false;
	size_t off;

	if (o->ntargets) {
		filter = o->tids ? TPSTAT_FILTER_TID : TPSTAT_FILTER_TGID;
		off = snprintf(target, len, "%s ", o->tids ? "TID" : "PID");
		for (int i = 0; i < o->ntargets && off < len; i++)
			off += snprintf(target + off, len - off, "%s%d", i ? "," : "",
					o->targets[i]);
	} else if (o->cgroup) {
		filter = TPSTAT_FILTER_CGROUP;
		snprintf(target, len, "cgroup %s", o->cgroup);
	} else if (o->command && !o->system_wide) {
		filter = TPSTAT_FILTER_TGID;
		tree = true;
		snprintf(target, len, "its process tree");
	} else {
		snprintf(target, len, "system wide");
	}
	if (o->cpu_list) {
		off = strlen(target);
		snprintf(target + off, len - off, ", CPUs %s", o->cpu_list);
		skel->rodata->filter_cpus = 1;
		memcpy((void *)skel->rodata->cpu_filter, o->cpu_set, sizeof(o->cpu_set));
	}
	skel->rodata->filter = filter;
	bpf_program__set_autoload(skel->progs.tpstat_fork, tree);
	bpf_program__set_autoload(skel->progs.tpstat_free, filter == TPSTAT_FILTER_TGID ||
				  filter == TPSTAT_FILTER_TID);
	return tree;
}

int tpstat_set_targets(const struct tpstat_opts *o, struct tpstat_bpf *skel,
		       struct bpf_link *task_links[2])
{
	char path[4096];
	__u8 one = 1;
	__u32 zero = 0;
	int fd, err;

	for (int i = 0; i < o->ntargets; i++) {
		__u32 id = o->targets[i];

		if (bpf_map__update_elem(skel->maps.targets, &id, sizeof(id), &one, sizeof(one),
					 BPF_ANY)) {
			fprintf(stderr, "tpstat: cannot add target %u: %s\n", id, strerror(errno));
			return 1;
		}
	}
	if (o->cgroup) {
		fd = open_cgroup(o, path, sizeof(path));
		if (fd < 0)
			return EXIT_USAGE;
		err = bpf_map__update_elem(skel->maps.target_cgroup, &zero, sizeof(zero), &fd,
					   sizeof(fd), BPF_ANY);
		close(fd);
		if (err) {
			fprintf(stderr, "tpstat: cannot use cgroup '%s': %s\n", o->cgroup, strerror(-err));
			return 1;
		}
	}
	if (bpf_program__autoload(skel->progs.tpstat_fork)) {
		task_links[0] = bpf_program__attach(skel->progs.tpstat_fork);
		if (!task_links[0]) {
			fprintf(stderr, "tpstat: cannot follow forks (sched_process_fork): %s\n",
				util_bpf_load_hint(-errno));
			return 1;
		}
	}
	if (bpf_program__autoload(skel->progs.tpstat_free)) {
		task_links[1] = bpf_program__attach(skel->progs.tpstat_free);
		if (!task_links[1]) {
			fprintf(stderr, "tpstat: cannot follow exits (sched_process_free): %s\n",
				util_bpf_load_hint(-errno));
			return 1;
		}
	}
	return 0;
}
