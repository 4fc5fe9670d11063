// SPDX-License-Identifier: GPL-2.0
/*
 * core-relos: what a BPF object asks of the kernel's types, by name, and its code.
 *
 *   core-relos OBJ
 *
 * Prints one line per CO-RE relocation, "SECTION INSN KIND ROOT ACCESS (TYPE SIZE)", the
 * access walked through the object's own BTF into member names (task_struct.real_parent,
 * cfs_rq.avg.util_avg) with the last member's kind and size, then one line per instruction of
 * each code section, in hex, with the offset and immediate of every relocated instruction
 * zeroed (they hold the compile-time layout that libbpf replaces at load time).
 *
 * The same source compiled against two vmlinux.h (Debian's BTF, build/vmlinux.h, and our
 * kernel's) gives the same output exactly when both headers have every type and member the
 * program uses, with the same kinds and sizes, and the code depends on nothing else of the
 * layout: then the object built against Debian's BTF does on our kernel what one built
 * against our kernel's would (Makefile: the core-check stamp; tests/unit/core-check.t).
 * Reads the file only; nothing is loaded.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/btf.h>

/* The .BTF.ext header (the kernel's include/uapi/linux/btf.h has only .BTF's). */
struct btf_ext_hdr {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off, func_info_len;
	__u32 line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;
};

static const char *const kinds[] = {
	"field_byte_offset", "field_byte_size", "field_exists", "field_signed",
	"field_lshift_u64", "field_rshift_u64", "type_id_local", "type_id_target",
	"type_exists", "type_size", "enumval_exists", "enumval_value", "type_matches",
};

/* @id past modifiers and typedefs. */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id, __u32 *out)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (out)
		*out = id;
	return t;
}

static const char *kind_name(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: return "int";
	case BTF_KIND_PTR: return "ptr";
	case BTF_KIND_ARRAY: return "array";
	case BTF_KIND_STRUCT: return "struct";
	case BTF_KIND_UNION: return "union";
	case BTF_KIND_ENUM: return "enum";
	case BTF_KIND_ENUM64: return "enum64";
	case BTF_KIND_FWD: return "fwd";
	case BTF_KIND_FUNC_PROTO: return "func_proto";
	default: return "other";
	}
}

/* One relocation: its root type and access path, by name. */
static void print_relo(const struct btf *btf, const char *sec, const struct bpf_core_relo *r)
{
	const char *spec = btf__name_by_offset(btf, r->access_str_off);
	const struct btf_type *t = btf__type_by_id(btf, r->type_id);
	__u32 id = r->type_id;
	char path[1024] = "";
	size_t len = 0;
	const char *p = spec;
	int first = 1;

	printf("relo %s %u %s %s %s", sec, r->insn_off / 8,
	       r->kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[r->kind] : "unknown",
	       t ? kind_name(t) : "?", t ? btf__name_by_offset(btf, t->name_off) : "?");
	if (r->kind >= BPF_CORE_TYPE_ID_LOCAL && r->kind <= BPF_CORE_TYPE_SIZE) {
		printf("\n");
		return;
	}
	t = skip_mods(btf, id, &id);
	while (p && *p && t) {
		unsigned long idx = strtoul(p, (char **)&p, 10);

		if (*p == ':')
			p++;
		if (r->kind == BPF_CORE_ENUMVAL_EXISTS || r->kind == BPF_CORE_ENUMVAL_VALUE) {
			const char *n = "?";

			if (btf_is_enum(t) && idx < btf_vlen(t))
				n = btf__name_by_offset(btf, btf_enum(t)[idx].name_off);
			else if (btf_is_enum64(t) && idx < btf_vlen(t))
				n = btf__name_by_offset(btf, btf_enum64(t)[idx].name_off);
			len += snprintf(path + len, sizeof(path) - len, "::%s", n);
			break;
		}
		if (first) {	/* the root's index: an array of the root type, not a member */
			first = 0;
			if (idx)
				len += snprintf(path + len, sizeof(path) - len, "[%lu]", idx);
			continue;
		}
		if (btf_is_composite(t) && idx < btf_vlen(t)) {
			const struct btf_member *m = btf_members(t) + idx;
			const char *n = btf__name_by_offset(btf, m->name_off);

			len += snprintf(path + len, sizeof(path) - len, ".%s", *n ? n : "(anon)");
			t = skip_mods(btf, m->type, &id);
		} else if (btf_is_array(t)) {
			len += snprintf(path + len, sizeof(path) - len, "[%lu]", idx);
			t = skip_mods(btf, btf_array(t)->type, &id);
		} else {
			len += snprintf(path + len, sizeof(path) - len, "!%lu", idx);
			t = NULL;
		}
		if (len >= sizeof(path))
			break;
	}
	printf(" %s", *path ? path : "-");
	if (t && r->kind <= BPF_CORE_FIELD_RSHIFT_U64) {
		__s64 size = btf__resolve_size(btf, id);

		printf(" (%s %lld)", kind_name(t), (long long)size);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	struct btf *btf;
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf_Data *ext = NULL;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: core-relos OBJ\n");
		return 2;
	}
	btf = btf__parse_elf(argv[1], NULL);
	fd = open(argv[1], O_RDONLY);
	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!btf || !elf || !gelf_getehdr(elf, &eh)) {
		fprintf(stderr, "core-relos: %s: not a BPF object with BTF\n", argv[1]);
		return 1;
	}
	/* Relocated instructions, as (section index, instruction index) marks. */
	size_t nsec = 0;
	elf_getshdrnum(elf, &nsec);
	unsigned char **marks = calloc(nsec, sizeof(*marks));

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		gelf_getshdr(scn, &sh);
		name = elf_strptr(elf, eh.e_shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".BTF.ext"))
			ext = elf_getdata(scn, NULL);
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR))
			marks[elf_ndxscn(scn)] = calloc(sh.sh_size / 8 + 1, 1);
	}
	if (ext && ext->d_size >= sizeof(struct btf_ext_hdr)) {
		const struct btf_ext_hdr *h = ext->d_buf;
		const char *base = (const char *)ext->d_buf + h->hdr_len;
		const char *p, *end;
		__u32 rec;

		if (h->hdr_len < sizeof(*h) || !h->core_relo_len) {
			printf("no CO-RE relocations\n");
			goto code;
		}
		p = base + h->core_relo_off;
		end = p + h->core_relo_len;
		rec = *(const __u32 *)p;
		p += 4;
		while (p + 8 <= end) {
			__u32 sec_off = ((const __u32 *)p)[0], n = ((const __u32 *)p)[1];
			const char *sec = btf__name_by_offset(btf, sec_off);
			Elf_Scn *s = NULL;

			p += 8;
			/* The section this info is about, to mark its instructions. */
			while ((s = elf_nextscn(elf, s))) {
				GElf_Shdr sh;

				gelf_getshdr(s, &sh);
				if (!strcmp(elf_strptr(elf, eh.e_shstrndx, sh.sh_name), sec))
					break;
			}
			for (__u32 i = 0; i < n && p + rec <= end; i++, p += rec) {
				const struct bpf_core_relo *r = (const void *)p;

				print_relo(btf, sec, r);
				if (s && marks[elf_ndxscn(s)])
					marks[elf_ndxscn(s)][r->insn_off / 8] = 1;
			}
		}
	}
code:
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t idx = elf_ndxscn(scn);

		if (!marks[idx])
			continue;
		gelf_getshdr(scn, &sh);
		d = elf_getdata(scn, NULL);
		const char *name = elf_strptr(elf, eh.e_shstrndx, sh.sh_name);

		for (size_t i = 0; d && i < d->d_size / 8; i++) {
			struct bpf_insn in;

			memcpy(&in, (const char *)d->d_buf + i * 8, 8);
			if (marks[idx][i]) {
				in.off = 0;
				in.imm = 0;
			} else if (i && marks[idx][i - 1] && ((struct bpf_insn *)d->d_buf)[i - 1].code ==
				   (BPF_LD | BPF_IMM | BPF_DW)) {
				in.imm = 0;	/* the second half of a relocated 64-bit load */
			}
			printf("insn %s %zu %02x %x %x %d %d\n", name, i, in.code, in.dst_reg, in.src_reg,
			       in.off, in.imm);
		}
	}
	elf_end(elf);
	close(fd);
	btf__free(btf);
	return 0;
}
