// SPDX-License-Identifier: GPL-2.0
/*
 * User frames named after their process exited (src/stack_usym.c): argv[1] is the stripped
 * PIE that stack-usym.t built from stack-prog/prog.c, argv[2] its separate debug file. The
 * program prints its stack as (build id, file offset) records, as BPF_F_USER_BUILD_ID gives
 * them, and the raw addresses; every name is asked for once it has exited:
 *	- noted while it lived (its maps read, its Dwfl kept), its path holding another file
 *	  by then (rebuilt since): by build id and by address, and refused by a new look;
 *	- only its file named (usym_add_file, as tpstat knows the command it runs);
 *	- nothing known: "[build-id 0123abcd]+0xOFF", never a bare address;
 *	- its debug file gone: the file and the offset for what only the debug file named.
 * Then the time to name frames: the first, distinct ones, and ones named before (reported,
 * never a pass or a failure).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "src/stack_usym.h"
#include "tests/unit/test.h"

#define MAX_FRAMES 32

static struct bpf_stack_build_id rec[MAX_FRAMES];
static unsigned long long ips[MAX_FRAMES];
static int nrec;

static int hexbyte(const char *s)
{
	unsigned int v;

	return sscanf(s, "%2x", &v) == 1 ? (int)v : -1;
}

/* Run @prog; read its records until "ready"; @pid_out live until *@to_child is written. */
static int run_prog(const char *prog, pid_t *pid_out, FILE **to_child)
{
	int in[2], out[2];
	char line[256];
	FILE *from;
	pid_t pid;

	if (pipe(in) || pipe(out))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	from = fdopen(out[0], "r");
	*to_child = fdopen(in[1], "w");
	nrec = 0;
	while (fgets(line, sizeof(line), from)) {
		char id[64];
		unsigned long long ip, off;
		int i;

		if (!strcmp(line, "ready\n"))
			break;
		if (sscanf(line, "frame %llx %40s %llx", &ip, id, &off) != 3 || nrec == MAX_FRAMES)
			continue;
		memset(&rec[nrec], 0, sizeof(rec[nrec]));
		rec[nrec].status = BPF_STACK_BUILD_ID_VALID;
		for (i = 0; i < BPF_BUILD_ID_SIZE; i++)
			rec[nrec].build_id[i] = hexbyte(id + 2 * i);
		rec[nrec].offset = off;
		ips[nrec++] = ip;
	}
	fclose(from);
	*pid_out = pid;
	return nrec;
}

static void let_exit(pid_t pid, FILE *to_child)
{
	int status;

	fputs("go\n", to_child);
	fclose(to_child);
	waitpid(pid, &status, 0);
}

/* Frame @i's lines joined by " / ", by build id or (@by_ip) by address. */
static const char *frame_text(struct usym *u, pid_t pid, int i, unsigned int flags, int by_ip)
{
	static char buf[USYM_LINES * (STACK_NAME_LEN + 3)];
	struct usym_frame fr;
	int j, o = 0;

	flags |= STACK_NAME_RETADDR;
	if (by_ip)
		usym_ip(u, pid, ips[i], flags, &fr);
	else
		usym_build_id(u, pid, &rec[i], flags, &fr);
	buf[0] = '\0';
	for (j = 0; j < fr.n; j++)
		o += snprintf(buf + o, sizeof(buf) - o, "%s%s", j ? " / " : "", fr.name[j]);
	return buf;
}

/* The program's own four frames, innermost first, as names without offsets. */
static const char *const want[] = {
	"record_stack", "inner (inlined) / middle", "outer", "main",
};

static void check_names(struct usym *u, pid_t pid, int by_ip, const char *how)
{
	char name[256];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "%s: frame %d is %s", how, i, want[i]);
		ASSERT_STREQ(frame_text(u, pid, i, 0, by_ip), want[i], name);
	}
	snprintf(name, sizeof(name), "%s: frame 0 with its offset", how);
	ASSERT_TRUE(!strncmp(frame_text(u, pid, 0, STACK_NAME_OFFSET, by_ip), "record_stack+0x", 15),
		    name);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *prog = argv[1], *debug = argv[2], *base = strrchr(prog, '/') + 1;
	char hidden[4096], moved[4096], want_name[256], name[512];
	struct usym *u, *v;
	FILE *to_child;
	double t0, first, took[2];
	pid_t pid;
	int i, n, pass, rounds = 512;

	if (argc != 3)
		return 2;
	/* 1. Noted while it lived. */
	n = run_prog(prog, &pid, &to_child);
	ASSERT_TRUE(n >= 5, "the program printed its stack (5 frames or more)");
	u = usym_new();
	ASSERT_EQ(usym_note_pid(u, pid), 0, "usym_note_pid while it lives");
	let_exit(pid, to_child);
	ASSERT_TRUE(kill(pid, 0) && errno == ESRCH, "the program has exited");
	/* Its path replaced since (a rebuild): what was noted names it, a new look refuses. */
	snprintf(moved, sizeof(moved), "%s.orig", prog);
	ASSERT_TRUE(!rename(prog, moved) && !symlink("/bin/true", prog),
		    "the program's path now holds another file");
	check_names(u, pid, 0, "noted, by build id");
	check_names(u, pid, 1, "noted, by address");
	v = usym_new();
	usym_add_file(v, prog);
	ASSERT_TRUE(!strncmp(frame_text(v, pid, 0, 0, 0), "[build-id", 9),
		    "not noted, its path replaced: not named from the other file");
	usym_free(v);
	ASSERT_TRUE(strncmp(frame_text(u, pid, 4, 0, 0), "[build-id", 9),
		    "noted: libc's frame found by its build id");
	printf("# libc's frame: %s\n", frame_text(u, pid, 4, STACK_NAME_OFFSET, 0));
	ASSERT_EQ(usym_note_pid(u, pid), 0, "noting it again: the cached Dwfl");
	ASSERT_TRUE(!unlink(prog) && !rename(moved, prog), "the program back");
	usym_free(u);

	/* 2. Only its file named. */
	n = run_prog(prog, &pid, &to_child);
	let_exit(pid, to_child);
	u = usym_new();
	ASSERT_EQ(usym_add_file(u, prog), 0, "usym_add_file of the stripped program");
	check_names(u, pid, 0, "added by file");
	ASSERT_STREQ(frame_text(u, pid, 1, 0, 0), want[1], "named again (remembered): the same lines");
	ASSERT_TRUE(!strncmp(frame_text(u, pid, 4, 0, 0), "[build-id", 9),
		    "added by file: libc's frame not found yet");
	ASSERT_EQ(usym_note_pid(u, getpid()), 0, "noting ourselves: our libc is the program's");
	ASSERT_TRUE(strncmp(frame_text(u, pid, 4, 0, 0), "[build-id", 9),
		    "added by file, ourselves noted: libc's frame named");
	usym_free(u);

	/* 3. Nothing known of it: the build id and the offset. */
	u = usym_new();
	snprintf(want_name, sizeof(want_name), "[build-id %02x%02x%02x%02x]+0x%llx",
		 rec[0].build_id[0], rec[0].build_id[1], rec[0].build_id[2], rec[0].build_id[3],
		 (unsigned long long)rec[0].offset);
	ASSERT_STREQ(frame_text(u, pid, 0, 0, 0), want_name, "unknown file: its build id and offset");
	ASSERT_TRUE(!strncmp(frame_text(u, pid, 0, 0, 1), "[unknown]+0x", 12),
		    "by address, gone and never noted: [unknown]+0xADDR");
	usym_free(u);

	/* 4. The debug file gone: what only it named shows as file+offset. */
	snprintf(hidden, sizeof(hidden), "%s.hidden", debug);
	ASSERT_EQ(rename(debug, hidden), 0, "debug file moved away");
	u = usym_new();
	usym_add_file(u, prog);
	snprintf(want_name, sizeof(want_name), "%s+0x%llx", base, (unsigned long long)rec[0].offset);
	snprintf(name, sizeof(name), "no debug file: frame 0 is %s", want_name);
	ASSERT_STREQ(frame_text(u, pid, 0, 0, 0), want_name, name);
	usym_free(u);
	ASSERT_EQ(rename(hidden, debug), 0, "debug file back");

	/*
	 * 5. The cost: the first frame (file opened, DWARF read); then @rounds distinct
	 * frames (every byte around the program's four, each named from its DWARF scopes);
	 * then the same frames again, named before.
	 */
	u = usym_new();
	usym_add_file(u, prog);
	t0 = now();
	frame_text(u, pid, 1, STACK_NAME_OFFSET, 0);
	first = now() - t0;
	for (pass = 0; pass < 2; pass++) {
		t0 = now();
		for (i = 0; i < rounds; i++) {
			struct bpf_stack_build_id r = rec[i % 4];
			struct usym_frame fr;

			r.offset += i / 4 - rounds / 8;
			usym_build_id(u, pid, &r, STACK_NAME_OFFSET | STACK_NAME_RETADDR, &fr);
		}
		took[pass] = now() - t0;
	}
	usym_free(u);
	printf("# symbolization: first frame %.2f ms (file and DWARF read); %d distinct frames "
	       "%.1f us each (inline chains included); named again %.0f ns each\n", first * 1e3,
	       rounds, took[0] * 1e6 / rounds, took[1] * 1e9 / rounds);
	return test_done();
}
