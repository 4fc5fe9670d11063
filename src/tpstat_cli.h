/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's command line: --help and the parsing of the options into struct tpstat_opts
 * (tpstat_opts.h) and the tracepoints' specs (tpstat_specs.h). Usage errors end the
 * program here: one line, exit EXIT_USAGE.
 */
#ifndef __BAREATOM_TPSTAT_CLI_H
#define __BAREATOM_TPSTAT_CLI_H

#include "src/cli.h"
#include "src/pins.h"
#include "src/tpstat_opts.h"

/* Where --pin pins (pins.h): named in --help and in its messages. */
#define PIN_DIR PINS_ROOT "/tpstat"

struct tpstat_specs;

/*
 * Parse and check argv (CMD after "--" split off first) into @o, and the tracepoints it
 * names with their items into @s, grouped (tpstat_specs.h); returns only when they are
 * usable. Both keep pointers into argv.
 */
void tpstat_parse_args(int argc, char **argv, struct tpstat_opts *o, struct tpstat_specs *s);

#endif /* __BAREATOM_TPSTAT_CLI_H */
