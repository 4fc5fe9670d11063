#!/bin/bash
# tpstat's command line, on the host: every usage error exits 2 with a one-line reason
# before anything is loaded. Run as nobody, so nothing could ever load BPF into this kernel.
tpstat=$BUILD/tpstat
. "$(dirname "$0")/../lib/tap.sh"
usage_error() { usage_case 2 "$1" as_nobody "$tpstat" "${@:2}"; }	# WANT_TEXT ARGS...
usage_error "invalid interval '0'" -i 0 sched_switch
usage_error "invalid interval '-1'" -i -1 sched_switch
usage_error "invalid interval 'abc'" -i abc sched_switch
usage_error "invalid interval '1s'" -i 1s sched_switch
usage_error "invalid duration '-5'" -d -5 sched_switch
usage_error "invalid duration 'nan'" -d nan sched_switch
usage_error "invalid count '0'" -i 1 -c 0 sched_switch
usage_error "invalid count 'x'" -i 1 -c x sched_switch
usage_error "invalid count '-3'" -i 1 -c -3 sched_switch
usage_error "needs -i" -c 3 sched_switch
# --listen and --textfile (the metrics): checked before anything is opened or loaded.
usage_error "--listen: cannot resolve 'no-such-host.invalid'" --listen no-such-host.invalid:9100 sched_switch
usage_error "--listen: port '65536' is not a number from 0 to 65535" --listen 127.0.0.1:65536 sched_switch
usage_error "--listen: '\[::1\]9100' is not ADDR:PORT" --listen '[::1]9100' sched_switch
usage_error "--listen: '127.0.0.1' is not ADDR:PORT" --listen 127.0.0.1 sched_switch
usage_error "--textfile: an empty path" --textfile '' sched_switch
usage_error "-l takes no other options" -l --listen 127.0.0.1:9100
usage_error "-l takes no other options" -l --textfile /tmp/x.prom
# Tiny intervals would spin; huge counts would never be reached by an int interval number.
usage_error "interval 1e-300 s is below the minimum of 0.001 s" -i 1e-300 sched_switch
usage_error "interval 0x1p-1074 s is below the minimum of 0.001 s" -i 0x1p-1074 sched_switch
usage_error "interval 1e-400 s is below the minimum of 0.001 s" -i 1e-400 sched_switch
usage_error "interval 0.0009 s is below the minimum of 0.001 s" -i 0.0009 sched_switch
usage_error "count 1000000001 is above the maximum of 1000000000 intervals" -i 1 -c 1000000001 sched_switch
usage_error "count 2147483648 is above the maximum of 1000000000 intervals" -i 1 -c 2147483648 sched_switch
usage_error "invalid count '99999999999999999999'" -i 1 -c 99999999999999999999 sched_switch
usage_error "name at least one tracepoint" -i 1
usage_error "named twice" sched_switch pelt_cfs_tp sched_switch
# Any number of tracepoints: 1000 names pass the parser, and the first unknown one is refused
# (the host's BTF has no tp1); a pattern that matches nothing is refused naming it.
usage_error "unknown tracepoint 'tp1'" $(seq -f 'tp%g' 1 1000)
usage_error "no tracepoint matches 'nosuch_\*'" 'nosuch_*'
# As nobody, tracefs' available_events cannot be read (nor is it mounted on every host).
usage_error "'nosuch:\*': cannot tell the subsystems of trace events without tracefs" sched_switch 'nosuch:*'
usage_error "'sched_\*' is a pattern: an option names one tracepoint" --hist 'sched_*:prev_pid' sched_switch
usage_error "invalid --hist 'tpgen_a': TRACEPOINT:EXPR" --hist tpgen_a
usage_error "invalid --hist ':seq': TRACEPOINT:EXPR" --hist :seq
usage_error "invalid --hist 'tpgen_a:': TRACEPOINT:EXPR" --hist tpgen_a:
usage_error "too many --hist: at most 8" $(for i in $(seq 9); do echo --hist tpgen_a:seq; done)
usage_error "-l takes no other options" -l --hist tpgen_a:seq
usage_error "unknown tracepoint 'tp1'" $(seq -f 'tp%g' 1 32) --hist tp33:x
usage_error "invalid --lhist 'tpgen_a:seq': TRACEPOINT:EXPR:MIN:MAX:STEP" --lhist tpgen_a:seq
usage_error "invalid --lhist 'tpgen_a:seq:0:10:x': STEP 'x' is not a whole number" --lhist tpgen_a:seq:0:10:x
usage_error "invalid --lhist 'tpgen_a:seq:10:10:1': MIN < MAX and STEP > 0" --lhist tpgen_a:seq:10:10:1
usage_error "invalid --lhist 'tpgen_a:seq:0:10:0': MIN < MAX and STEP > 0" --lhist tpgen_a:seq:0:10:0
usage_error "128 buckets, at most 127: a larger STEP" --lhist tpgen_a:seq:0:128:1
# MAX - MIN + STEP used to wrap: 2^64 - 1 over 2^57 is 128 buckets, not 0.
usage_error "128 buckets, at most 127: a larger STEP" \
	--lhist tpgen_a:seq:-9223372036854775808:9223372036854775807:144115188075855872
# One histogram and one key table per expression: a second would repeat its series' labels.
usage_error "tpgen_a:seq is given twice (--hist or --lhist): one histogram per expression" \
	--hist tpgen_a:seq --hist tpgen_a:seq
usage_error "tpgen_a:seq is given twice (--hist or --lhist): one histogram per expression" \
	--hist tpgen_a:seq --lhist tpgen_a:seq:0:100:10
usage_error "--by tpgen_a:comm is given twice" --by tpgen_a:comm --by tpgen_a:comm
usage_error "invalid --by 'sched_switch': TRACEPOINT:KEY" --by sched_switch
usage_error "invalid --by 'sched_switch:': TRACEPOINT:KEY" --by sched_switch:
usage_error "too many --by: at most 8" $(for i in $(seq 9); do echo --by sched_switch:cpu; done)
usage_error "--top chooses the keys --by shows: it needs --by" --top 3 sched_switch
usage_error "invalid --top '0'" --by sched_switch:cpu --top 0
usage_error "invalid --top '10241'" --by sched_switch:cpu --top 10241
usage_error "-l takes no other options" -l --by sched_switch:cpu
# Stack keys: a depth from 1 to 126, one of each kind, and the options that need one.
usage_error "--by 'sched_switch:kstack:0': kstack:N takes N from 1 to 126 frames" --by sched_switch:kstack:0
usage_error "--by 'sched_switch:ustack:127': ustack:N takes N from 1 to 126" --by sched_switch:ustack:127
usage_error "--by 'sched_switch:kstack:3x': kstack:N" --by sched_switch:kstack:3x
usage_error "--by 'sched_switch:kstack,kstack:3': one kstack per --by" --by sched_switch:kstack,kstack:3
usage_error "--folded is for stacks: it needs --by TP:kstack or TP:ustack" --folded /tmp/f sched_switch
usage_error "--flamegraph is for stacks" --by sched_switch:cpu --flamegraph /tmp/f sched_switch
usage_error "--stack-entries is for stacks" --stack-entries 5 sched_switch
usage_error "invalid --stack-entries '0'" --by sched_switch:kstack --stack-entries 0 sched_switch
usage_error "--folded is given twice" --by sched_switch:kstack --folded a --folded b sched_switch
usage_error "takes no other options" -l -i 1
usage_error "at most one GLOB" -l 'a*' 'b*'
usage_error "unrecognized option" --bogus sched_switch
usage_error "name at least one tracepoint" -- true
# Names longer than any tracepoint's (127 bytes): one line, cut, with the length.
long128=$(printf 'a%.0s' $(seq 128)) long1000=$(printf 'b%.0s' $(seq 1000))
usage_error "tracepoint name too long (128 bytes, at most 127): '$(cut -c1-40 <<<"$long128")...'" "$long128"
usage_error "tracepoint name too long (1000 bytes, at most 127): '$(cut -c1-40 <<<"$long1000")...'" sched_switch "$long1000"
usage_error "unknown tracepoint '$(cut -c1-127 <<<"$long128")'" "$(cut -c1-127 <<<"$long128")"
# Targets and views (perf stat's): contradictions and bad values, before anything is loaded.
usage_error "-a counts system wide: it cannot be combined with -p" -a -p 1 sched_switch
usage_error "-a counts system wide: it cannot be combined with -t" -a -t 1 sched_switch
usage_error "-p, -t and -G cannot be combined" -p 1 -G / sched_switch
usage_error "-p and -t are given once" -p 1 -t 2 sched_switch
usage_error "invalid PID list '1,,2'" -p 1,,2 sched_switch
usage_error "invalid PID list '0'" -p 0 sched_switch
usage_error "invalid PID list '4194305'" -p 4194305 sched_switch
usage_error "invalid TID list '+5'" -t +5 sched_switch
usage_error "invalid PID list '12x'" -p 12x sched_switch
usage_error "no such process: 4000000" -p 4000000 sched_switch
usage_error "no such thread: 4000000" -t 4000000 sched_switch
usage_error "is not a cgroup v2 directory" -G /tmp sched_switch
usage_error "cannot open cgroup 'no-such-cgroup-here'" -G no-such-cgroup-here sched_switch
usage_error "-r repeats a command: give one after --" -r 3 sched_switch
usage_error "invalid repeat count '0'" -r 0 sched_switch -- true
usage_error "invalid repeat count '10001'" -r 10001 sched_switch -- true
usage_error "-r cannot be combined with -i or -d" -r 2 -i 1 sched_switch -- true
usage_error "-x and -j cannot be combined" -x, -j sched_switch
usage_error "invalid separator ''" -x '' sched_switch
usage_error "--summary prints totals after intervals: it needs -i" --summary sched_switch
# perf's habits (issue 25): -I, -o, --append, -l --bare, a forgotten or empty "--".
usage_error "invalid -I '0': a whole number of milliseconds, at least 1" -I 0 sched_switch
usage_error "invalid -I '0.5'" -I 0.5 sched_switch
usage_error "invalid -I '100ms'" -I 100ms sched_switch
usage_error "-i and -I set the same interval" -i 1 -I 100 sched_switch
usage_error "-c counts intervals: it needs -i" -c 2 sched_switch
usage_error "--append appends the report to -o FILE: it needs -o" --append sched_switch
usage_error "-o needs a file name" -o '' sched_switch
usage_error "-l takes no other options" -l -o /tmp/x
usage_error "--bare chooses what -l lists: it needs -l" --bare sched_switch
usage_error "-x has no columns for --hist: use -j, or the table" -x, --hist tpgen_a:seq
usage_error "-x has no columns for --lhist" -x, --lhist tpgen_a:seq:0:100:10
usage_error "-x has no columns for --by" -x, --by sched_switch:cpu
usage_error "--by 'sched_switch:cpu,cpu': key 'cpu' is given twice" --by sched_switch:cpu,cpu
usage_error "--by 'sched_switch:cpu,pid,comm,cgroup,prev->pid': at most 4 keys" --by 'sched_switch:cpu,pid,comm,cgroup,prev->pid'
usage_error "--by 'sched_switch:cpu,': an empty key" --by sched_switch:cpu,
usage_error "--value 'prev->prio' sums a field per key of the --by before it" --value 'prev->prio' sched_switch
usage_error "--value 'prev->prio': --by sched_switch:cpu has a --value already" --by sched_switch:cpu --value 'prev->prio' --value 'prev->prio'
usage_error "invalid CPU list '0,,1'" -C 0,,1 sched_switch
usage_error "invalid CPU list '3-1'" -C 3-1 sched_switch
usage_error "invalid CPU list '8192': CPUs from 0 to 8191" -C 8192 sched_switch
usage_error "invalid CPU list '-1'" -C -1 sched_switch
usage_error "invalid CPU list '1-'" -C 1- sched_switch
usage_error "-C is given once" -C 0 -C 1 sched_switch
usage_error "-C 8191: there is no CPU 8191" -C 8191 sched_switch
usage_error "'--' ends the options: name the command to run after it" sched_switch --
usage_error "'--' ends the options: name the command to run after it" -a sched_switch --
usage_error "unknown tracepoint 'sh', which is a program: did you forget '--' before the command?" sched_switch sh
usage_error "unknown tracepoint '/bin/true', which is a program: did you forget '--'" sched_switch /bin/true
# One rule for a repeated option (tpstat(8), OPTIONS): an option that sets one value is
# given once; a repeatable one adds, each of its items once; a flag twice is the flag.
usage_error "-d is given twice: give it once" -d 1 -d 2 sched_switch
usage_error "-c is given twice: give it once" -i 1 -c 1 -c 2 sched_switch
usage_error "-r is given twice: give it once" -r 2 -r 3 sched_switch -- true
usage_error "-x is given twice: give it once" -x, -x';' sched_switch
usage_error "-o is given twice: give it once" -o /tmp/a -o /tmp/b sched_switch
usage_error "-G is given twice: give it once" -G / -G / sched_switch
usage_error "--top is given twice: give it once" --by sched_switch:cpu --top 3 --top 4 sched_switch
usage_error "--listen is given twice: give it once" --listen 127.0.0.1:0 --listen 127.0.0.1:0 sched_switch
usage_error "--textfile is given twice: give it once" --textfile /tmp/a.prom --textfile /tmp/b.prom sched_switch
usage_error "--latency tpgen_a:pid,tpgen_b:pid is given twice: one histogram per pair" \
	--latency tpgen_a:pid,tpgen_b:pid --latency tpgen_a:pid,tpgen_b:pid tpgen_a
usage_error "--latency tpgen_a:pid,tpgen_b:pid is given twice: one histogram per pair" \
	--latency tpgen_a:pid,tpgen_b:pid --latency tpgen_a:pid,tpgen_b:pid:0:1000:10 tpgen_a
usage_error "--filter 'tpgen_a:seq & 1' is given twice" --filter 'tpgen_a:seq & 1' --filter 'tpgen_a:seq & 1'
# Lists end in a number, and --latency's bounds are named as --latency's.
usage_error "invalid CPU list '0,'" -C 0, sched_switch
usage_error "invalid PID list '1,'" -p 1, sched_switch
usage_error "invalid TID list '1,2,'" -t 1,2, sched_switch
usage_error "invalid --latency 'tpgen_a:pid,tpgen_b:pid:0:10:x': STEP 'x' is not a whole number" \
	--latency tpgen_a:pid,tpgen_b:pid:0:10:x tpgen_a

for h in --help -h; do
	out=$("$tpstat" $h)
	[ $? = 0 ] && grep -q -- '--hist TP:EXPR' <<<"$out" && grep -q -- '-o FILE' <<<"$out" &&
		grep -q -- '--by TP:KEY' <<<"$out"
	ok $? "tpstat $h: exit 0, USAGE names --hist, --by and -o"
done
# A glob that matches nothing is an error alone: no table header on stdout before it.
out=$(as_nobody "$tpstat" -l 'no-such-tracepoint*' 2>"$BUILD/tpstat-args.err"); rc=$?
[ "$rc" = 1 ] && [ -z "$out" ] && grep -q "no tracepoint matches 'no-such-tracepoint\*'" "$BUILD/tpstat-args.err"
ok $? "tpstat -l GLOB matching nothing: exit 1, one line, empty stdout (rc $rc, stdout '$out')"

out=$("$tpstat" --help)
[ $? = 0 ] && grep -q EXAMPLES <<<"$out" && grep -q -- '-- CMD' <<<"$out"
ok $? "--help shows usage and examples"
done_testing
