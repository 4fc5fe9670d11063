/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The textfile of --textfile: an exposition written whole for node_exporter's textfile
 * collector, which may read the file at any moment and must never see it half written.
 */
#ifndef __BAREATOM_METRICS_TEXTFILE_H
#define __BAREATOM_METRICS_TEXTFILE_H

#include <stddef.h>

/*
 * Write @len bytes of @buf to @path atomically: a temporary file in the same directory,
 * written, fsynced, renamed over @path, and the directory fsynced. Returns 0 or a negative
 * errno; @path is left as it was on failure.
 */
int metrics_write_textfile(const char *path, const char *buf, size_t len);

#endif /* __BAREATOM_METRICS_TEXTFILE_H */
