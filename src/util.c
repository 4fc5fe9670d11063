// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util.h"

static bool util_verbose;

static int util_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !util_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

void util_setup_libbpf(bool verbose)
{
	util_verbose = verbose;
	libbpf_set_print(util_libbpf_print);
}

const char *util_bpf_load_hint(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return geteuid() ? "permission denied: run as root (needs CAP_BPF and CAP_PERFMON)"
				 : "permission denied by the kernel (lockdown or the verifier?); rerun with -v";
	case ENOENT:
		return "not found in this kernel";
	case EINVAL:
		return "the kernel rejected the program; rerun with -v for the verifier log";
	default:
		return strerror(-err);
	}
}

char **util_split_command(int *argc, char **argv)
{
	for (int i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		argv[i] = NULL;
		*argc = i;
		return argv[i + 1] ? &argv[i + 1] : NULL;
	}
	return NULL;
}

int util_probe_atomics(void)
{
	/* *(u64 *)(r10 - 8) = 0; r1 = 1; r1 = atomic_fetch_add((u64 *)(r10 - 8), r1); r0 = 0 */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "atomics_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int util_check_bpf(const char *prog, const char *needs_root_for)
{
	struct utsname u;
	int err = util_probe_atomics();

	if (!err)
		return 0;
	if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "%s: permission denied: %s needs root (CAP_BPF and CAP_PERFMON)\n",
			prog, needs_root_for);
		return 2;
	}
	uname(&u);
	if (err == -EINVAL) {
		fprintf(stderr, "%s: this kernel (%s) lacks the BPF atomic instructions (BPF_FETCH): "
			"Linux 5.12 or later is needed\n", prog, u.release);
		return 1;
	}
	fprintf(stderr, "%s: cannot load BPF programs: %s\n", prog, strerror(-err));
	return 1;
}

int util_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

double util_parse_interval(const char *prog, const char *arg)
{
	bool tiny;
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* strtod flags an underflow (1e-400, 0x1p-1074) with ERANGE: a positive, tiny interval. */
	tiny = errno == ERANGE && end != arg && !*end && !signbit(v) && v < 1;
	if (!tiny && (errno || end == arg || *end || !isfinite(v) || v <= 0 || v > 1e7))
		util_usage_error(prog, "invalid interval '%s': a number of seconds > 0", arg);
	if (tiny || v < UTIL_MIN_INTERVAL)
		util_usage_error(prog, "interval %s s is below the minimum of %g s", arg,
				 UTIL_MIN_INTERVAL);
	return v;
}

double util_next_tick(double start, double interval, double now)
{
	double ticks = (now - start) / interval, next;
	long long k = 1;

	/* At most 1e7 s / 1 ms = 1e10 ticks: a long long holds them (no libm floor needed). */
	if (ticks > 0)
		k = (long long)ticks + 1;
	next = start + (double)k * interval;
	/* Rounding can leave start + k * interval at or below now: one more step. */
	if (next <= now)
		next = start + (double)(k + 1) * interval;
	return next;
}

double util_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned long long util_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

double util_wallclock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The length of the well-formed UTF-8 character at @s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when there is none; then *@bad is the length
 * of its "maximal subpart" (the bytes that could still have begun a character), which is
 * what one U+FFFD replaces in Unicode's recommended practice (and Python's "replace").
 */
size_t util_utf8_char(const unsigned char *s, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		need = 0;	/* 80-c1 (a continuation, or an overlong lead) and f5-ff */
	/* The second byte's range excludes overlongs, surrogates and code points > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < need; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			break;
	if (need && i == need)
		return need;
	*bad = i;
	return 0;
}

/*
 * JSON strings are UTF-8 (RFC 8259), but what we print comes from the system: command
 * lines, names. Valid UTF-8 passes as is; each ill-formed subsequence becomes one
 * \ufffd (U+FFFD REPLACEMENT CHARACTER), so the output always parses; '"' and '\\' are
 * escaped, newline and tab as \n and \t, every other control byte (< 0x20, and 0x7f) as
 * \u00XX.
 */
void util_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t bad = 1, n = util_utf8_char(s, &bad);

		if (!n) {
			fputs("\\ufffd", f);
			s += bad;
		} else if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			if (*s == '"' || *s == '\\')
				fprintf(f, "\\%c", *s);
			else if (*s == '\n')
				fputs("\\n", f);
			else if (*s == '\t')
				fputs("\\t", f);
			else if (*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\u%04x", *s);
			else
				fputc(*s, f);
			s++;
		}
	}
	fputc('"', f);
}

/* Cut @buf (@n bytes) back to a character boundary: drop a last, incomplete character. */
static void utf8_cut(char *buf, size_t n)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = n, need;

	/* The start of the last character: at most 3 continuation bytes back. */
	while (i > 0 && n - i < 4 && (s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0 || s[i - 1] < 0xc0)
		return;
	i--;
	need = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : 2;
	if (n - i < need)
		buf[i] = '\0';
}

void util_join_command(char **argv, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (char **a = argv; a && *a && o + 1 < len; a++) {
		int w = snprintf(buf + o, len - o, "%s%s", o ? " " : "", *a);

		if (w < 0)
			break;
		if ((size_t)w >= len - o) {
			/* Cut to fit, but never inside a character: JSON output must stay UTF-8. */
			utf8_cut(buf, len - 1);
			break;
		}
		o += w;
	}
}

pid_t util_start_command(const char *prog, char **argv, const sigset_t *orig)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	sigprocmask(SIG_SETMASK, orig, NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
	_exit(127);
}

void util_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

int util_wait_signal(const sigset_t *set, double tick, double end)
{
	double wake = tick, left;
	struct timespec ts;
	siginfo_t si;

	if (end && (!wake || end < wake))
		wake = end;
	if (!wake)
		return sigwaitinfo(set, &si);
	left = wake - util_now();
	if (left < 0)
		left = 0;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	return sigtimedwait(set, &si, &ts);
}

bool util_reap_command(pid_t *child, int *status)
{
	int ws;

	if (!*child || waitpid(*child, &ws, WNOHANG) != *child)
		return false;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	*child = 0;
	return true;
}

void util_end_command(pid_t child)
{
	int ws;

	if (!child)
		return;
	kill(child, SIGTERM);
	waitpid(child, &ws, 0);
}

pid_t util_start_command_gated(const char *prog, char **argv, const sigset_t *orig, int *gate)
{
	int fds[2];
	pid_t pid;
	char go;

	if (pipe(fds))
		return -1;
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);	/* no other child may hold the gate open */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid) {
		close(fds[0]);
		*gate = fds[1];
		return pid;
	}
	close(fds[1]);
	sigprocmask(SIG_SETMASK, orig, NULL);
	/* Nothing of CMD runs before the caller says go: EOF without a byte means give up. */
	if (read(fds[0], &go, 1) != 1)
		_exit(127);
	close(fds[0]);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
	_exit(127);
}

void util_release_command(int gate, bool go)
{
	if (go && write(gate, "g", 1) != 1)
		go = false;
	close(gate);
}
