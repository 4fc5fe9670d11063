/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --flamegraph FILE: an interactive flame graph of counted stacks in one HTML file that
 * opens offline in any browser. The viewer is d3-flame-graph (click a frame to zoom on it,
 * search with highlighting, each frame's title its count and its share of all events),
 * inlined with the d3 bundle it runs on (src/stack_viewer.S); the stacks follow as data,
 * root first, as the folded lines have them (stack_fold.h): the key's other parts, the user
 * frames, a "-" frame, the kernel frames, kernel frames colored apart and inlined ones too.
 * The events that found no stack are frames of their own under the root ("[truncated ...]"),
 * so the whole width is every event, and the page says how they add up. Several stack keys
 * (struct stack_group) share the page: each its own frame under the root, its stacks and
 * buckets above it, the width every event of them all.
 */
#ifndef __BAREATOM_STACK_HTML_H
#define __BAREATOM_STACK_HTML_H

#include <stddef.h>
#include <stdio.h>
#include "src/stack_fold.h"

/* The page, titled @title, of the @ng groups @g: their entries and buckets. */
int stack_html_write(FILE *f, const char *title, const struct stack_group *g, size_t ng);

/* The same into @path, through a temporary file renamed over it: 0, or -errno. */
int stack_html_file(const char *path, const char *title, const struct stack_group *g,
		    size_t ng);

#endif /* __BAREATOM_STACK_HTML_H */
