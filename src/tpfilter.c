// SPDX-License-Identifier: GPL-2.0
/* --filter: split 'EXPR OP VALUE' and resolve VALUE against EXPR's type (tpfilter.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "src/tpfilter.h"

static const char *const op_str[TPFILTER_NR_OPS] = {
	[TPFILTER_EQ] = "==", [TPFILTER_NE] = "!=", [TPFILTER_LT] = "<", [TPFILTER_LE] = "<=",
	[TPFILTER_GT] = ">", [TPFILTER_GE] = ">=", [TPFILTER_AND] = "&",
};

static const char *const key_str[TPFILTER_NR_KEYS] = {
	[TPFILTER_KEY_CPU] = "cpu", [TPFILTER_KEY_PID] = "pid", [TPFILTER_KEY_COMM] = "comm",
	[TPFILTER_KEY_CGROUP] = "cgroup",
};

const char *tpfilter_op_str(enum tpfilter_op op)
{
	return op < TPFILTER_NR_OPS ? op_str[op] : "?";
}

enum tpfilter_key tpfilter_key(const char *expr)
{
	for (int k = TPFILTER_KEY_EXPR + 1; k < TPFILTER_NR_KEYS; k++)
		if (!strcmp(expr, key_str[k]))
			return k;
	return TPFILTER_KEY_EXPR;
}

/* Copy @s[0..@len) with the blanks at both ends dropped into @out; false when it is too long. */
static bool trimmed(const char *s, size_t len, char *out, size_t size)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len >= size)
		return false;
	memcpy(out, s, len);
	out[len] = '\0';
	return true;
}

/* "NAME" or 'NAME': a comm as written with quotes. */
static bool quoted(const char *v)
{
	size_t len = strlen(v);

	return len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0];
}

int tpfilter_split(const char *text, struct tpfilter_text *t, char *err, size_t errlen)
{
	const char *p = text, *op = NULL;
	size_t oplen = 0;

	for (; *p; p++) {
		if (p[0] == '-' && p[1] == '>') {	/* a member step */
			p++;
			continue;
		}
		if (!strchr("=!<>&", *p))
			continue;
		op = p;
		oplen = p[1] == '=' ? 2 : 1;
		break;
	}
	if (!op) {
		snprintf(err, errlen, "no operator: give EXPR OP VALUE, OP one of == != < <= > >= &, "
			 "as in 'seq & 1' or 'prev->pid == 1'");
		return -EINVAL;
	}
	if (oplen == 1 && *op == '=') {
		snprintf(err, errlen, "'=' is not an operator: '==' compares");
		return -EINVAL;
	}
	if (oplen == 1 && *op == '!') {
		snprintf(err, errlen, "'!' alone is not an operator: '!=' compares");
		return -EINVAL;
	}
	if (*op == '&')
		oplen = 1;	/* "&=": & and a VALUE with an operator in it, refused below */
	if (*op == '&' && op[1] == '&') {
		snprintf(err, errlen, "'&&' is not an operator: give --filter once per condition "
			 "(they are ANDed); '&' tests bits");
		return -EINVAL;
	}
	for (int o = 0; o < TPFILTER_NR_OPS; o++)
		if (strlen(op_str[o]) == oplen && !strncmp(op, op_str[o], oplen))
			t->op = o;
	if (!trimmed(text, op - text, t->expr, sizeof(t->expr)) ||
	    !trimmed(op + oplen, strlen(op + oplen), t->value, sizeof(t->value))) {
		snprintf(err, errlen, "too long: EXPR and VALUE have at most %d bytes each",
			 TPFILTER_TEXT_LEN - 1);
		return -EINVAL;
	}
	if (!t->expr[0] || !t->value[0]) {
		snprintf(err, errlen, "'%s' needs %s on its %s", op_str[t->op],
			 !t->expr[0] ? "an EXPR" : "a VALUE", !t->expr[0] ? "left" : "right");
		return -EINVAL;
	}
	/* A quoted VALUE (a comm) may hold any byte, operators too. */
	if (!quoted(t->value) && strpbrk(t->value, "=!<>&")) {
		snprintf(err, errlen, "one operator per filter: '%s' has another after '%s'",
			 t->value, op_str[t->op]);
		return -EINVAL;
	}
	return 0;
}

/* The bits of @flt's value: a key's, or the field's integer (a bitfield's width). */
static unsigned int value_bits(const struct tpfilter *flt)
{
	switch (flt->key) {
	case TPFILTER_KEY_CPU:
	case TPFILTER_KEY_PID:
		return 32;
	case TPFILTER_KEY_EXPR:
		return flt->field.bit_size ? flt->field.bit_size : flt->field.size * 8;
	default:
		return 64;
	}
}

/* The type's name for messages: the field's C type, or the key's. */
static const char *type_name(const struct tpfilter *flt)
{
	switch (flt->key) {
	case TPFILTER_KEY_CPU:
	case TPFILTER_KEY_PID:
		return "u32";
	case TPFILTER_KEY_CGROUP:
		return "u64";
	default:
		return flt->field.type;
	}
}

/* An integer VALUE: true and *@out, or false when it is no integer at all. */
static bool parse_int(const char *s, bool *neg, __u64 *out, bool *range)
{
	const char *p = s;
	char *end;

	*neg = *p == '-';
	if (*neg)
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (!isxdigit((unsigned char)p[2]))
			return false;
		*out = strtoull(p + 2, &end, 16);
	} else {
		*out = strtoull(p, &end, 10);
	}
	if (*end)
		return false;
	*range = errno == ERANGE;
	return true;
}

/*
 * An enumerator's value as a sign and a magnitude: an unsigned enum's (BTF kflag 0) is never
 * negative, an enum64's up to 2^64 - 1; a signed one's is negative when its top bit is set.
 */
static void enum_value(__u64 raw, unsigned int bits, bool is_signed, bool *neg, __u64 *mag)
{
	if (bits == 32)
		raw = is_signed ? (__u64)(__s64)(__s32)raw : (__u64)(__u32)raw;
	*neg = is_signed && (__s64)raw < 0;
	*mag = *neg ? -raw : raw;
}

/*
 * The enumerator @name in @btf: in enum @want_id when it is not 0, in any enum otherwise.
 * Returns 1 and its value in *@neg, *@mag for one value, 0 for none, -EEXIST when enums
 * disagree on its value.
 */
static int find_enumerator(const struct btf *btf, __u32 want_id, const char *name, bool *neg,
			   __u64 *mag)
{
	__u32 n = btf__type_cnt(btf);
	int found = 0;

	for (__u32 id = want_id ? want_id : 1; id < (want_id ? want_id + 1 : n); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		bool is64 = btf_is_enum64(t);

		if (!btf_is_enum(t) && !is64)
			continue;
		for (int i = 0; i < btf_vlen(t); i++) {
			__u32 name_off = is64 ? btf_enum64(t)[i].name_off : btf_enum(t)[i].name_off;
			__u64 raw = is64 ? btf_enum64_value(&btf_enum64(t)[i]) : (__u32)btf_enum(t)[i].val;
			bool en;
			__u64 em;

			if (strcmp(btf__name_by_offset(btf, name_off), name))
				continue;
			enum_value(raw, is64 ? 64 : 32, btf_kflag(t), &en, &em);
			if (found && (en != *neg || em != *mag))
				return -EEXIST;
			*neg = en;
			*mag = em;
			found = 1;
		}
	}
	return found;
}

/* The enum that @type ("enum NAME") names, or 0. */
static __u32 enum_of(const struct btf *btf, const char *type)
{
	__s32 id;

	if (!btf || strncmp(type, "enum ", 5))
		return 0;
	id = btf__find_by_name_kind(btf, type + 5, BTF_KIND_ENUM);
	if (id <= 0)
		id = btf__find_by_name_kind(btf, type + 5, BTF_KIND_ENUM64);
	return id > 0 ? id : 0;
}

/* "A, B, C" into @buf: the enumerators of enum @id, as many as fit. */
static void list_enumerators(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < btf_vlen(t) && off < len; i++) {
		__u32 name_off = btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off;
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				 btf__name_by_offset(btf, name_off));

		if (n < 0 || (size_t)n >= len - off) {
			snprintf(buf + (off < len - 5 ? off : len - 5), 5, ", ..");
			return;
		}
		off += n;
	}
}

/* comm takes == and != and a name of at most 15 bytes, quoted or not. */
static int resolve_comm(const struct tpfilter_text *t, struct tpfilter *flt, char *err,
			size_t errlen)
{
	const char *v = t->value;
	size_t len = strlen(v);

	if (t->op != TPFILTER_EQ && t->op != TPFILTER_NE) {
		snprintf(err, errlen, "comm takes == and != only, not '%s'", op_str[t->op]);
		return -EINVAL;
	}
	if (quoted(v)) {
		v++;
		len -= 2;
	}
	if (!len || len >= sizeof(flt->comm)) {
		snprintf(err, errlen, "comm '%.*s': a task name has 1 to %zu bytes", (int)len, v,
			 sizeof(flt->comm) - 1);
		return -EINVAL;
	}
	memset(flt->comm, 0, sizeof(flt->comm));
	memcpy(flt->comm, v, len);
	flt->op = t->op;
	return 0;
}

int tpfilter_resolve(const struct btf *btf, const struct tpfilter_text *t, struct tpfilter *flt,
		     char *err, size_t errlen)
{
	bool is_signed = flt->key == TPFILTER_KEY_EXPR && flt->field.is_signed;
	unsigned int bits = value_bits(flt);
	bool neg = false, range = false;
	__u64 mag = 0, v;
	__u32 enum_id;

	if (flt->key == TPFILTER_KEY_COMM)
		return resolve_comm(t, flt, err, errlen);
	enum_id = flt->key == TPFILTER_KEY_EXPR ? enum_of(btf, flt->field.type) : 0;
	if (!parse_int(t->value, &neg, &mag, &range)) {
		int found = btf ? find_enumerator(btf, enum_id, t->value, &neg, &mag) : 0;

		if (found == -EEXIST) {
			snprintf(err, errlen, "'%s' names different values in different enums: give "
				 "the number", t->value);
			return -EINVAL;
		}
		if (!found && enum_id) {
			char list[512];

			list_enumerators(btf, enum_id, list, sizeof(list));
			snprintf(err, errlen, "'%s' is not a value of %s: %s", t->value,
				 flt->field.type, list);
			return -EINVAL;
		}
		if (!found) {
			snprintf(err, errlen, "'%s' is neither an integer nor an enumerator in BTF "
				 "(integers: decimal, or hex with 0x)", t->value);
			return -EINVAL;
		}
	} else if (range) {
		snprintf(err, errlen, "%s is out of range for %s", t->value, type_name(flt));
		return -EINVAL;
	}
	/* The value as the field's own integer would hold it, or refused. */
	if (neg && !mag)
		neg = false;
	if (neg && !is_signed) {
		snprintf(err, errlen, "%s is negative, and %s is unsigned", t->value, type_name(flt));
		return -EINVAL;
	}
	if (bits < 64) {
		__u64 lim = is_signed ? 1ULL << (bits - 1) : 1ULL << bits;

		if (neg ? mag > lim : mag >= lim) {
			snprintf(err, errlen, "%s is out of range for %s (%u bits)", t->value,
				 type_name(flt), bits);
			return -EINVAL;
		}
	} else if (is_signed && (neg ? mag > 1ULL << 63 : mag >= 1ULL << 63)) {
		snprintf(err, errlen, "%s is out of range for %s", t->value, type_name(flt));
		return -EINVAL;
	}
	v = neg ? -mag : mag;
	flt->op = t->op;
	flt->is_signed = is_signed;
	flt->value = v;
	return 0;
}
