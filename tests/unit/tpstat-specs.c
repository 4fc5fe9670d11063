// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-specs: the command line's names and items into one spec per tracepoint
 * (src/tpstat_specs.c), without a kernel: the TRACEPOINTs first in the order named, then
 * each item's TP not named, in the order --hist, --by, --filter, --latency (the order of
 * the report's rows); every item on its tracepoint's spec, in the order given; the slot
 * of each spec its place; which tracepoints read fields; --lhist's and --latency's
 * MIN:MAX:STEP. TAP output.
 */
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_specs.h"
#include "tests/unit/test.h"

static struct tpstat_specs s;

int main(void)
{
	char a1[] = "tpgen_b", a2[] = "sched_switch";
	char h1[] = "tpgen_a:seq", h2[] = "tpgen_b:ctx->count", l1[] = "tpgen_a:ctx->cpu:0:100:10";
	char b1[] = "sched_switch:cpu,comm", v1[] = "prev->prio", f1[] = "tpgen_c:seq & 1";
	char f2[] = "tpgen_b:cpu == 0", lat[] = "sched_wakeup:p->pid,sched_switch:next->pid:0:1000:100";

	tpstat_spec_name(&s, a1);
	tpstat_spec_hist(&s, h1);
	tpstat_spec_name(&s, a2);
	tpstat_spec_by(&s, b1);
	tpstat_spec_value(&s, v1);
	tpstat_spec_lhist(&s, l1);
	tpstat_spec_filter(&s, f1);
	tpstat_spec_hist(&s, h2);
	tpstat_spec_filter(&s, f2);
	tpstat_spec_latency(&s, lat);
	tpstat_specs_once(&s);
	tpstat_specs_group(&s);

	ASSERT_EQ(s.n, 5, "5 tracepoints: 2 named, 3 from the items");
	ASSERT_STREQ(s.tp[0].name, "tpgen_b", "the TRACEPOINTs first, in the order named: tpgen_b");
	ASSERT_STREQ(s.tp[1].name, "sched_switch", "then sched_switch");
	ASSERT_STREQ(s.tp[2].name, "tpgen_a", "then --hist's tpgen_a, not named");
	ASSERT_STREQ(s.tp[3].name, "tpgen_c", "then --filter's tpgen_c");
	ASSERT_STREQ(s.tp[4].name, "sched_wakeup", "then --latency's START, sched_wakeup");
	for (int i = 0; i < s.n; i++)
		if (!ASSERT_EQ(s.tp[i].slot, i, "a spec's slot is its place"))
			break;

	ASSERT_EQ(s.nhist, 3, "three --hist/--lhist, in the order given");
	ASSERT_TRUE(s.hist[0].tp == &s.tp[2] && s.hist[1].tp == &s.tp[2] &&
		    s.hist[2].tp == &s.tp[0], "each --hist points to its tracepoint's spec");
	ASSERT_EQ(s.tp[2].nhists, 2, "tpgen_a has its --hist and its --lhist");
	ASSERT_TRUE(s.tp[2].hists[0] == &s.hist[0] && s.tp[2].hists[1] == &s.hist[1],
		    "in the order given");
	ASSERT_STREQ(s.hist[1].expr, "ctx->cpu", "--lhist's EXPR is cut before MIN:MAX:STEP");
	ASSERT_TRUE(s.hist[1].range.linear && s.hist[1].range.lmin == 0 &&
		    s.hist[1].range.lmax == 100 && s.hist[1].range.lstep == 10,
		    "--lhist 0:100:10");
	ASSERT_TRUE(!s.hist[0].range.linear, "--hist is log2");

	ASSERT_EQ(s.nby, 1, "one --by");
	ASSERT_TRUE(s.by[0].tp == &s.tp[1] && s.tp[1].nbys == 1, "--by on sched_switch");
	ASSERT_EQ(s.by[0].nkeys, 2, "a tuple of two keys");
	ASSERT_TRUE(s.by[0].kinds[0] == TPSTAT_KEY_CPU && s.by[0].kinds[1] == TPSTAT_KEY_COMM,
		    "cpu, comm: keys the kernel knows");
	ASSERT_STREQ(s.by[0].value, "prev->prio", "--value on the --by before it");

	ASSERT_EQ(s.tp[0].nfilters, 1, "tpgen_b: one --filter");
	ASSERT_STREQ(s.tp[0].filters[0]->text, "cpu == 0", "its text after TP:");
	ASSERT_TRUE(s.filter[0].tp == &s.tp[3], "--filter tpgen_c:... on tpgen_c");

	ASSERT_EQ(s.nlat, 1, "one --latency");
	ASSERT_TRUE(s.lat[0].tp[0] == &s.tp[4] && s.lat[0].tp[1] == &s.tp[1],
		    "START sched_wakeup, END sched_switch");
	ASSERT_TRUE(s.tp[1].nlats == 1 && s.tp[4].nlats == 0,
		    "the latency is on its END's spec only");
	ASSERT_STREQ(s.lat[0].key[1], "next->pid", "END's KEY is cut before MIN:MAX:STEP");
	ASSERT_TRUE(s.lat[0].range.linear && s.lat[0].range.lmax == 1000 &&
		    s.lat[0].range.lstep == 100, "--latency's linear buckets of ns");

	ASSERT_TRUE(s.tp[0].reads_fields && s.tp[1].reads_fields && s.tp[2].reads_fields &&
		    s.tp[3].reads_fields && s.tp[4].reads_fields,
		    "every tracepoint with an item reads fields, a latency's START too");
	memset(&s, 0, sizeof(s));
	tpstat_spec_name(&s, a1);
	tpstat_specs_group(&s);
	ASSERT_TRUE(!s.tp[0].reads_fields, "a plain count reads none: tpstat_N, not tpstat_hist_N");
	return test_done();
}
