// SPDX-License-Identifier: GPL-2.0
/* Option parsing and usage errors shared by the tools (cli.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include "src/cli.h"

int cli_parse_seconds(const char *s, double *out)
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

double cli_parse_interval(const char *prog, const char *arg)
{
	bool tiny;
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* strtod flags an underflow (1e-400, 0x1p-1074) with ERANGE: a positive, tiny interval. */
	tiny = errno == ERANGE && end != arg && !*end && !signbit(v) && v < 1;
	if (!tiny && (errno || end == arg || *end || !isfinite(v) || v <= 0 || v > 1e7))
		cli_usage_error(prog, "invalid interval '%s': a number of seconds > 0", arg);
	if (tiny || v < CLI_MIN_INTERVAL)
		cli_usage_error(prog, "interval %s s is below the minimum of %g s", arg,
				CLI_MIN_INTERVAL);
	return v;
}

void cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* ---- --listen ADDR:PORT and --textfile PATH: the metrics options of every tool ---- */

/*
 * A host name (localhost, as perf users type it): its first address, as getaddrinfo(3)
 * orders them (/etc/gai.conf), IPv4 or IPv6. One address is listened on, not each.
 */
static int resolve(const char *host, unsigned long port, struct sockaddr_storage *ss,
		   socklen_t *len, char *why, size_t whylen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	int err = getaddrinfo(host, NULL, &hints, &res);

	if (err) {
		snprintf(why, whylen, "cannot resolve '%s': %s", host,
			 err == EAI_SYSTEM ? strerror(errno) : gai_strerror(err));
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	freeaddrinfo(res);
	return 0;
}

int cli_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len,
		      char *why, size_t whylen)
{
	char host[256];		/* a host name's 253 bytes, an address's fewer */
	const char *arg = s, *port, *end;
	unsigned long p = 0;
	size_t hlen;
	bool v6 = s[0] == '[';

	if (v6) {
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			goto bad;
		hlen = end - s - 1;
		s++;
		port = end + 2;
	} else {
		port = strrchr(s, ':');
		if (!port)
			goto bad;
		hlen = port - s;
		port++;
	}
	if (hlen >= sizeof(host))
		goto bad;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (!*port || strlen(port) > 5 || strspn(port, "0123456789") != strlen(port) ||
	    (p = strtoul(port, NULL, 10)) > 65535) {
		snprintf(why, whylen, "port '%s' is not a number from 0 to 65535", port);
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(p);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	} else if (*host && strspn(host, "0123456789.") != hlen && !strchr(host, ':')) {
		/* A name: not an IPv4 address gone wrong, nor an IPv6 one without brackets. */
		return resolve(host, p, ss, len, why, whylen);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(p);
		if (*host && inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	}
	return 0;
bad:
	snprintf(why, whylen, "'%s' is not ADDR:PORT (an IPv4 address, [IPv6] or a host name, "
		 "then :PORT)", arg);
	return -1;
}

const char *cli_listen_option(const char *prog, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];

	if (cli_parse_listen(arg, &ss, &len, why, sizeof(why)))
		cli_usage_error(prog, "--listen: %s", why);
	return arg;
}

const char *cli_textfile_option(const char *prog, const char *arg)
{
	if (!*arg)
		cli_usage_error(prog, "--textfile: an empty path");
	return arg;
}
