// SPDX-License-Identifier: GPL-2.0
/* Child commands of cmd.h: split, named, started (gated), reaped, ended. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "src/clock.h"
#include "src/cmd.h"

char **cmd_split(int *argc, char **argv)
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

void cmd_join(char **argv, char *buf, size_t len)
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

pid_t cmd_start(const char *prog, char **argv, const sigset_t *orig)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	sigprocmask(SIG_SETMASK, orig, NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
	_exit(127);
}

int cmd_wait_signal(const sigset_t *set, double tick, double end)
{
	double wake = tick, left;
	struct timespec ts;
	siginfo_t si;

	if (end && (!wake || end < wake))
		wake = end;
	if (!wake)
		return sigwaitinfo(set, &si);
	left = wake - clock_now();
	if (left < 0)
		left = 0;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	return sigtimedwait(set, &si, &ts);
}

bool cmd_reap(pid_t *child, int *status)
{
	int ws;

	if (!*child || waitpid(*child, &ws, WNOHANG) != *child)
		return false;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	*child = 0;
	return true;
}

void cmd_end(pid_t child)
{
	int ws;

	if (!child)
		return;
	kill(child, SIGTERM);
	waitpid(child, &ws, 0);
}

pid_t cmd_start_gated(const char *prog, char **argv, const sigset_t *orig, int *gate)
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

void cmd_release(int gate, bool go)
{
	if (go && write(gate, "g", 1) != 1)
		go = false;
	close(gate);
}
