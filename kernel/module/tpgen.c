// SPDX-License-Identifier: GPL-2.0
/*
 * tpgen: fire bare tracepoints on demand, with exact counts.
 *
 * Bare tracepoints (DECLARE_TRACE without a trace event) are invisible to
 * tracefs and perf; only BPF raw_tp programs can attach to them. tpgen gives
 * tests and benchmarks a source of such events whose number is known exactly.
 * Control is in /sys/kernel/debug/tpgen/:
 *
 * fire   One write of one of:
 *          "NAME COUNT"       fire NAME COUNT times on the writing CPU;
 *          "NAME COUNT all"   fire it COUNT times on every online CPU at
 *                             once, from one kthread per CPU;
 *          "NAME COUNT nest"  fire it COUNT times on the writing CPU in task
 *                             context while an hrtimer on that CPU fires it
 *                             from hardirq context too, once per expiry
 *                             (every TPGEN_NEST_PERIOD_NS), until the task
 *                             loop ends: at least once, at most COUNT times.
 *                             A BPF program on NAME then nests on itself.
 *          "NAME COUNT pair NS"  fire NAME, then NS nanoseconds later its
 *                             partner (tpgen_a then tpgen_b, or tpgen_b then
 *                             tpgen_a) with the same seq and ctx, COUNT
 *                             times on the writing CPU. Interrupts are off
 *                             from the first fire to the second, so the gap
 *                             is NS plus the tracepoints' own cost: a known
 *                             latency between two tracepoints, keyed by seq.
 *                             NS is 0 to TPGEN_MAX_PAIR_NS; tpgen_event has
 *                             no partner.
 *        COUNT is decimal, 1 to TPGEN_MAX_COUNT (2^40), so seq never wraps.
 *        The write returns when all firing is done. Bad input (unknown name
 *        or mode, bad COUNT, extra words, a NUL byte anywhere) fails with
 *        -EINVAL and fires nothing. Any signal (Ctrl-C from a shell too)
 *        stops a fire within TPGEN_CHECK_EVERY events per CPU; the write then
 *        fails with -EINTR (never restarted, which would fire again), and
 *        what was fired before it stopped is counted in stats and last.
 * stats  "NAME FIRED_TOTAL", one line per tracepoint: every event fired, in
 *        any context, exact.
 * last   The most recent fire (bad input is none; empty before the first),
 *        one line: "fire_id=N name=NAME mode=cpu|all|nest|pair count=COUNT
 *        fired=F timer=T err=E", and " delay_ns=NS" in pair mode: F events
 *        fired in all (T of them by nest's hrtimer, 0 in the other modes;
 *        pair's F counts both tracepoints, as stats does), E the write's
 *        error (0, or a negative errno: -4 when a signal stopped it).
 *
 * The events' arguments: seq runs from 1 to ctx->count on each CPU (on nest's
 * hrtimer, from 1 for its own fires); ctx says which write, CPU and context
 * the event belongs to (struct tpgen_ctx in tpgen.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
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

enum tpgen_mode {
	TPGEN_MODE_CPU,
	TPGEN_MODE_ALL,
	TPGEN_MODE_NEST,
	TPGEN_MODE_PAIR,
	TPGEN_MODE_NR,
};

/* The mode words of a fire write; "cpu" is only ever shown, in last. */
static const char * const tpgen_modes[TPGEN_MODE_NR] = {
	[TPGEN_MODE_CPU] = "cpu",
	[TPGEN_MODE_ALL] = "all",
	[TPGEN_MODE_NEST] = "nest",
	[TPGEN_MODE_PAIR] = "pair",
};

/* The largest COUNT: far from wrapping seq, or stats summed over CPUs. */
#define TPGEN_MAX_COUNT BIT_ULL(40)

/* Check for a stop request every this many events. */
#define TPGEN_CHECK_EVERY 1024

/*
 * pair: the longest gap, with interrupts off for all of it; a millisecond
 * keeps the tick's lateness small even under emulation.
 */
#define TPGEN_MAX_PAIR_NS NSEC_PER_MSEC

/* nest: how often the hrtimer fires, short enough to land inside the loop. */
#define TPGEN_NEST_PERIOD_NS (20 * NSEC_PER_USEC)

/* One write to fire: what was asked and what came of it. */
struct tpgen_fire {
	u64 fire_id;
	enum tpgen_tp tp;
	enum tpgen_mode mode;
	u64 count;
	u64 fired;	/* every event fired, timer ones included */
	u64 timer;	/* of which nest's hrtimer fired */
	u64 delay_ns;	/* pair: the gap between the two fires */
	u64 pairs;	/* pair: how many of both were fired */
	int err;
};

/* Events fired so far, per tracepoint; only ever added to after firing. */
static atomic64_t tpgen_fired[TPGEN_NR];
static atomic64_t tpgen_fire_id;
/* One write fires at a time, so "all" really means every CPU at once. */
static DEFINE_MUTEX(tpgen_fire_lock);
/* The last fire, for the last file; a spinlock so reading never waits. */
static DEFINE_SPINLOCK(tpgen_last_lock);
static struct tpgen_fire tpgen_last;
static struct dentry *tpgen_dir;

struct tpgen_run {
	enum tpgen_tp tp;
	bool abort;
	struct completion start;
};

struct tpgen_worker {
	struct tpgen_run *run;
	struct tpgen_ctx ctx;
	u64 fired;
	bool started;
	struct completion done;
};

struct tpgen_nest {
	struct hrtimer timer;
	enum tpgen_tp tp;
	struct tpgen_ctx ctx;	/* the timer's own, with its own seq */
	u64 fired;
	bool stop;		/* the task loop has ended */
	struct completion done;	/* the timer will not fire again */
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
 * ctx->count is at most TPGEN_MAX_COUNT, so seq never wraps.
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

/* Any signal, not only a fatal one: an interactive shell catches SIGINT. */
static bool tpgen_writer_stop(void *arg)
{
	return signal_pending(current);
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
	/*
	 * Once done is complete the writer frees w and may unload the module:
	 * complete it from kthread code that never returns here.
	 */
	kthread_complete_and_exit(&w->done, 0);
}

static void tpgen_init_ctx(struct tpgen_ctx *ctx, const struct tpgen_fire *f,
			   int cpu)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->fire_id = f->fire_id;
	ctx->count = f->count;
	ctx->cpu = cpu;
	ctx->all_cpus = f->mode == TPGEN_MODE_ALL;
	ctx->nest = f->mode == TPGEN_MODE_NEST;
	strscpy(ctx->name, tpgen_names[f->tp], sizeof(ctx->name));
}

/* Fire f->count events on the writing CPU. */
static void tpgen_fire_here(struct tpgen_fire *f)
{
	struct tpgen_ctx ctx;

	migrate_disable();
	tpgen_init_ctx(&ctx, f, smp_processor_id());
	f->fired = tpgen_fire_local(f->tp, &ctx, tpgen_writer_stop, NULL);
	migrate_enable();

	if (f->fired != f->count)
		f->err = -EINTR;
}

/*
 * Wait for worker @w. On a signal, tell every worker to stop, and wait for
 * @w all the same: it must be gone before its memory is freed.
 */
static int tpgen_wait_worker(struct tpgen_worker *w, struct tpgen_run *run)
{
	if (!READ_ONCE(run->abort) && !wait_for_completion_interruptible(&w->done))
		return 0;
	WRITE_ONCE(run->abort, true);
	wait_for_completion(&w->done);
	return -EINTR;
}

/* Fire f->count events on every online CPU at once, one kthread each. */
static void tpgen_fire_all(struct tpgen_fire *f)
{
	struct tpgen_worker *workers;
	struct tpgen_run run = { .tp = f->tp };
	unsigned int cpu, started = 0;
	int err = 0;

	workers = kcalloc(nr_cpu_ids, sizeof(*workers), GFP_KERNEL);
	if (!workers) {
		f->err = -ENOMEM;
		return;
	}
	init_completion(&run.start);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct tpgen_worker *w = &workers[cpu];
		struct task_struct *t;

		w->run = &run;
		init_completion(&w->done);
		tpgen_init_ctx(&w->ctx, f, cpu);
		t = kthread_create_on_cpu(tpgen_worker_fn, w, cpu, "tpgen/%u");
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			WRITE_ONCE(run.abort, true);
			break;
		}
		w->started = true;
		wake_up_process(t);
		started++;
	}
	complete_all(&run.start);
	/* An abort (error or signal) is seen by every worker: wait for all. */
	for_each_possible_cpu(cpu) {
		if (workers[cpu].started && tpgen_wait_worker(&workers[cpu], &run))
			err = err ?: -EINTR;
	}
	cpus_read_unlock();

	for_each_possible_cpu(cpu)
		f->fired += workers[cpu].fired;
	kfree(workers);
	if (!err && started == 0)
		err = -ENODEV;
	f->err = err;
}

/* nest's hrtimer, in hardirq context on the writing CPU: one fire each. */
static enum hrtimer_restart tpgen_nest_fn(struct hrtimer *timer)
{
	struct tpgen_nest *n = container_of(timer, struct tpgen_nest, timer);

	tpgen_fire_one(n->tp, ++n->fired, &n->ctx);
	if (READ_ONCE(n->stop) || n->fired == n->ctx.count) {
		complete(&n->done);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ns_to_ktime(TPGEN_NEST_PERIOD_NS));
	return HRTIMER_RESTART;
}

/*
 * Fire f->count events on the writing CPU in task context while a pinned
 * hardirq hrtimer fires the same tracepoint there, so that a program on it
 * is entered again from the timer while it runs for the task. The timer
 * fires at least once (the task loop may end before its first expiry) and
 * at most f->count times.
 */
static void tpgen_fire_nest(struct tpgen_fire *f)
{
	struct tpgen_nest n = { .tp = f->tp };
	struct tpgen_ctx ctx;
	u64 fired;
	int cpu;

	migrate_disable();
	cpu = smp_processor_id();
	tpgen_init_ctx(&ctx, f, cpu);
	tpgen_init_ctx(&n.ctx, f, cpu);
	n.ctx.hardirq = true;
	n.ctx.start_ns = ktime_get_ns();
	init_completion(&n.done);
	hrtimer_init_on_stack(&n.timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	n.timer.function = tpgen_nest_fn;
	hrtimer_start(&n.timer, ns_to_ktime(TPGEN_NEST_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);

	fired = tpgen_fire_local(f->tp, &ctx, tpgen_writer_stop, NULL);
	WRITE_ONCE(n.stop, true);
	/* Within a period: uninterruptible, n is on this stack. */
	wait_for_completion(&n.done);
	hrtimer_cancel(&n.timer);
	destroy_hrtimer_on_stack(&n.timer);
	migrate_enable();

	f->timer = n.fired;
	f->fired = fired + n.fired;
	if (fired != f->count)
		f->err = -EINTR;
}

/* tpgen_a's partner is tpgen_b and the other way round (pair mode). */
static enum tpgen_tp tpgen_partner(enum tpgen_tp tp)
{
	return tp == TPGEN_A ? TPGEN_B : TPGEN_A;
}

/*
 * Fire f->tp then, f->delay_ns later, its partner, with the same seq and
 * ctx, f->count times on the writing CPU. Interrupts are off from the first
 * fire to the second only, so a tick or a signal is taken between pairs.
 */
static void tpgen_fire_pair(struct tpgen_fire *f)
{
	enum tpgen_tp end = tpgen_partner(f->tp);
	struct tpgen_ctx ctx;
	unsigned long flags;
	u64 seq, t0;

	migrate_disable();
	tpgen_init_ctx(&ctx, f, smp_processor_id());
	ctx.start_ns = ktime_get_ns();
	for (seq = 1; seq <= f->count; seq++) {
		if (signal_pending(current)) {
			f->err = -EINTR;
			break;
		}
		local_irq_save(flags);
		tpgen_fire_one(f->tp, seq, &ctx);
		t0 = ktime_get_ns();
		while (ktime_get_ns() - t0 < f->delay_ns)
			cpu_relax();
		tpgen_fire_one(end, seq, &ctx);
		local_irq_restore(flags);
		f->pairs++;
		cond_resched();
	}
	migrate_enable();
	f->fired = 2 * f->pairs;
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

/* A decimal u64 as kstrtou64 takes it, but with no sign at all. */
static int tpgen_parse_u64(const char *s, u64 *v)
{
	return s[0] == '+' ? -EINVAL : kstrtou64(s, 10, v);
}

/* "NAME COUNT [all|nest|pair NS]" into @f, or -EINVAL; @buf is NUL-free. */
static int tpgen_parse(char *buf, struct tpgen_fire *f)
{
	char *s = buf, *name, *num, *mode, *ns;
	int tp, m = TPGEN_MODE_CPU;

	name = tpgen_next_word(&s);
	num = tpgen_next_word(&s);
	mode = tpgen_next_word(&s);
	ns = tpgen_next_word(&s);
	if (!name || !num || tpgen_next_word(&s))
		return -EINVAL;
	tp = match_string(tpgen_names, TPGEN_NR, name);
	if (tp < 0)
		return -EINVAL;
	/* kstrtou64 rejects signs other than '+', blanks and trailing junk. */
	if (tpgen_parse_u64(num, &f->count) ||
	    f->count == 0 || f->count > TPGEN_MAX_COUNT)
		return -EINVAL;
	if (mode) {
		m = match_string(tpgen_modes, TPGEN_MODE_NR, mode);
		if (m <= TPGEN_MODE_CPU)
			return -EINVAL;
	}
	/* NS comes with pair and only with it; tpgen_event has no partner. */
	if (m == TPGEN_MODE_PAIR ? !ns : !!ns)
		return -EINVAL;
	if (m == TPGEN_MODE_PAIR &&
	    (tp == TPGEN_EVENT || tpgen_parse_u64(ns, &f->delay_ns) ||
	     f->delay_ns > TPGEN_MAX_PAIR_NS))
		return -EINVAL;
	f->tp = tp;
	f->mode = m;
	return 0;
}

static ssize_t tpgen_fire_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct tpgen_fire f = { };
	char buf[64];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	/* The parser would stop at a NUL and fire what came before it. */
	if (memchr(buf, '\0', len))
		return -EINVAL;
	buf[len] = '\0';
	if (tpgen_parse(buf, &f))
		return -EINVAL;

	if (mutex_lock_interruptible(&tpgen_fire_lock))
		return -EINTR;
	f.fire_id = atomic64_inc_return(&tpgen_fire_id);
	if (f.mode == TPGEN_MODE_ALL)
		tpgen_fire_all(&f);
	else if (f.mode == TPGEN_MODE_NEST)
		tpgen_fire_nest(&f);
	else if (f.mode == TPGEN_MODE_PAIR)
		tpgen_fire_pair(&f);
	else
		tpgen_fire_here(&f);
	if (f.mode == TPGEN_MODE_PAIR) {
		atomic64_add(f.pairs, &tpgen_fired[f.tp]);
		atomic64_add(f.pairs, &tpgen_fired[tpgen_partner(f.tp)]);
	} else {
		atomic64_add(f.fired, &tpgen_fired[f.tp]);
	}
	spin_lock(&tpgen_last_lock);
	tpgen_last = f;
	spin_unlock(&tpgen_last_lock);
	mutex_unlock(&tpgen_fire_lock);

	return f.err ?: len;
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

static int tpgen_last_show(struct seq_file *m, void *v)
{
	struct tpgen_fire f;

	spin_lock(&tpgen_last_lock);
	f = tpgen_last;
	spin_unlock(&tpgen_last_lock);
	if (!f.fire_id)
		return 0;
	seq_printf(m, "fire_id=%llu name=%s mode=%s count=%llu fired=%llu timer=%llu err=%d",
		   f.fire_id, tpgen_names[f.tp], tpgen_modes[f.mode], f.count,
		   f.fired, f.timer, f.err);
	if (f.mode == TPGEN_MODE_PAIR)
		seq_printf(m, " delay_ns=%llu", f.delay_ns);
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tpgen_last);

/*
 * A probe of tpgen's own on each of its tracepoints, from load to unload,
 * keeps their static keys enabled. Attaching or detaching a BPF program then
 * only swaps the tracepoint's array of probes, and never patches the code
 * that a CPU in tpgen's firing loop is running. Under QEMU's TCG, such a
 * patch (text_poke_bp() turning the site into a jump or back into a NOP)
 * while another vCPU looped over the site has left that vCPU stuck at the
 * site for good: an RCU stall with the same RIP and seq for ten minutes.
 * The probes do nothing; keep_enabled=0 leaves the keys to the programs.
 */
static bool keep_enabled = true;
module_param(keep_enabled, bool, 0444);
MODULE_PARM_DESC(keep_enabled,
		 "Keep the tracepoints enabled with an empty probe (default 1)");

static void tpgen_keep_seq_ctx(void *data, u64 seq, struct tpgen_ctx *ctx)
{
}

static void tpgen_keep_seq(void *data, u64 seq)
{
}

static void tpgen_unkeep(void)
{
	unregister_trace_tpgen_event(tpgen_keep_seq, NULL);
	unregister_trace_tpgen_b(tpgen_keep_seq_ctx, NULL);
	unregister_trace_tpgen_a(tpgen_keep_seq_ctx, NULL);
	/* No CPU may be in a probe of this module once it is gone. */
	tracepoint_synchronize_unregister();
}

static int tpgen_keep(void)
{
	int err;

	err = register_trace_tpgen_a(tpgen_keep_seq_ctx, NULL);
	if (err)
		return err;
	err = register_trace_tpgen_b(tpgen_keep_seq_ctx, NULL);
	if (err)
		goto out_a;
	err = register_trace_tpgen_event(tpgen_keep_seq, NULL);
	if (err)
		goto out_b;
	return 0;
out_b:
	unregister_trace_tpgen_b(tpgen_keep_seq_ctx, NULL);
out_a:
	unregister_trace_tpgen_a(tpgen_keep_seq_ctx, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

static int __init tpgen_init(void)
{
	int err;

	if (keep_enabled) {
		err = tpgen_keep();
		if (err)
			return err;
	}
	tpgen_dir = debugfs_create_dir("tpgen", NULL);
	if (IS_ERR(tpgen_dir)) {
		if (keep_enabled)
			tpgen_unkeep();
		return PTR_ERR(tpgen_dir);
	}
	debugfs_create_file("fire", 0200, tpgen_dir, NULL, &tpgen_fire_fops);
	debugfs_create_file("stats", 0444, tpgen_dir, NULL, &tpgen_stats_fops);
	debugfs_create_file("last", 0444, tpgen_dir, NULL, &tpgen_last_fops);
	return 0;
}

static void __exit tpgen_exit(void)
{
	debugfs_remove_recursive(tpgen_dir);
	if (keep_enabled)
		tpgen_unkeep();
}

module_init(tpgen_init);
module_exit(tpgen_exit);

MODULE_DESCRIPTION("Fire bare tracepoints on demand, with exact counts");
MODULE_AUTHOR("bareatom");
MODULE_LICENSE("GPL");
