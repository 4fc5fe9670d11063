// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-expand: tpstat's tracepoint patterns (src/tpstat_expand.c) against a kernel's list
 * made here: what 'sched:*', 'pelt_*', '?', '[...]' and plain names expand to, in which
 * order, each tracepoint once, and the errors. TAP output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_expand.h"
#include "tests/unit/test.h"

/* The list as tplist_load() leaves it: in no particular order, modules mixed in. */
static struct tp_info tps[] = {
	{ "sched_wakeup", "vmlinux", TP_KIND_EVENT, "sched" },
	{ "pelt_se_tp", "vmlinux", TP_KIND_BARE, "" },
	{ "sched_switch", "vmlinux", TP_KIND_EVENT, "sched" },
	{ "tpgen_a", "tpgen", TP_KIND_EVENT, "tpgen" },
	{ "pelt_cfs_tp", "vmlinux", TP_KIND_BARE, "" },
	{ "irq_handler_entry", "vmlinux", TP_KIND_EVENT, "irq" },
	{ "sched_update_nr_running_tp", "vmlinux", TP_KIND_BARE, "" },
	{ "tpgen_b", "tpgen", TP_KIND_EVENT, "tpgen" },
	{ "irq_handler_exit", "vmlinux", TP_KIND_EVENT, "irq" },
	{ "sched_waking", "vmlinux", TP_KIND_EVENT, "sched" },
	{ "9p_client_req", "9pnet", TP_KIND_EVENT, "9p" },
	{ "sched_switch", "other", TP_KIND_EVENT, "sched" },	/* a name in two places */
};

static struct tp_list list = { tps, sizeof(tps) / sizeof(tps[0]), sizeof(tps) / sizeof(tps[0]) };

/* The names @args (space separated) expand to, comma separated, or "error N at NAME". */
static const char *expand(const char *args)
{
	static char out[4096];
	char *copy = strdup(args), *names[32], *save = NULL;
	struct tpstat_expansion x;
	int n = 0, err;
	size_t len = 0;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		names[n++] = t;
	err = tpstat_expand(&list, names, n, &x);
	if (err) {
		snprintf(out, sizeof(out), "error %d at %s", err, names[x.bad]);
	} else {
		out[0] = '\0';
		for (int i = 0; i < x.n; i++)
			len += snprintf(out + len, sizeof(out) - len, "%s%s%s", i ? "," : "", x.names[i],
					x.tps[i] ? "" : "?");
	}
	tpstat_expansion_free(&x);
	free(copy);
	return out;
}

/* The index each name given maps to, comma separated. */
static const char *at(const char *args)
{
	static char out[512];
	char *copy = strdup(args), *names[32], *save = NULL;
	struct tpstat_expansion x;
	int n = 0;
	size_t len = 0;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		names[n++] = t;
	out[0] = '\0';
	if (!tpstat_expand(&list, names, n, &x))
		for (int i = 0; i < n; i++)
			len += snprintf(out + len, sizeof(out) - len, "%s%d", i ? "," : "", x.at[i]);
	tpstat_expansion_free(&x);
	free(copy);
	return out;
}

int main(void)
{
	struct tpstat_expansion x;
	char *none[] = { "sched:*" };
	struct tp_list empty = { NULL, 0, 0 };
	struct tp_info bare = { "pelt_cfs_tp", "vmlinux", TP_KIND_UNKNOWN, "" };
	struct tp_list notracefs = { &bare, 1, 1 };

	ASSERT_TRUE(tpstat_is_pattern("sched:*") && tpstat_is_pattern("pelt_?e_tp") &&
		    tpstat_is_pattern("sched_[sw]*") && !tpstat_is_pattern("sched_switch") &&
		    !tpstat_is_pattern("sched:sched_switch"), "patterns are names with *, ? or [");
	ASSERT_STREQ(expand("sched_switch tpgen_b"), "sched_switch,tpgen_b", "plain names as given");
	ASSERT_STREQ(expand("sched:*"), "sched_switch,sched_wakeup,sched_waking",
		     "sched:* is the sched events, by name (the bare sched_*_tp have no subsystem)");
	ASSERT_STREQ(expand("sched_*"), "sched_switch,sched_update_nr_running_tp,sched_wakeup,sched_waking",
		     "sched_* without a subsystem: raw and bare tracepoints alike");
	ASSERT_STREQ(expand("pelt_*"), "pelt_cfs_tp,pelt_se_tp", "pelt_*: the bare PELT tracepoints");
	ASSERT_STREQ(expand("*"), "irq_handler_entry,irq_handler_exit,pelt_cfs_tp,pelt_se_tp,"
		     "sched_switch,sched_update_nr_running_tp,sched_wakeup,sched_waking,9p_client_req,"
		     "tpgen_a,tpgen_b", "*: vmlinux's first, then each module's, each by name, a name once");
	ASSERT_STREQ(expand("*:*"), "irq_handler_entry,irq_handler_exit,sched_switch,sched_wakeup,"
		     "sched_waking,9p_client_req,tpgen_a,tpgen_b", "*:* is every trace event, no bare one");
	ASSERT_STREQ(expand("irq_handler_???? tpgen:tpgen_[ab]"), "irq_handler_exit,tpgen_a,tpgen_b",
		     "? is one character, [ab] one of a set, SUBSYS:PATTERN a module's events too");
	ASSERT_STREQ(expand("sched_w* [st]*:sched_w*"), "sched_wakeup,sched_waking",
		     "a subsystem pattern; a tracepoint matched twice is counted once");
	ASSERT_STREQ(expand("tpgen_b sched:* tpgen_?"), "tpgen_b,sched_switch,sched_wakeup,sched_waking,tpgen_a",
		     "names in the order given, a tracepoint named again keeps its first place");
	ASSERT_STREQ(at("tpgen_b sched:* tpgen_? sched_waking"), "0,1,4,3",
		     "each name's index: a pattern its first match's, a plain name its tracepoint's");
	ASSERT_STREQ(expand("sched_switch nosuch_tp pelt_*"), "sched_switch,nosuch_tp?,pelt_cfs_tp,pelt_se_tp",
		     "an unknown plain name is kept, as NULL, for the caller to explain");
	ASSERT_STREQ(expand("sched_switch sched:nosuch*"), "error 1 at sched:nosuch*",
		     "a pattern that matches nothing is TPX_NO_MATCH, naming it");
	ASSERT_STREQ(expand("irq:sched_*"), "error 1 at irq:sched_*",
		     "a name pattern outside its subsystem matches nothing");
	ASSERT_EQ(tpstat_expand(&empty, none, 1, &x), TPX_NO_TRACEFS,
		  "SUBSYS: with no subsystem known (no tracefs) is TPX_NO_TRACEFS");
	tpstat_expansion_free(&x);
	none[0] = "pelt_*";
	ASSERT_EQ(tpstat_expand(&notracefs, none, 1, &x), TPX_OK, "without tracefs, name patterns still work");
	ASSERT_TRUE(x.n == 1 && x.tps[0] == &bare, "pelt_* is pelt_cfs_tp there");
	tpstat_expansion_free(&x);
	/* Deterministic: the same list in another order expands the same. */
	for (size_t i = 0; i < list.n / 2; i++) {
		struct tp_info t = tps[i];

		tps[i] = tps[list.n - 1 - i];
		tps[list.n - 1 - i] = t;
	}
	ASSERT_STREQ(expand("*"), "irq_handler_entry,irq_handler_exit,pelt_cfs_tp,pelt_se_tp,"
		     "sched_switch,sched_update_nr_running_tp,sched_wakeup,sched_waking,9p_client_req,"
		     "tpgen_a,tpgen_b", "the order does not depend on the list's");
	return test_done();
}
