/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's wildcard habit for tpstat's tracepoint arguments: 'sched:*', 'pelt_*', 'irq_handler_?',
 * 'sched_[sw]*' name every tracepoint of the running kernel they match (fnmatch(3)). A pure
 * function of the names and the kernel's list, so that a host test gives it any list.
 */
#ifndef __BAREATOM_TPSTAT_EXPAND_H
#define __BAREATOM_TPSTAT_EXPAND_H

#include <stdbool.h>
#include "src/tplist.h"

/* Does @name hold a wildcard: *, ? or [? */
bool tpstat_is_pattern(const char *name);

enum tpstat_expand_err {
	TPX_OK,
	TPX_NO_MATCH,		/* names[bad], a pattern, matches no tracepoint */
	TPX_NO_TRACEFS,		/* names[bad] has SUBSYS:, and no tracepoint has a subsystem */
	TPX_NOMEM,
};

struct tpstat_expansion {
	const struct tp_info **tps;	/* the tracepoints, each once; NULL: an unknown name */
	const char **names;		/* each one's name (an unknown one as given) */
	int n;
	int *at;			/* per name given: its (first) tracepoint's index in tps */
	int bad;			/* the name an error is about */
};

/*
 * Expand @names[0..@n) against @l into @x, in the order given: a plain name is the
 * tracepoint of that name (NULL in x->tps when there is none: the caller explains), a
 * pattern every tracepoint whose name it matches, vmlinux's first, then each module's,
 * each by name. SUBSYS:PATTERN matches the trace events of subsystem SUBSYS (itself a
 * pattern), as perf's 'sched:*' does; a bare tracepoint has no subsystem. A tracepoint
 * named again (or matched again) keeps its first place. Returns enum tpstat_expand_err;
 * x is to be freed with tpstat_expansion_free() whatever the result.
 */
int tpstat_expand(const struct tp_list *l, char *const *names, int n, struct tpstat_expansion *x);
void tpstat_expansion_free(struct tpstat_expansion *x);

#endif /* __BAREATOM_TPSTAT_EXPAND_H */
