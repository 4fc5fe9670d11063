// SPDX-License-Identifier: GPL-2.0
/* Base64 (RFC 4648, padded), the form etcd's JSON gateway gives keys and values in (etcd_b64.h). */
#include <string.h>
#include "src/etcd_b64.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void etcd_b64_encode(const void *in, size_t len, char *out)
{
	const unsigned char *p = in;
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		*out++ = b64[p[i] >> 2];
		*out++ = b64[(p[i] & 3) << 4 | p[i + 1] >> 4];
		*out++ = b64[(p[i + 1] & 15) << 2 | p[i + 2] >> 6];
		*out++ = b64[p[i + 2] & 63];
	}
	if (i < len) {
		*out++ = b64[p[i] >> 2];
		if (i + 1 < len) {
			*out++ = b64[(p[i] & 3) << 4 | p[i + 1] >> 4];
			*out++ = b64[(p[i + 1] & 15) << 2];
		} else {
			*out++ = b64[(p[i] & 3) << 4];
			*out++ = '=';
		}
		*out++ = '=';
	}
	*out = '\0';
}

long etcd_b64_decode(const char *in, void *out, size_t max)
{
	unsigned char *o = out;
	size_t n = 0, len = strlen(in), i;
	unsigned int acc = 0;
	int bits = 0, pad = 0;

	if (len % 4)
		return -1;
	for (i = 0; i < len; i++) {
		const char *c;

		if (in[i] == '=') {
			if (i < len - 2 || ++pad > 2)
				return -1;
			continue;
		}
		c = strchr(b64, in[i]);
		if (!c || !*c || pad)
			return -1;
		acc = acc << 6 | (unsigned int)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n >= max)
				return -1;
			o[n++] = acc >> bits & 0xff;
		}
	}
	return (long)n;
}
