/* SPDX-License-Identifier: GPL-2.0 */
/* Base64 (RFC 4648, padded), the form etcd's JSON gateway gives keys and values in (etcd_b64.c). */
#ifndef __BAREATOM_ETCD_B64_H
#define __BAREATOM_ETCD_B64_H

#include <stddef.h>

/* Base64 of @len bytes into @out (4 * ((len + 2) / 3) + 1 bytes). */
void etcd_b64_encode(const void *in, size_t len, char *out);
/* Decode; the length, or -1 for input that is not base64 or does not fit @max. */
long etcd_b64_decode(const char *in, void *out, size_t max);

#endif /* __BAREATOM_ETCD_B64_H */
