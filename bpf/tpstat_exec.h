/* SPDX-License-Identifier: GPL-2.0 */
/*
 * With a user stack key: the file of every exec, by path (struct tpstat_exec_path in
 * tpstat_abi.h says what is kept). A user frame is a build id and an offset
 * (BPF_F_USER_BUILD_ID); naming it needs a file with that build id, which user space finds
 * in the maps of the processes it sees alive. A process that execs, hits the tracepoint and
 * exits between two reports is never seen alive: its file is known from here instead,
 * whatever path it was run by ("./prog" too), as the dentries up to the root say.
 *
 * The path is walked from the file's dentry up through d_parent, and across a mount to the
 * dentry it is mounted on (struct mount, as the kernel's d_path() does), to the root of
 * the mount namespace's tree. The loop is bounded: TPSTAT_EXEC_DEPTH names and as many
 * mount crossings.
 */
#ifndef __BAREATOM_TPSTAT_EXEC_H
#define __BAREATOM_TPSTAT_EXEC_H
#include <bpf/bpf_core_read.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TPSTAT_EXEC_FILES);
	__type(key, __u64);
	__type(value, struct tpstat_exec_path);
} exec_files SEC(".maps");

/* The path being built: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tpstat_exec_path);
} exec_buf SEC(".maps");

/* Files not kept: exec_files was full. */
__u64 exec_lost;

SEC("tp_btf/sched_process_exec")
int BPF_PROG(tpstat_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct dentry *d = BPF_CORE_READ(bprm, file, f_path.dentry);
	struct vfsmount *vfs = BPF_CORE_READ(bprm, file, f_path.mnt);
	/* container_of(), with the member's offset of the running kernel's struct mount. */
	struct mount *mnt = (void *)vfs - bpf_core_field_offset(struct mount, mnt);
	struct tpstat_exec_path *path;
	__u64 key = (__u64)d;
	__u32 zero = 0;
	bool done = false;

	if (!d || bpf_map_lookup_elem(&exec_files, &key))
		return 0;
	path = bpf_map_lookup_elem(&exec_buf, &zero);
	if (!path)
		return 0;
	path->n = 0;
	path->cut = 0;
	for (int i = 0; i < 2 * TPSTAT_EXEC_DEPTH; i++) {
		struct dentry *parent = BPF_CORE_READ(d, d_parent);
		struct dentry *root = BPF_CORE_READ(mnt, mnt.mnt_root);
		__u32 n = path->n;
		long len;

		/* The root of a mount: on to where it is mounted, or the end at the top. */
		if (d == root) {
			struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

			if (up == mnt) {
				done = true;
				break;
			}
			d = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = up;
			continue;
		}
		/* A dentry that is its own parent: the root of a tree mounted nowhere. */
		if (d == parent) {
			done = true;
			break;
		}
		if (n >= TPSTAT_EXEC_DEPTH)
			break;
		len = bpf_probe_read_kernel_str(path->name[n], TPSTAT_EXEC_NAME,
						BPF_CORE_READ(d, d_name.name));
		/* A name that filled the buffer may have been longer: the path is not it. */
		if (len <= 1 || len >= TPSTAT_EXEC_NAME)
			break;
		path->n = n + 1;
		d = parent;
	}
	path->cut = !done;
	/* -E2BIG: full (-EEXIST: another CPU kept it first). */
	if (bpf_map_update_elem(&exec_files, &key, path, BPF_NOEXIST) == -7)
		atomic_add(&exec_lost, 1);
	return 0;
}

#endif /* __BAREATOM_TPSTAT_EXEC_H */
