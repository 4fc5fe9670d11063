// SPDX-License-Identifier: GPL-2.0
/* A daemon's log and sd_notify (daemon_log.h). Its state is the log's own, set once. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "src/daemon_log.h"

static const char *log_prog = "daemon";
static bool log_verbose, log_syslog;

void daemon_log_init(const char *prog, bool verbose)
{
	log_prog = prog;
	log_verbose = verbose;
}

void daemon_log_to_syslog(void)
{
	openlog(log_prog, LOG_PID, LOG_DAEMON);
	log_syslog = true;
}

void daemon_log(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == LOG_DEBUG && !log_verbose)
		return;
	va_start(ap, fmt);
	if (log_syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		fprintf(stderr, "%s: ", log_prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

void daemon_notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(addr.sun_path))
		return;
	strcpy(addr.sun_path, path);
	if (addr.sun_path[0] == '@')	/* an abstract socket */
		addr.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&addr,
	       offsetof(struct sockaddr_un, sun_path) + strlen(path));
	close(fd);
}
