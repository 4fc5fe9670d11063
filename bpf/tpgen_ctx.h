/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpgen's tracepoint argument as BPF sees it. The kernel module's own
 * definition (kernel/module/tpgen.h) is in the module's BTF, not in
 * vmlinux.h; preserve_access_index makes every field access a CO-RE
 * relocation resolved against the loaded module, so only the fields we read
 * must exist, at whatever offset.
 */
#ifndef __BAREATOM_TPGEN_CTX_H
#define __BAREATOM_TPGEN_CTX_H

struct tpgen_ctx {
	__u64 fire_id;
	__u64 count;
	int cpu;
} __attribute__((preserve_access_index));

#endif /* __BAREATOM_TPGEN_CTX_H */
