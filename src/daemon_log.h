/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A daemon's log and its word to systemd (cookie-gend): "PROG: message" lines on stderr
 * while it runs in the foreground or before it detaches, syslog (LOG_DAEMON) after; LOG_DEBUG
 * only when verbose. daemon_notify() is sd_notify(3)'s datagram, a no-op without
 * $NOTIFY_SOCKET.
 *
 *	daemon_log_init("tool", verbose);
 *	daemon_log(LOG_INFO, "...");		(stderr)
 *	...fork, setsid...; daemon_log_to_syslog();
 *	daemon_notify("READY=1");
 */
#ifndef __BAREATOM_DAEMON_LOG_H
#define __BAREATOM_DAEMON_LOG_H

#include <stdbool.h>
#include <syslog.h>

void daemon_log_init(const char *prog, bool verbose);
/* From now on to syslog, as @prog with its pid. */
void daemon_log_to_syslog(void);
void daemon_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void daemon_notify(const char *msg);

#endif /* __BAREATOM_DAEMON_LOG_H */
