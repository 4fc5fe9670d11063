/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's command line: --help and the parsing of the options into struct tpstat_opts
 * (tpstat_opts.h). Usage errors end the program here: one line, exit EXIT_USAGE.
 */
#ifndef __BAREATOM_TPSTAT_CLI_H
#define __BAREATOM_TPSTAT_CLI_H

#include "src/cli.h"
#include "src/pins.h"
#include "src/tpstat_opts.h"

/* Where --pin pins (pins.h): named in --help and in its messages. */
#define PIN_DIR PINS_ROOT "/tpstat"

/*
 * Parse and check argv (CMD after "--" split off first) into @o; returns only when it is
 * usable. @o keeps pointers into argv.
 */
void tpstat_parse_args(int argc, char **argv, struct tpstat_opts *o);

#endif /* __BAREATOM_TPSTAT_CLI_H */
