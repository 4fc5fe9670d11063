// SPDX-License-Identifier: GPL-2.0
/*
 * The program whose frames tests/unit/stack-usym.t names after it has exited. stack-usym.t
 * builds it PIE, strips it and keeps its symbols and DWARF in a separate debug file
 * (objcopy --only-keep-debug, --add-gnu-debuglink), so every name must come from there.
 *
 * main -> outer -> middle -> inner (always inlined into middle) -> record_stack, which
 * plays the system call: it takes the stack (return addresses, as the kernel's user stack
 * has them) and prints each frame as the kernel's BPF_F_USER_BUILD_ID gives it, the build
 * id of the mapped file and the offset in that file, beside the raw address:
 *	frame IP BUILD_ID OFFSET
 * then "ready", and exits when a line comes on stdin (the test notes it meanwhile).
 * noipa keeps outer, middle and record_stack real functions (no inlining, no clones);
 * a value used after each call keeps the calls from becoming jumps.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct where {
	uintptr_t ip;
	int found;
	unsigned char id[20];
	size_t idlen;
	unsigned long long off;
};

/* The object that maps @w->ip: the offset in its file, and its build id note. */
static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct where *w = arg;
	int i;

	for (i = 0; i < info->dlpi_phnum && !w->found; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && w->ip >= start && w->ip < start + ph->p_memsz) {
			w->off = w->ip - start + ph->p_offset;
			w->found = 1;
		}
	}
	for (i = 0; i < info->dlpi_phnum && w->found && !w->idlen; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + 3) & ~3U);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				w->idlen = n->n_descsz < 20 ? n->n_descsz : 20;
				memcpy(w->id, desc, w->idlen);
				break;
			}
			p = (const char *)desc + ((n->n_descsz + 3) & ~3U);
		}
	}
	return w->found;
}

__attribute__((noipa)) int record_stack(int depth)
{
	void *ips[32];
	int i, j, n = backtrace(ips, 32);

	for (i = 0; i < n; i++) {
		struct where w = { .ip = (uintptr_t)ips[i] };

		dl_iterate_phdr(find_object, &w);
		printf("frame %#lx ", (unsigned long)w.ip);
		for (j = 0; j < 20; j++)
			printf("%02x", j < (int)w.idlen ? w.id[j] : 0);
		printf(" %#llx\n", w.found ? w.off : 0);
	}
	printf("ready\n");
	fflush(stdout);
	return depth + n;
}

static inline __attribute__((always_inline)) int inner(int x)
{
	return record_stack(x * 3) + 1;
}

__attribute__((noipa)) int middle(int x)
{
	return inner(x + 1) * 2;
}

__attribute__((noipa)) int outer(int x)
{
	return middle(x + 2) - 1;
}

int main(void)
{
	char line[16];
	int r = outer(1);

	/* Live until the test has had its look at /proc/PID. */
	if (!fgets(line, sizeof(line), stdin))
		return r & 1;
	return 0;
}
