// SPDX-License-Identifier: GPL-2.0
/*
 * tpgen: fire bare tracepoints on demand, with exact counts.
 *
 * Bare tracepoints (DECLARE_TRACE without a trace event) are invisible to
 * tracefs and perf; only BPF raw_tp programs can attach to them. tpgen gives
 * tests and benchmarks a source of such events whose number is known exactly:
 *
 *   /sys/kernel/debug/tpgen/fire   write "NAME COUNT" to fire NAME COUNT times
 *                                  on the writing CPU, or "NAME COUNT all" to
 *                                  fire it COUNT times on every online CPU at
 *                                  once. The write returns when all firing is
 *                                  done. Bad input fails with -EINVAL and fires
 *                                  nothing.
 *   /sys/kernel/debug/tpgen/stats  "NAME FIRED_TOTAL", one line per tracepoint.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/sched/signal.h>

#define CREATE_TRACE_POINTS
#include "tpgen_trace.h"

enum tpgen_tp {
	TPGEN_A,
	TPGEN_B,
	TPGEN_EVENT,
	TPGEN_NR,
};

static const char * const tpgen_names[TPGEN_NR] = {
	[TPGEN_A] = "tpgen_a",
	[TPGEN_B] = "tpgen_b",
	[TPGEN_EVENT] = "tpgen_event",
};

/* Events fired so far, per tracepoint; only ever added to after firing. */
static atomic64_t tpgen_fired[TPGEN_NR];
static atomic64_t tpgen_fire_id;
/* One write fires at a time, so "all" really means every CPU at once. */
static DEFINE_MUTEX(tpgen_fire_lock);
static struct dentry *tpgen_dir;

/* Check for a stop request every this many events. */
#define TPGEN_CHECK_EVERY 1024

struct tpgen_run {
	enum tpgen_tp tp;
	bool abort;
	struct completion start;
	atomic_t left;
	struct completion done;
};

struct tpgen_worker {
	struct tpgen_run *run;
	struct tpgen_ctx ctx;
	u64 fired;
};

static __always_inline void tpgen_fire_one(enum tpgen_tp tp, u64 seq,
					   struct tpgen_ctx *ctx)
{
	switch (tp) {
	case TPGEN_A:
		trace_tpgen_a(seq, ctx);
		break;
	case TPGEN_B:
		trace_tpgen_b(seq, ctx);
		break;
	default:
		trace_tpgen_event(seq);
		break;
	}
}

/*
 * Fire ctx->count events on the current CPU; the caller keeps us on it.
 * Returns how many were fired, fewer than asked only when @stop said so.
 */
static u64 tpgen_fire_local(enum tpgen_tp tp, struct tpgen_ctx *ctx,
			    bool (*stop)(void *arg), void *arg)
{
	u64 seq;

	ctx->start_ns = ktime_get_ns();
	for (seq = 1; seq <= ctx->count; seq++) {
		tpgen_fire_one(tp, seq, ctx);
		if (seq % TPGEN_CHECK_EVERY == 0) {
			if (stop(arg))
				return seq;
			cond_resched();
		}
	}
	return ctx->count;
}

static bool tpgen_writer_stop(void *arg)
{
	return fatal_signal_pending(current);
}

static bool tpgen_worker_stop(void *arg)
{
	struct tpgen_run *run = arg;

	return READ_ONCE(run->abort);
}

static int tpgen_worker_fn(void *arg)
{
	struct tpgen_worker *w = arg;
	struct tpgen_run *run = w->run;

	wait_for_completion(&run->start);
	if (!READ_ONCE(run->abort))
		w->fired = tpgen_fire_local(run->tp, &w->ctx,
					    tpgen_worker_stop, run);
	if (atomic_dec_and_test(&run->left))
		complete(&run->done);
	return 0;
}

static void tpgen_init_ctx(struct tpgen_ctx *ctx, enum tpgen_tp tp, u64 count,
			   u64 fire_id, int cpu, bool all_cpus)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->fire_id = fire_id;
	ctx->count = count;
	ctx->cpu = cpu;
	ctx->all_cpus = all_cpus;
	strscpy(ctx->name, tpgen_names[tp], sizeof(ctx->name));
}

/* Fire @count events of @tp on the writing CPU. */
static int tpgen_fire_here(enum tpgen_tp tp, u64 count, u64 fire_id)
{
	struct tpgen_ctx ctx;
	u64 fired;

	migrate_disable();
	tpgen_init_ctx(&ctx, tp, count, fire_id, smp_processor_id(), false);
	fired = tpgen_fire_local(tp, &ctx, tpgen_writer_stop, NULL);
	migrate_enable();

	atomic64_add(fired, &tpgen_fired[tp]);
	return fired == count ? 0 : -EINTR;
}

/* Fire @count events of @tp on every online CPU at once, one kthread each. */
static int tpgen_fire_all(enum tpgen_tp tp, u64 count, u64 fire_id)
{
	struct tpgen_worker *workers;
	struct tpgen_run run = { .tp = tp };
	unsigned int cpu, started = 0;
	u64 fired = 0;
	int ret = 0;

	workers = kcalloc(nr_cpu_ids, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	init_completion(&run.start);
	init_completion(&run.done);

	cpus_read_lock();
	/* One reference for us, dropped below, so done completes exactly once. */
	atomic_set(&run.left, 1);
	for_each_online_cpu(cpu) {
		struct tpgen_worker *w = &workers[cpu];
		struct task_struct *t;

		w->run = &run;
		tpgen_init_ctx(&w->ctx, tp, count, fire_id, cpu, true);
		t = kthread_create_on_cpu(tpgen_worker_fn, w, cpu, "tpgen/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			WRITE_ONCE(run.abort, true);
			break;
		}
		atomic_inc(&run.left);
		wake_up_process(t);
		started++;
	}
	complete_all(&run.start);
	if (!atomic_dec_and_test(&run.left)) {
		if (wait_for_completion_killable(&run.done)) {
			WRITE_ONCE(run.abort, true);
			wait_for_completion(&run.done);
			ret = ret ?: -EINTR;
		}
	}
	cpus_read_unlock();

	for_each_possible_cpu(cpu)
		fired += workers[cpu].fired;
	atomic64_add(fired, &tpgen_fired[tp]);
	kfree(workers);
	if (!ret && started == 0)
		ret = -ENODEV;
	return ret;
}

/* Split off the next blank-separated word of *@s, or NULL at the end. */
static char *tpgen_next_word(char **s)
{
	char *word = skip_spaces(*s);
	char *end = word;

	if (!*word)
		return NULL;
	while (*end && !isspace(*end))
		end++;
	if (*end)
		*end++ = '\0';
	*s = end;
	return word;
}

static ssize_t tpgen_fire_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[64], *s = buf, *name, *num, *mode;
	bool all = false;
	u64 count, fire_id;
	int tp, ret;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	name = tpgen_next_word(&s);
	num = tpgen_next_word(&s);
	mode = tpgen_next_word(&s);
	if (!name || !num || tpgen_next_word(&s))
		return -EINVAL;
	tp = match_string(tpgen_names, TPGEN_NR, name);
	if (tp < 0)
		return -EINVAL;
	/* kstrtou64 rejects signs other than '+', blanks and trailing junk. */
	if (num[0] == '+' || kstrtou64(num, 10, &count) || count == 0)
		return -EINVAL;
	if (mode) {
		if (strcmp(mode, "all"))
			return -EINVAL;
		all = true;
	}

	if (mutex_lock_killable(&tpgen_fire_lock))
		return -EINTR;
	fire_id = atomic64_inc_return(&tpgen_fire_id);
	if (all)
		ret = tpgen_fire_all(tp, count, fire_id);
	else
		ret = tpgen_fire_here(tp, count, fire_id);
	mutex_unlock(&tpgen_fire_lock);

	return ret ?: len;
}

static const struct file_operations tpgen_fire_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tpgen_fire_write,
	.llseek = noop_llseek,
};

static int tpgen_stats_show(struct seq_file *m, void *v)
{
	int tp;

	for (tp = 0; tp < TPGEN_NR; tp++)
		seq_printf(m, "%s %lld\n", tpgen_names[tp],
			   atomic64_read(&tpgen_fired[tp]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tpgen_stats);

static int __init tpgen_init(void)
{
	tpgen_dir = debugfs_create_dir("tpgen", NULL);
	if (IS_ERR(tpgen_dir))
		return PTR_ERR(tpgen_dir);
	debugfs_create_file("fire", 0200, tpgen_dir, NULL, &tpgen_fire_fops);
	debugfs_create_file("stats", 0444, tpgen_dir, NULL, &tpgen_stats_fops);
	return 0;
}

static void __exit tpgen_exit(void)
{
	debugfs_remove_recursive(tpgen_dir);
}

module_init(tpgen_init);
module_exit(tpgen_exit);

MODULE_DESCRIPTION("Fire bare tracepoints on demand, with exact counts");
MODULE_AUTHOR("bareatom");
MODULE_LICENSE("GPL");
