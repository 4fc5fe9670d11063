// SPDX-License-Identifier: GPL-2.0
/* cookie-rate: cookie-gend's per-uid token buckets and their option parsers (TAP). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/cookie_proto.h"
#include "src/cookie_rate.h"
#include "tests/unit/test.h"

static struct cookie_rate r;

static void parses_rate(const char *s, uint64_t want)
{
	const char *err = NULL;
	uint64_t v = 12345;
	char name[128];

	snprintf(name, sizeof(name), "--rate-limit '%s' is %llu", s, (unsigned long long)want);
	test_report(!cookie_rate_parse_rate(s, &v, &err) && v == want, name);
}

static void rejects_rate(const char *s)
{
	const char *err = NULL;
	uint64_t v;
	char name[128];

	snprintf(name, sizeof(name), "--rate-limit '%s' is refused with a reason", s);
	test_report(cookie_rate_parse_rate(s, &v, &err) == -1 && err && strstr(err, "whole number"), name);
}

static void burst_case(const char *s, int ok, uint64_t want)
{
	const char *err = NULL;
	uint64_t v = 0;
	char name[128];
	int ret = cookie_rate_parse_burst(s, &v, &err);

	snprintf(name, sizeof(name), "--rate-burst '%s' is %s", s, ok ? "accepted" : "refused");
	test_report(ok ? !ret && v == want : ret == -1 && err && strstr(err, "65536"), name);
}

int main(void)
{
	double retry = -1;
	int i, passed;

	/* Parsers. */
	parses_rate("16384", 16384);
	parses_rate("100/s", 100);
	parses_rate("1", 1);
	parses_rate("0", 0);
	parses_rate("unlimited", 0);
	parses_rate("281474976710656", COOKIE_RATE_MAX);
	rejects_rate("");
	rejects_rate("/s");
	rejects_rate("-1");
	rejects_rate("1x");
	rejects_rate("1/m");
	rejects_rate(" 1");
	rejects_rate("00/s");		/* not "0": a rate of 0 written oddly is still a typo */
	rejects_rate("281474976710657");
	rejects_rate("99999999999999999999999");
	rejects_rate("Unlimited");
	burst_case("65536", 1, COOKIE_GET_MAX);
	burst_case("1048576", 1, 1048576);
	burst_case("65535", 0, 0);
	burst_case("0", 0, 0);
	burst_case("1e6", 0, 0);
	burst_case("281474976710657", 0, 0);

	/* Unlimited: everything passes and no table is kept. */
	cookie_rate_init(&r, 0, COOKIE_BURST_DEFAULT);
	for (i = 0; i < 100000 && cookie_rate_take(&r, 1000, COOKIE_GET_MAX, 0, &retry); i++)
		;
	ASSERT_EQ(i, 100000, "unlimited: 100000 GETs of 65536 at one instant all pass");
	ASSERT_EQ(r.n, 0, "unlimited: no bucket is kept");

	/* The burst, then the rate, exactly. */
	cookie_rate_init(&r, 16384, 1048576);
	for (i = 0; cookie_rate_take(&r, 1000, 65536, 10.0, &retry); i++)
		;
	ASSERT_EQ(i, 16, "a full bucket of 2^20 passes 16 GETs of 65536 at one instant");
	ASSERT_TRUE(retry == 4.0, "the 17th is refused: retry in 65536 / 16384 = 4 s");
	ASSERT_TRUE(!cookie_rate_take(&r, 1000, 1, 10.0, &retry), "even GET 1 is refused at once");
	ASSERT_TRUE(!cookie_rate_take(&r, 1000, 65536, 13.5, &retry) && retry == 0.5,
		    "3.5 s later 57344 are there: GET 65536 waits 0.5 s more");
	ASSERT_TRUE(cookie_rate_take(&r, 1000, 57344, 13.5, &retry),
		    "a refusal took nothing: GET 57344 passes then");
	ASSERT_TRUE(!cookie_rate_take(&r, 1000, 1, 13.5, &retry), "and the bucket is empty again");
	ASSERT_TRUE(cookie_rate_take(&r, 1000, 16384, 14.5, &retry), "one second later: 16384 more");
	ASSERT_TRUE(!cookie_rate_take(&r, 1000, 1, 14.5, &retry), "not one more");
	ASSERT_TRUE(cookie_rate_take(&r, 1001, 65536, 14.5, &retry), "another uid has its own full bucket");
	ASSERT_TRUE(!cookie_rate_take(&r, 1000, 1, 14.5, &retry), "which leaves the first one's empty");

	/* Sustained: what one uid gets in 1000 s of pipelined GET 65536 is the burst + 1000 s of rate. */
	cookie_rate_init(&r, 16384, 1048576);
	passed = 0;
	for (int ms = 0; ms <= 1000000; ms++)
		while (cookie_rate_take(&r, 7, 65536, ms / 1000.0, &retry))
			passed++;
	ASSERT_EQ(passed, 16 + 1000 * 16384 / 65536, "1000 s of flooding draws the burst and 1000 s x 16384/s");

	/* A refill never exceeds the burst, however long the pause. */
	cookie_rate_init(&r, 16384, 65536);
	ASSERT_TRUE(cookie_rate_take(&r, 5, 65536, 0, &retry), "burst 65536: one GET 65536");
	for (i = 0; cookie_rate_take(&r, 5, 65536, 1e6, &retry); i++)
		;
	ASSERT_EQ(i, 1, "after a pause of 10^6 s the bucket holds the burst, not 1.6e10");

	/* The table is bounded; a refilled entry is reused and loses nothing. */
	cookie_rate_init(&r, 1, 65536);
	for (uint32_t uid = 1; uid <= COOKIE_RATE_UIDS; uid++)
		cookie_rate_take(&r, uid, 65536, 0, &retry);
	ASSERT_EQ(r.n, COOKIE_RATE_UIDS, "1024 uids fill the table");
	ASSERT_TRUE(!cookie_rate_take(&r, 1, 1, 0, &retry), "each of them is empty");
	ASSERT_TRUE(cookie_rate_take(&r, 5000, 65536, 0, &retry), "a 1025th uid is served");
	ASSERT_EQ(r.n, COOKIE_RATE_UIDS, "the table did not grow");
	for (i = 0, passed = 0; i < COOKIE_RATE_UIDS; i++)
		passed += r.b[i].uid == 5000;
	ASSERT_EQ(passed, 1, "the new uid took one entry");
	/* uid 2 refilled a little more than the others, since it drew nothing at 0. */
	cookie_rate_init(&r, 1, 65536);
	for (uint32_t uid = 1; uid <= COOKIE_RATE_UIDS; uid++)
		cookie_rate_take(&r, uid, uid == 2 ? 60000 : 65536, 0, &retry);
	cookie_rate_take(&r, 9999, 1, 10, &retry);
	for (i = 0, passed = 0; i < COOKIE_RATE_UIDS; i++)
		passed += r.b[i].uid == 2;
	ASSERT_EQ(passed, 0, "when none has refilled, the entry closest to full (uid 2) is reused");
	ASSERT_TRUE(!cookie_rate_take(&r, 3, 11, 10, &retry) && retry == 1.0,
		    "the others kept their levels: uid 3 holds 10 at 10 s, GET 11 waits 1 s");
	return test_done();
}
