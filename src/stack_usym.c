// SPDX-License-Identifier: GPL-2.0
/* User frames by name through libdwfl (stack_usym.h says what is recorded, and why). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include "src/stack_usym.h"

/* A file known by its build id; its Dwfl is made on first use and kept for the run. */
struct usym_file {
	unsigned char id[BPF_BUILD_ID_SIZE];	/* zero-padded, as the kernel gives it */
	char *path;				/* NULL: not found (yet), or [vdso] */
	Dwfl *dwfl;				/* its own; NULL when mod is a process's */
	Dwfl_Module *mod;
	int opened;				/* tried: mod is set, or the file failed */
};

/* A process noted while it lived: its Dwfl, or NULL when it was gone by then. */
struct usym_proc {
	pid_t pid;
	Dwfl *dwfl;
};

/* A frame named before: its module, address and flags, and its lines, each ending '\n'. */
struct usym_memo {
	const void *mod;
	uint64_t addr;
	unsigned int flags;
	char *text;		/* NULL: a free slot */
};

struct usym {
	struct usym_file *files;
	size_t nfiles, cap_files;
	struct usym_proc *procs;
	size_t nprocs, cap_procs;
	/*
	 * The names given, by (module, address, flags): a frame seen in every interval's
	 * report, or in many stacks, walks the DWARF scopes once (open addressing, a power
	 * of two slots, at most half full).
	 */
	struct usym_memo *memo;
	size_t memo_slots, memo_used;
};

/* A live process: its modules from /proc/PID/maps, ELF files through /proc/PID too. */
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* One file by its path: debug files by .gnu_debuglink or build id (and debuginfod). */
static const Dwfl_Callbacks file_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void *grow(void *v, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *p = realloc(v, c * size);

	if (p)
		*cap = c;
	return p;
}

struct usym *usym_new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct usym));
}

void usym_free(struct usym *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nfiles; i++) {
		if (u->files[i].dwfl)
			dwfl_end(u->files[i].dwfl);
		free(u->files[i].path);
	}
	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	for (i = 0; i < u->memo_slots; i++)
		free(u->memo[i].text);
	free(u->memo);
	free(u->files);
	free(u->procs);
	free(u);
}

static struct usym_file *file_find(struct usym *u, const unsigned char *id)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		if (!memcmp(u->files[i].id, id, BPF_BUILD_ID_SIZE))
			return &u->files[i];
	return NULL;
}

/* The entry of build id @id (@len bytes), made when new; its path set if it has none. */
static struct usym_file *file_index(struct usym *u, const unsigned char *id, size_t len,
				    const char *path)
{
	unsigned char key[BPF_BUILD_ID_SIZE] = {};
	struct usym_file *f;

	memcpy(key, id, len < sizeof(key) ? len : sizeof(key));
	f = file_find(u, key);
	if (!f) {
		if (u->nfiles == u->cap_files) {
			struct usym_file *v = grow(u->files, &u->cap_files, sizeof(*v));

			if (!v)
				return NULL;
			u->files = v;
		}
		f = &u->files[u->nfiles++];
		memset(f, 0, sizeof(*f));
		memcpy(f->id, key, sizeof(key));
	}
	/* Found now, after a frame looked for it in vain: look again on the next one. */
	if (path && !f->path) {
		f->path = strdup(path);
		if (f->dwfl)
			dwfl_end(f->dwfl);
		f->dwfl = NULL;
		f->mod = NULL;
		f->opened = 0;
	}
	return f;
}

int usym_add_file(struct usym *u, const char *path)
{
	const void *id;
	ssize_t len;
	Elf *elf;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (len <= 0)
		ret = elf ? -ENOENT : -EINVAL;
	else if (!file_index(u, id, len, path))
		ret = -ENOMEM;
	elf_end(elf);
	close(fd);
	return ret;
}

/* dwfl_getmodules: open a noted process's file now, while /proc/PID is there; index it. */
static int note_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		       void *arg)
{
	struct usym *u = arg;
	const unsigned char *bits;
	const char *mainfile = NULL;
	struct usym_file *f;
	GElf_Addr bias, vaddr;
	int len;

	if (!dwfl_module_getelf(mod, &bias))
		return DWARF_CB_OK;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0)
		return DWARF_CB_OK;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	f = file_index(u, bits, len, mainfile && mainfile[0] == '/' ? mainfile : NULL);
	/*
	 * The very file the process mapped, opened while it ran: frames by build id name
	 * through it even when its path holds another file by now (rebuilt) or it has none
	 * ([vdso]).
	 */
	if (f && !f->mod) {
		if (f->dwfl)
			dwfl_end(f->dwfl);
		f->dwfl = NULL;
		f->mod = mod;
		f->opened = 1;
	}
	return DWARF_CB_OK;
}

static struct usym_proc *proc_find(struct usym *u, pid_t pid)
{
	size_t i;

	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	return NULL;
}

int usym_note_pid(struct usym *u, pid_t pid)
{
	struct usym_proc *p = proc_find(u, pid);
	Dwfl *dwfl;
	int ret;

	if (p)
		return p->dwfl ? 0 : -ESRCH;
	if (u->nprocs == u->cap_procs) {
		struct usym_proc *v = grow(u->procs, &u->cap_procs, sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->procs = v;
	}
	dwfl = dwfl_begin(&proc_callbacks);
	if (!dwfl)
		return -ENOMEM;
	dwfl_report_begin(dwfl);
	ret = dwfl_linux_proc_report(dwfl, pid);
	dwfl_report_end(dwfl, NULL, NULL);
	if (ret) {
		dwfl_end(dwfl);
		dwfl = NULL;
		ret = ret > 0 && ret != ENOENT ? -ret : -ESRCH;
	} else {
		dwfl_getmodules(dwfl, note_module, u, 0);
	}
	/* A process gone is remembered as gone: it is not asked for again. */
	u->procs[u->nprocs].pid = pid;
	u->procs[u->nprocs].dwfl = dwfl;
	u->nprocs++;
	return ret;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

__attribute__((format(printf, 2, 3)))
static void add_line(struct usym_frame *out, const char *fmt, ...)
{
	va_list ap;

	if (out->n >= USYM_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(out->name[out->n++], STACK_NAME_LEN, fmt, ap);
	va_end(ap);
}

/*
 * The lines of address @addr in module @mod: the functions inlined there, innermost first,
 * then the function, by its symbol (or, without one, its DWARF name); with neither, the
 * file's base name and @file_off.
 */
static void name_in_module(Dwfl_Module *mod, Dwarf_Addr addr, uint64_t file_off,
			   unsigned int flags, struct usym_frame *out)
{
	Dwarf_Addr look = (flags & STACK_NAME_RETADDR) && addr ? addr - 1 : addr;
	const char *fn, *modname, *subprogram = NULL;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias;
	GElf_Off off = 0;
	GElf_Sym sym;
	int i, n;

	out->n = 0;
	cu = dwfl_module_addrdie(mod, look, &bias);
	n = cu ? dwarf_getscopes(cu, look - bias, &scopes) : 0;
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name = dwarf_diename(&scopes[i]);

		if (tag == DW_TAG_subprogram) {
			subprogram = name;
			break;
		}
		/* Keep the last line for the function they are inlined into. */
		if (tag == DW_TAG_inlined_subroutine && out->n < USYM_LINES - 1)
			add_line(out, "%s" STACK_INLINED, name ? name : "??");
	}
	fn = dwfl_module_addrinfo(mod, look, &off, &sym, NULL, NULL, NULL);
	if (fn && (flags & STACK_NAME_OFFSET))
		add_line(out, "%s+0x%llx", fn, (unsigned long long)(off + (addr - look)));
	else if (fn || subprogram)
		add_line(out, "%s", fn ? fn : subprogram);
	else {
		modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		add_line(out, "%s+0x%llx", base_name(modname ? modname : "[unknown]"),
			 (unsigned long long)file_off);
	}
	free(scopes);
}

static size_t memo_hash(const void *mod, uint64_t addr, unsigned int flags)
{
	uint64_t h = ((uintptr_t)mod ^ (addr * 0x9e3779b97f4a7c15ULL)) + flags;

	return (size_t)(h ^ (h >> 29));
}

static struct usym_memo *memo_slot(struct usym_memo *memo, size_t slots, const void *mod,
				   uint64_t addr, unsigned int flags)
{
	size_t i = memo_hash(mod, addr, flags) & (slots - 1);

	while (memo[i].text && (memo[i].mod != mod || memo[i].addr != addr ||
				memo[i].flags != flags))
		i = (i + 1) & (slots - 1);
	return &memo[i];
}

/* Remember @out for (@mod, @addr, @flags); a failure only costs the next lookup. */
static void memo_put(struct usym *u, const void *mod, uint64_t addr, unsigned int flags,
		     const struct usym_frame *out)
{
	struct usym_memo *m;
	size_t len = 0, i;
	char *text;

	if (2 * (u->memo_used + 1) > u->memo_slots) {
		size_t slots = u->memo_slots ? 2 * u->memo_slots : 1024;
		struct usym_memo *v = calloc(slots, sizeof(*v));

		if (!v)
			return;
		for (i = 0; i < u->memo_slots; i++)
			if (u->memo[i].text)
				*memo_slot(v, slots, u->memo[i].mod, u->memo[i].addr,
					   u->memo[i].flags) = u->memo[i];
		free(u->memo);
		u->memo = v;
		u->memo_slots = slots;
	}
	for (i = 0; i < (size_t)out->n; i++)
		len += strlen(out->name[i]) + 1;
	text = malloc(len + 1);
	if (!text)
		return;
	for (len = 0, i = 0; i < (size_t)out->n; i++)
		len += sprintf(text + len, "%s\n", out->name[i]);
	m = memo_slot(u->memo, u->memo_slots, mod, addr, flags);
	*m = (struct usym_memo){ .mod = mod, .addr = addr, .flags = flags, .text = text };
	u->memo_used++;
}

/* @out from the names given before to (@mod, @addr, @flags): 1, or 0 when there are none. */
static int memo_get(struct usym *u, const void *mod, uint64_t addr, unsigned int flags,
		    struct usym_frame *out)
{
	struct usym_memo *m;
	const char *p, *nl;

	if (!u->memo_slots)
		return 0;
	m = memo_slot(u->memo, u->memo_slots, mod, addr, flags);
	if (!m->text)
		return 0;
	out->n = 0;
	for (p = m->text; (nl = strchr(p, '\n')) && out->n < USYM_LINES; p = nl + 1)
		snprintf(out->name[out->n++], STACK_NAME_LEN, "%.*s", (int)(nl - p), p);
	return 1;
}

/* name_in_module, each (module, address, flags) worked out once for the run. */
static void name_cached(struct usym *u, Dwfl_Module *mod, Dwarf_Addr addr, uint64_t file_off,
			unsigned int flags, struct usym_frame *out)
{
	if (memo_get(u, mod, addr, flags, out))
		return;
	name_in_module(mod, addr, file_off, flags, out);
	memo_put(u, mod, addr, flags, out);
}

/* The Dwfl of @f, made on its first use: NULL when its file is not found or not it. */
static Dwfl_Module *file_module(struct usym_file *f)
{
	const unsigned char *bits;
	unsigned char id[BPF_BUILD_ID_SIZE] = {};
	char dbg[64 + 2 * BPF_BUILD_ID_SIZE];
	GElf_Addr vaddr;
	int i, len;

	if (f->opened)
		return f->mod;
	f->opened = 1;
	/* Not seen on this machine's processes: a debug package's link to it, if any. */
	if (!f->path) {
		int o = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", f->id[0]);

		for (i = 1; i < BPF_BUILD_ID_SIZE; i++)
			o += snprintf(dbg + o, sizeof(dbg) - o, "%02x", f->id[i]);
		if (access(dbg, R_OK))
			return NULL;
		f->path = strdup(dbg);
		if (!f->path)
			return NULL;
	}
	f->dwfl = dwfl_begin(&file_callbacks);
	if (!f->dwfl)
		return NULL;
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_elf(f->dwfl, base_name(f->path), f->path, -1, 0, false);
	dwfl_report_end(f->dwfl, NULL, NULL);
	/* A file rebuilt since is another file: refuse it rather than name frames wrongly. */
	len = f->mod ? dwfl_module_build_id(f->mod, &bits, &vaddr) : 0;
	if (len > 0)
		memcpy(id, bits, len < BPF_BUILD_ID_SIZE ? len : BPF_BUILD_ID_SIZE);
	if (len <= 0 || memcmp(id, f->id, sizeof(id)))
		f->mod = NULL;
	return f->mod;
}

/* File offset @off to the module's address: through the PT_LOAD segment that holds it. */
static int offset_addr(Dwfl_Module *mod, uint64_t off, Dwarf_Addr *addr)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t i, n;

	if (!elf || elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* The kernel maps from the page the segment starts in. */
		if (off >= (ph.p_offset & ~0xfffULL) && off < ph.p_offset + ph.p_filesz) {
			*addr = off - ph.p_offset + ph.p_vaddr + bias;
			return 0;
		}
	}
	return -1;
}

void usym_ip(struct usym *u, pid_t pid, uint64_t ip, unsigned int flags,
	     struct usym_frame *out)
{
	struct usym_proc *p = proc_find(u, pid);
	Dwfl_Module *mod = NULL;
	Dwarf_Addr start = 0;

	if (!p && !usym_note_pid(u, pid))
		p = proc_find(u, pid);
	if (p && p->dwfl)
		mod = dwfl_addrmodule(p->dwfl, ip);
	if (!mod) {
		out->n = 0;
		add_line(out, "[unknown]+0x%llx", (unsigned long long)ip);
		return;
	}
	dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	name_cached(u, mod, ip, ip - start, flags, out);
}

void usym_build_id(struct usym *u, pid_t pid, const struct bpf_stack_build_id *f,
		   unsigned int flags, struct usym_frame *out)
{
	struct usym_file *file;
	Dwfl_Module *mod;
	Dwarf_Addr addr;
	char id[16];

	out->n = 0;
	if (f->status == BPF_STACK_BUILD_ID_IP) {
		usym_ip(u, pid, f->ip, flags, out);
		return;
	}
	if (f->status != BPF_STACK_BUILD_ID_VALID) {
		add_line(out, "[unknown]");
		return;
	}
	file = file_index(u, f->build_id, BPF_BUILD_ID_SIZE, NULL);
	mod = file ? file_module(file) : NULL;
	if (mod && !offset_addr(mod, f->offset, &addr)) {
		name_cached(u, mod, addr, f->offset, flags, out);
		return;
	}
	if (mod) {
		const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

		add_line(out, "%s+0x%llx", base_name(name ? name : "[unknown]"),
			 (unsigned long long)f->offset);
		return;
	}
	snprintf(id, sizeof(id), "%02x%02x%02x%02x", f->build_id[0], f->build_id[1],
		 f->build_id[2], f->build_id[3]);
	add_line(out, "[build-id %s]+0x%llx", id, (unsigned long long)f->offset);
}
