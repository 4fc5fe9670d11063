/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User frames by name, through elfutils' libdwfl: ELF symbols, .gnu_debuglink and build-id
 * debug files (and debuginfod, where DEBUGINFOD_URLS configures it: libdwfl's standard
 * debuginfo lookup asks it then), PIE and shared libraries, and the functions inlined at a
 * frame (DWARF scopes), each a line of its own marked " (inlined)" (stack_frame.h).
 *
 * The record a BPF program keeps, and why. A stack taken with BPF_F_USER_BUILD_ID gives,
 * per frame, struct bpf_stack_build_id (linux/bpf.h): the build id of the mapped file and
 * the offset in that file, resolved by the kernel at the event, while the mapping exists.
 * That is what survives the process: no /proc/PID/maps to race against its exit, no
 * address-space layout (ASLR, PIE) to guess, and a file replaced on disk since (a rebuilt
 * binary) is refused by its build id rather than named wrongly. So frames name by
 * (build id, offset); what remains is to find the file of a build id, which this looks
 * for, in order:
 *	1. the files seen in the maps of the processes noted while they lived
 *	   (usym_note_pid: tpstat notes a process when it first sees its tgid, and itself
 *	   at start, whose libc and ld.so most processes share), and files added by name
 *	   (usym_add_file: the command tpstat runs);
 *	2. /usr/lib/debug/.build-id/NN/REST (debug packages), and debuginfod if configured.
 * The kernel falls back to a raw address for a frame (status BPF_STACK_BUILD_ID_IP) when it
 * cannot take the process's mmap lock without waiting: those frames name through the Dwfl
 * of their process, reported from its /proc/PID/maps when it was noted (one Dwfl per
 * process, its files opened then, so that it keeps naming after the process exits).
 *
 * Everything is read once and cached for the run: one Dwfl per build id and per noted
 * process, never rebuilt per interval. A frame no symbol names shows "FILE+0xOFFSET" (the
 * file's base name, the offset in it), "[build-id 0123abcd]+0xOFFSET" when the file was not
 * found, "[unknown]+0xADDR" for a raw address outside every known mapping.
 */
#ifndef __BAREATOM_STACK_USYM_H
#define __BAREATOM_STACK_USYM_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/bpf.h>
#include "src/stack_frame.h"

/* A frame's lines, innermost first: the inlined functions, then the one they are in. */
#define USYM_LINES 8
struct usym_frame {
	int n;
	char name[USYM_LINES][STACK_NAME_LEN];
};

struct usym;

struct usym *usym_new(void);
void usym_free(struct usym *u);

/*
 * Note the live process @pid: a Dwfl from its maps, its files opened now, and each file
 * indexed by build id. 0, or -errno (-ESRCH: it is gone). Noting it again does nothing.
 */
int usym_note_pid(struct usym *u, pid_t pid);

/* Index the ELF file @path by its build id: 0, or -errno (-ENOENT: it has none). */
int usym_add_file(struct usym *u, const char *path);

/* Frame @f as the kernel gave it with BPF_F_USER_BUILD_ID (@pid for a raw-address one). */
void usym_build_id(struct usym *u, pid_t pid, const struct bpf_stack_build_id *f,
		   unsigned int flags, struct usym_frame *out);

/* The raw address @ip of process @pid (noted while it lived). */
void usym_ip(struct usym *u, pid_t pid, uint64_t ip, unsigned int flags,
	     struct usym_frame *out);

#endif /* __BAREATOM_STACK_USYM_H */
