/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --by TP:kstack[:N] and TP:ustack[:N]: the stacks that hit a tracepoint, counted per stack
 * (with the tuple's other keys) in the stack_counts hash. Included by tpstat.bpf.c after
 * its --by tables; record_keys() hands an event here once the tuple's other keys are read.
 *
 * Why the stack is in the key rather than a BPF_MAP_TYPE_STACK_TRACE map: a stack map's
 * bpf_get_stackid() loses a stack whose bucket holds another one (-EEXIST) and cannot tell
 * a stack cut at the map's depth from one that ends there, so its counts are short by
 * collisions no user can size away (bcc's "N stack traces could not be displayed"); and
 * the count would still need a second hash keyed by the stack id. bpf_get_stack() into the
 * key takes one hash update, no collision (two stacks are two keys), and asks one frame
 * more than N so that a deeper stack is seen and counted as truncated. The cost is a key
 * hashed and compared at its full size, which user space keeps small: the key is sized at
 * load for the deepest stack asked (kstack:N, ustack:N), not for the largest possible.
 *
 * User frames are taken with BPF_F_USER_BUILD_ID: each is the build id of the mapped file
 * and the offset in it, resolved by the kernel while the process lives, so a process that
 * exits before the report is still named (src/stack_usym.h). A frame the kernel could not
 * resolve (its mmap lock busy) is a raw address; the key holds the tgid for it.
 *
 * The key is built in a per-CPU buffer, one per --by: only one tracepoint's program records
 * a --by, and a program does not nest in itself on a CPU (a nested run is a recursion
 * miss, counted as such), so no two runs share a buffer.
 */
#ifndef __BAREATOM_TPSTAT_STACK_H
#define __BAREATOM_TPSTAT_STACK_H

/* Both sized at load (src/tpstat_rodata.c) to TPSTAT_STACK_KEY_BYTES of the deepest stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TPSTAT_MAX_BY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TPSTAT_STACK_KEY_MAX);
} stack_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TPSTAT_STACK_ENTRIES);
	__uint(key_size, TPSTAT_STACK_KEY_MAX);
	__uint(value_size, sizeof(struct tpstat_by_val));
} stack_counts SEC(".maps");

struct tpstat_stack_stats stack_stats[TPSTAT_MAX_BY];

/*
 * One stack into @dst (@bytes: N+1 frames of kstack:N or ustack:N): true when it fits; a
 * stack that fills all of it is deeper than asked (truncated), a failure a read error,
 * each counted in @st.
 */
static __always_inline bool take_stack(void *ctx, void *dst, __u32 bytes, __u64 flags,
				       struct tpstat_stack_stats *st)
{
	long n = bpf_get_stack(ctx, dst, bytes, flags);

	if (n < 0) {
		atomic_add(&st->read_error, 1);
		return false;
	}
	if (n >= bytes) {
		atomic_add(&st->truncated, 1);
		return false;
	}
	return true;
}

/*
 * Count the event under its stacks and the tuple's other keys (@key), with --value's @v:
 * or in the bucket that says why it found no entry. A function of its own (a BPF-to-BPF
 * call, which the verifier follows with the caller's constants): record_keys() is unrolled
 * per --by table, and eight copies of this inline would take the program past the 16-bit
 * reach of a jump; a call costs nothing beside bpf_get_stack().
 */
static __noinline void tpstat_stack_record(__u32 b, const volatile struct tpstat_by *by,
						const struct tpstat_key *key, __u64 v, void *ctx)
{
	__u32 kbytes = TPSTAT_KSTACK_BYTES(by->kdepth), ubytes = TPSTAT_USTACK_BYTES(by->udepth);
	/* Both before b's address is taken, which leaves the verifier a b it cannot bound. */
	struct tpstat_stack_stats *st = &stack_stats[b];
	struct tpstat_by_stats *bst = &by_stats[b];
	struct tpstat_by_val *c, nv;
	struct tpstat_stack_key *h;
	__u32 slot = b;
	__u8 *buf;

	buf = bpf_map_lookup_elem(&stack_buf, &slot);
	if (!buf) {
		atomic_add(&st->read_error, 1);
		return;
	}
	h = (struct tpstat_stack_key *)buf;
	if (ubytes && !bpf_get_current_task_btf()->mm) {
		atomic_add(&st->no_ustack, 1);
		return;
	}
	h->by = b;
	h->tgid = ubytes ? bpf_get_current_pid_tgid() >> 32 : 0;
	__builtin_memcpy(h->k, key->k, sizeof(h->k));
	if (kbytes && !take_stack(ctx, buf + sizeof(*h), kbytes, 0, st))
		return;
	if (ubytes && !take_stack(ctx, buf + sizeof(*h) + kbytes, ubytes,
				  BPF_F_USER_STACK | BPF_F_USER_BUILD_ID, st))
		return;
	c = bpf_map_lookup_elem(&stack_counts, buf);
	if (!c) {
		nv = tpstat_by_value_first(v, by->vfield.is_signed);
		if (!bpf_map_update_elem(&stack_counts, buf, &nv, BPF_NOEXIST))
			return;
		c = bpf_map_lookup_elem(&stack_counts, buf);
		if (!c) {
			atomic_add(&st->map_full, 1);
			return;
		}
	}
	atomic_add(&c->count, 1);
	if (by->value)
		tpstat_by_value_add(c, v, by->vfield.is_signed, bst);
}

#endif /* __BAREATOM_TPSTAT_STACK_H */
