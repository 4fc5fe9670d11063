/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded string that printf appends to, cut (NUL-terminated) when full: how tpfield.c
 * lists members and arguments and tpfield_proto.c has libbpf's btf_dump write a type.
 */
#ifndef __BAREATOM_TPFIELD_SBUF_H
#define __BAREATOM_TPFIELD_SBUF_H

#include <stdarg.h>
#include <stdio.h>

struct sbuf {
	char *buf;
	size_t len, used;
};

static inline void sbuf_vprintf(void *ctx, const char *fmt, va_list ap)
{
	struct sbuf *b = ctx;
	int n;

	if (b->used >= b->len)
		return;
	n = vsnprintf(b->buf + b->used, b->len - b->used, fmt, ap);
	if (n > 0)
		b->used += (size_t)n < b->len - b->used ? (size_t)n : b->len - b->used - 1;
}

static inline void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

#endif /* __BAREATOM_TPFIELD_SBUF_H */
