# bareatom: .bpf.c -> .bpf.o -> .skel.h -> binary, a kernel and a guest image to run them in.
#
#   make            build everything (kernel, tpgen.ko, BPF objects, tools, guest image)
#   make tools      the tools alone, and make test-host all the host tests need: no kernel build
#                   (vmlinux.h is Debian's kernel's BTF, images/vmlinux-h)
#   make test       host tests, then VM tests in one guest boot; ends with "N passed, N failed"
#   make run        boot the guest and run the demo
#   make vm         an interactive root shell in the guest
#   make stock-kernel  fetch Debian's stock kernel for the second, portability boot of make test
#   make stock-kernel-6.12  the same for the 6.12 LTS line (from bookworm-backports)
#   make static     one statically linked file per tool, in build/static/
#
# The kernel tree and the base image are cached outside the repository, in $(BAREATOM_CACHE).

SHELL := /bin/bash
BAREATOM_CACHE ?= /var/cache/bareatom
export BAREATOM_CACHE

BUILD := build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
# Everything is compiled once, here, with the flags Debian builds packages with (hardening
# on): make deb packages these very objects, so the host tests run the binaries the package
# ships and the guest installs. $(BUILD)/flags records the flags; a change rebuilds it all.
deb-flags = $(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get $(1))
ifeq ($(origin CFLAGS),undefined)
CFLAGS := $(call deb-flags,CFLAGS) $(call deb-flags,CPPFLAGS)
endif
ifeq ($(origin LDFLAGS),undefined)
LDFLAGS := $(call deb-flags,LDFLAGS)
endif
# Includes: every header of this tree is named by its path from the top ("src/cli.h",
# "bpf/tpstat_abi.h", "tests/unit/test.h"; -I.), so an include says which file it means; only
# the generated ones, vmlinux.h and NAME.skel.h, are named bare and come from $(BUILD).
# tests/unit/includes.t checks the rule and the layers (no bpf/ header includes src/).
CFLAGS += -Wall -Wextra -Wno-unused-parameter -I$(BUILD) -I.
LDLIBS := -lbpf -lelf -lz -lm
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I$(BUILD) -I. -Wall

# The one list of tools and where they go: the package puts SBIN_TOOLS in /usr/sbin and
# BIN_TOOLS in /usr/bin (make deb writes debian/bareatom.install, .manpages and .links from
# these); GUEST_TOOLS are the tests' companions, installed only into the guest (make-initrd).
SBIN_TOOLS := tpstat cookie-gend eht-hosts
BIN_TOOLS := cookie
GUEST_TOOLS := counter
TOOLS := $(GUEST_TOOLS) $(SBIN_TOOLS) $(BIN_TOOLS)
# The helpers every tool links: one file and header per topic (include the one you use).
UTIL := $(addprefix $(BUILD)/,bpf_util.o cli.o clock.o cmd.o json.o)
# Tracepoint prototypes and field expressions from BTF: tpstat's, the tests' and tpbench's.
TPFIELD := $(BUILD)/tpfield.o $(BUILD)/tpfield_proto.o
# The metrics exporter (--listen, --textfile) of tools on the run loop.
METRICS := $(addprefix $(BUILD)/,metrics_export.o metrics_textfile.o http_serve.o metrics.o)
# Stacks (--by TP:kstack/ustack, issue 39): kernel frames from kallsyms, user frames through
# libdwfl, the folded lines, the table, -j and the --flamegraph page with its viewer inline.
STACKS := $(addprefix $(BUILD)/,stack_ksym.o stack_usym.o stack_fold.o stack_html.o stack_viewer.o)
STACKS_LIBS := -ldw
# cookie-gend's socket, its metrics and its loop: all they know of the daemon is its ops.
COOKIE_SERVE := $(addprefix $(BUILD)/,cookie_loop.o cookie_serve.o cookie_rate.o cookie_metrics.o cookie_proto.o \
	runloop.o) $(METRICS) $(UTIL)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(wildcard bpf/*.bpf.c))
BINS := $(addprefix $(BUILD)/,$(TOOLS))
VM_HELPERS := $(patsubst tests/vm/%.c,$(BUILD)/tests/vm/%,$(wildcard tests/vm/*.c))
BENCH_BINS := $(BUILD)/tests/bench/tpbench
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(wildcard tests/unit/*.c))
INITRD := $(BUILD)/image/initrd.cpio
TEST_PAYLOAD := $(BUILD)/image/tests.cpio

# A bare `make` builds everything (the rule below would otherwise be the first, and so the
# default goal: `make` built build/bpf_util.o and stopped).
.DEFAULT_GOAL := all

# The flags of every C object and binary, rewritten only when they change.
FLAGS_NOW := $(CC) $(CFLAGS) $(LDFLAGS) $(LDLIBS)
ifneq ($(FLAGS_NOW),$(file <$(BUILD)/flags))
$(shell mkdir -p $(BUILD))
$(file >$(BUILD)/flags,$(FLAGS_NOW))
endif
$(patsubst src/%.c,$(BUILD)/%.o,$(wildcard src/*.c)) $(BUILD)/stack_viewer.o $(BINS) $(UNIT_BINS) $(VM_HELPERS) \
	$(BENCH_BINS): $(BUILD)/flags

# Paths of the cached kernel tree and base image, known once their stamps are made.
KDIR = $(shell cat $(BUILD)/kernel.dir)

.PHONY: all deps kernel module image test-image tools test test-host test-vm-build run vm bench clean FORCE \
	stock-kernel selftests
.DELETE_ON_ERROR:

all: image

deps:
	@images/install-deps

# Long builds show their progress (images/progress): objects done out of the earlier build's
# count, elapsed time and an estimate; in place on a terminal, a line every 30 s otherwise.
# A step of kbuild and of the selftests' Makefiles is one of their "  CC      path" lines.
KBUILD_STEP := ^  [A-Z][A-Z0-9_.-]*[[:space:]]
PROGRESS := images/progress

# Always asks build-kernel (a no-op when the key is built); the stamp changes only with the key.
# build-kernel writes its own build.log; progress watches it (--watch) and says nothing when
# the kernel is already built.
$(BUILD)/kernel.dir: FORCE | deps
	@mkdir -p $(BUILD)
	@k=$$(kernel/build-kernel --dir) && \
	d=$$($(PROGRESS) --watch --label "kernel build" --log "$$k/build.log" --match '$(KBUILD_STEP)' \
		--total-cmd "kernel/previous-build $$k" -- kernel/build-kernel) && \
		{ [ "$$(cat $@ 2>/dev/null)" = "$$d" ] || echo "$$d" > $@; }

# A step of mkosi is a line of its log; the total is the newest earlier base image's.
$(BUILD)/base-image.path: FORCE | deps
	@mkdir -p $(BUILD)
	@i=$$(images/build-base-image --path) && \
	p=$$($(PROGRESS) --watch --label "base image" --log "$$(dirname "$$i").tmp/mkosi.log" \
		--total-cmd "ls -t $(BAREATOM_CACHE)/image-*/mkosi.log | head -n1" -- images/build-base-image) && \
		{ [ "$$(cat $@ 2>/dev/null)" = "$$p" ] || echo "$$p" > $@; }

kernel: $(BUILD)/kernel.dir

# vmlinux.h needs no kernel build: it is Debian's 6.1 kernel's types and its bridge module's,
# from their BTF (images/vmlinux-h: the linux-image package fetched once, cached like the
# kernel). CO-RE moves every field access to the running kernel's layout at load time; what
# the programs use of our kernel is checked where our kernel is (core-check below).
$(BUILD)/btf.dir: FORCE | deps
	@mkdir -p $(BUILD)
	@d=$$(images/vmlinux-h) && { [ "$$(cat $@ 2>/dev/null)" = "$$d" ] || echo "$$d" > $@; }
BTF_DIR = $(shell cat $(BUILD)/btf.dir)

$(BUILD)/vmlinux.h: $(BUILD)/btf.dir
	cp $(BTF_DIR)/vmlinux.h $@.tmp && mv $@.tmp $@

# The BPF objects again, against our kernel's BTF (its bridge is built in), only to compare:
# tests/unit/core-relos prints what each object asks of the kernel's types, by name, and its
# code; an object that differs between the two headers, or that does not compile against our
# kernel's, stops the image here (tests/unit/core-check.t says the same in make test).
OUR_BPF_OBJS := $(patsubst $(BUILD)/%,$(BUILD)/our-kernel/%,$(BPF_OBJS))
$(BUILD)/our-kernel/vmlinux.h: $(BUILD)/kernel.dir
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(KDIR)/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/our-kernel/%.bpf.o: bpf/%.bpf.c $(BUILD)/our-kernel/vmlinux.h | deps
	$(CLANG) -I$(BUILD)/our-kernel $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/our-kernel/core-check: $(BPF_OBJS) $(OUR_BPF_OBJS) $(BUILD)/tests/unit/core-relos
	@for o in $(notdir $(BPF_OBJS)); do \
		d=$$(diff -U2 --label "$$o against $(BUILD)/vmlinux.h (Debian's BTF)" \
			--label "$$o against our kernel's BTF" <($(BUILD)/tests/unit/core-relos $(BUILD)/$$o) \
			<($(BUILD)/tests/unit/core-relos $(BUILD)/our-kernel/$$o)) || { \
			echo "core-check: bpf/$${o%.o}.c asks of Debian's and of our kernel's types" \
				"different things (a member missing, or of another kind or size):"; \
			head -n 40 <<<"$$d"; exit 1; }; \
	done
	@touch $@

# Header dependencies of everything compiled, BPF objects included, are generated by the
# compiler (-MMD -MP beside each output: build/FOO.d) and read back below, never listed by hand.
# A binary compiled from several sources in one step gets its deps written by a -MM pass
# (-MMD would give each source's to the same FILE.d, the last one winning).
DEPFLAGS = -MMD -MP
deps-of-sources = $(1) -MM -MP -MT $@ $(filter %.c,$^) >$@.d

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(BUILD)/vmlinux.h | deps
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/%.o: src/%.c | deps
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# The flame graph viewer (d3-flame-graph and d3, from npm, cached outside the tree), built
# into the object that holds it: .incbin finds the files on the assembler's include path.
$(BUILD)/viewer.stamp: images/flamegraph-viewer | deps
	@images/flamegraph-viewer $(BUILD) && touch $@

$(BUILD)/stack_viewer.o: src/stack_viewer.S $(BUILD)/viewer.stamp | deps
	$(CC) $(CFLAGS) -Wa,-I$(BUILD)/viewer $(DEPFLAGS) -c $< -o $@

-include $(wildcard $(BUILD)/*.d $(BUILD)/tests/*/*.d $(BUILD)/tests/unit/layout/*.d $(BUILD)/our-kernel/*.d)

# Objects that need a skeleton wait for it.
$(BUILD)/counter.o: $(BUILD)/counter.skel.h
$(BUILD)/tpstat.o $(BUILD)/tpstat_target.o $(BUILD)/tpstat_read.o $(BUILD)/tpstat_read_lat.o \
		$(BUILD)/tpstat_rodata.o $(BUILD)/tpstat_progs.o $(BUILD)/tpstat_stacks.o: \
		$(BUILD)/tpstat.skel.h
$(BUILD)/cookie_pins.o: $(BUILD)/cookie.skel.h
$(BUILD)/eht-hosts.o: $(BUILD)/eht.skel.h

$(BUILD)/counter: $(BUILD)/counter.o $(BUILD)/runloop.o $(UTIL)
# tpstat's output: the view's formats and the histogram model they share.
TPSTAT_FMT := $(addprefix $(BUILD)/,tpstat_fmt.o tpstat_fmt_table.o tpstat_fmt_bars.o tpstat_fmt_csv.o \
	tpstat_fmt_json.o tpstat_buckets.o tplist.o stack_fold.o)
$(BUILD)/tpstat $(BUILD)/static/tpstat: $(BUILD)/tpstat.o $(BUILD)/tpstat_cli.o $(BUILD)/tpstat_specs.o \
		$(BUILD)/tpstat_specs_resolve.o \
		$(BUILD)/tpstat_target.o $(BUILD)/tpstat_names.o $(BUILD)/tpfilter.o $(TPFIELD) \
		$(BUILD)/tpstat_rodata.o $(BUILD)/tpstat_read.o $(BUILD)/tpstat_read_lat.o $(BUILD)/tpstat_view.o \
		$(TPSTAT_FMT) \
		$(BUILD)/tpstat_progs.o $(BUILD)/bpf_fold.o $(BUILD)/tpstat_expand.o $(BUILD)/tpstat_guard.o \
		$(BUILD)/tpstat_metrics.o $(METRICS) $(BUILD)/pins.o $(BUILD)/runloop.o \
		$(BUILD)/tpstat_stacks.o $(BUILD)/tpstat_stack_merge.o $(STACKS) $(UTIL)
$(BUILD)/tpstat: LDLIBS += $(STACKS_LIBS)
# cookie-gend --etcd: the claim, reservations and moves (cookie_fleet*.c) over etcd's JSON gateway
# (etcd.c: libcurl for HTTP, json-c for the bodies; etcd_b64.c: keys and values in base64).
FLEET_CORE := $(addprefix $(BUILD)/,cookie_fleet_thread.o cookie_fleet_move.o cookie_fleet_reserve.o cookie_fleet_claim.o)
FLEET := $(FLEET_CORE) $(BUILD)/etcd.o $(BUILD)/etcd_b64.o
FLEET_LIBS := -lcurl -ljson-c -lpthread
$(BUILD)/cookie-gend $(BUILD)/static/cookie-gend: $(BUILD)/cookie-gend.o $(BUILD)/cookie_daemon.o $(BUILD)/cookie_pins.o $(COOKIE_SERVE) $(BUILD)/daemon_log.o \
		$(BUILD)/cookie_mark.o $(BUILD)/cookie_mark_dir.o $(BUILD)/cookie_store.o $(FLEET_CORE) $(BUILD)/libcookie.a
$(BUILD)/cookie-gend: $(BUILD)/etcd.o $(BUILD)/etcd_b64.o
$(BUILD)/cookie-gend: LDLIBS += $(FLEET_LIBS)
# Debian has no static libcurl: make static's cookie-gend refuses --etcd, saying so (etcd_none.c).
$(BUILD)/static/cookie-gend: $(BUILD)/etcd_none.o
$(BUILD)/cookie $(BUILD)/static/cookie: $(BUILD)/cookie.o $(BUILD)/cookie_cmd.o $(BUILD)/cookie_follow.o $(BUILD)/cookie_proto.o $(BUILD)/runloop.o $(UTIL) $(BUILD)/libcookie.a
$(BUILD)/eht-hosts $(BUILD)/static/eht-hosts: $(BUILD)/eht-hosts.o $(BUILD)/eht_snap.o $(BUILD)/eht_fmt.o $(BUILD)/eht_metrics.o $(METRICS) \
		$(BUILD)/pins.o $(BUILD)/runloop.o $(UTIL)
$(BUILD)/libcookie.a: $(BUILD)/libcookie.o
	$(AR) rcs $@ $^
$(BINS):
	$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o %.a,$^) $(LDLIBS) -o $@

tools: $(BINS)

# tpgen is built in a copy, so the module's objects never land in the repository.
$(BUILD)/module/tpgen.ko: $(wildcard kernel/module/*) $(BUILD)/kernel.dir
	rm -rf $(BUILD)/module && mkdir -p $(BUILD)/module && cp kernel/module/* $(BUILD)/module/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD)/module modules >$(BUILD)/module.log 2>&1 || \
		{ cat $(BUILD)/module.log; exit 1; }

module: $(BUILD)/module/tpgen.ko

# The kernel's own test_verifier (tools/testing/selftests/bpf), from the cached kernel tree with
# its outputs here (OUTPUT=). The tree itself only gains verifier/tests.h and prog_tests/tests.h,
# generated the same way every time. A new kernel key starts from an empty directory.
SELFTESTS := $(BUILD)/selftests
# Progress: the total is the previous build's log (kept as .prev when it built anything).
keep-log = grep -qE '$(KBUILD_STEP)' $(1) 2>/dev/null && mv $(1) $(1).prev || true
$(SELFTESTS)/test_verifier: $(BUILD)/kernel.dir | deps
	rm -rf $(SELFTESTS) && mkdir -p $(SELFTESTS)
	@$(call keep-log,$(BUILD)/selftests.log)
	$(PROGRESS) --label "selftests: test_verifier" --log $(BUILD)/selftests.log --match '$(KBUILD_STEP)' \
		--total-from $(BUILD)/selftests.log.prev -- \
		$(MAKE) -C $(KDIR)/tools/testing/selftests/bpf OUTPUT=$(CURDIR)/$(SELFTESTS)/ test_verifier || \
		{ tail -n 40 $(BUILD)/selftests.log; exit 1; }

# Stripped and gzipped for the guest (tests/selftests/test_verifier says why).
$(SELFTESTS)/test_verifier.gz: $(SELFTESTS)/test_verifier
	strip -o $@.tmp $< && gzip -9nf $@.tmp && mv $@.tmp.gz $@

# Index, modes and description of each case from verifier/atomic_*.c and verifier/xadd.c.
$(SELFTESTS)/atomic-cases: $(SELFTESTS)/test_verifier tests/selftests/gen-cases tests/selftests/list-cases.c
	CC="$(CC)" tests/selftests/gen-cases $(KDIR) $(SELFTESTS) $@ 'atomic_*.c' xadd.c

# test_progs, for `test_progs -t atomics`; built in a scratch copy (the script says why).
$(BUILD)/selftests-progs/test_progs: $(BUILD)/kernel.dir tests/selftests/build-test-progs | deps
	@$(call keep-log,$(BUILD)/selftests-progs.log)
	$(PROGRESS) --label "selftests: test_progs" --log $(BUILD)/selftests-progs.log --match '$(KBUILD_STEP)' \
		--total-from $(BUILD)/selftests-progs.log.prev -- \
		tests/selftests/build-test-progs $(KDIR) $(BUILD)/selftests-progs || \
		{ tail -n 40 $(BUILD)/selftests-progs.log; exit 1; }

SELFTEST_BINS := $(SELFTESTS)/test_verifier.gz $(SELFTESTS)/atomic-cases $(BUILD)/selftests-progs/test_progs
selftests: $(SELFTEST_BINS)

# Debian's stock kernel for the compile-once, run-everywhere boot (tests/stock/): its vmlinuz
# and its own virtio and 9p modules, cached per package version; unchanged files stay untouched.
$(BUILD)/stock/vmlinuz: FORCE | deps
	@images/stock-kernel $(BUILD)

stock-kernel: $(BUILD)/stock/vmlinuz

# The 6.12 LTS line Debian 13 runs, from bookworm-backports through apt lists of its own
# (images/stock-kernel says how); cached like the 6.1 kernel. make test boots it too, and
# skips that boot, saying why, when it cannot be fetched (tests/run-all runs the script).
.PHONY: stock-kernel-6.12
stock-kernel-6.12: | deps
	@images/stock-kernel $(BUILD) 6.12

# ---- make static: one statically linked file per tool, to copy onto any x86-64 Linux ----
# The same objects as the dynamic tools (the rules above name both targets), linked with
# Debian's static libbpf, libelf, zlib and glibc. glibc warns at link time that getaddrinfo
# (a --listen host given by name) and getgrnam (cookie-gend's socket group) need its shared
# NSS modules at run time: its files and dns back ends are built into the static libc, so
# /etc/hosts, DNS and /etc/group work without them; only other nsswitch.conf sources
# (myhostname, resolve, sss, ldap) would need the same glibc version's modules on the host.
# Numeric --listen addresses never reach getaddrinfo. tests/unit/static.t checks the files.
STATIC_TOOLS := $(SBIN_TOOLS) $(BIN_TOOLS)
STATIC_BINS := $(addprefix $(BUILD)/static/,$(STATIC_TOOLS))
.PHONY: static
static: $(STATIC_BINS)
$(STATIC_BINS):
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static $(filter %.o %.a,$^) $(STATIC_LIBS) -lbpf -lelf -lz -lm -o $@
# libdw's static archive and what it reads compressed ELF with (xz, bzip2); it opens
# libdebuginfod with dlopen, which a static tpstat does not do (no debuginfod there).
$(BUILD)/static/tpstat: STATIC_LIBS := -ldw -llzma -lbz2
test-host: $(STATIC_BINS)

$(BUILD)/tests/vm/%: tests/vm/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) $(filter %.c %.o %.a,$^) $(LDLIBS) -o $@

# tests/vm/tpstat-stacks.t's program: PIE with frame pointers, stripped, its symbols and DWARF
# in stack-syscall.debug beside it (.gnu_debuglink), which the test payload carries too.
$(BUILD)/tests/vm/stack-syscall: tests/vm/stack-syscall.c | deps
	@mkdir -p $(dir $@)
	$(CC) -g -O2 -fPIE -pie -fno-omit-frame-pointer -fno-optimize-sibling-calls -Wall -Wextra $< -o $@.full
	objcopy --only-keep-debug $@.full $@.debug
	objcopy --strip-all --add-gnu-debuglink=$@.debug $@.full $@ && rm $@.full

$(BUILD)/tests/vm/cookie-load: $(BUILD)/libcookie.a
$(BUILD)/tests/vm/prog-run: $(BUILD)/tpstat.skel.h $(BUILD)/cookie.skel.h $(BUILD)/tpstat_progs.o $(BUILD)/bpf_fold.o $(UTIL)

# The guest half of make bench; libuuid linked in statically (the image has no libuuid1).
$(BUILD)/tests/bench/%.o: tests/bench/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/tests/bench/tpbench.o: $(BUILD)/bench.skel.h $(BUILD)/tpstat.skel.h
$(BUILD)/tests/bench/tpbench_cookies.o: $(BUILD)/cookie.skel.h
$(BUILD)/tests/bench/tpbench: $(BUILD)/tests/bench/tpbench.o $(BUILD)/tests/bench/tpbench_cookies.o \
		$(BUILD)/libcookie.a $(TPFIELD) | deps
	$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.o,$^) $(BUILD)/libcookie.a $(LDLIBS) \
		-Wl,-Bstatic -luuid -Wl,-Bdynamic -o $@

$(BUILD)/tests/unit/%: tests/unit/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) $(filter %.c %.o,$^) $(LDLIBS) -o $@

# Unit tests of user-space code link the objects they test.
$(BUILD)/tests/unit/tpstat-fmt: $(TPSTAT_FMT) $(UTIL)
$(BUILD)/tests/unit/cookie-proto: $(BUILD)/cookie_proto.o
$(BUILD)/tests/unit/cookie-store: $(BUILD)/cookie_store.o
$(BUILD)/tests/unit/cookie-rate: $(BUILD)/cookie_rate.o
$(BUILD)/tests/unit/libcookie-timeout: $(BUILD)/libcookie.o
# Linked without cookie-gend.o: the socket, its loop and the metrics see the daemon only
# through its ops.
$(BUILD)/tests/unit/cookie-serve: $(COOKIE_SERVE)
$(BUILD)/tests/unit/cookie-mark: $(BUILD)/cookie_mark.o $(BUILD)/cookie_mark_dir.o $(BUILD)/cookie_store.o $(FLEET) $(UTIL)
$(BUILD)/tests/unit/cookie-mark: LDLIBS += $(FLEET_LIBS)
# The fleet's host harness: cookie-gend's mark and claim on a counter in memory, against a
# real etcd started by tests/unit/cookie-fleet.t (no BPF, no socket).
$(BUILD)/tests/unit/cookie-fleet: $(BUILD)/cookie_mark.o $(BUILD)/cookie_mark_dir.o $(BUILD)/cookie_store.o $(FLEET) $(UTIL)
$(BUILD)/tests/unit/cookie-fleet: LDLIBS += $(FLEET_LIBS)
$(BUILD)/tests/unit/json $(BUILD)/tests/unit/ticks: $(UTIL)
$(BUILD)/tests/unit/json-writer: $(UTIL)
$(BUILD)/tests/unit/metrics-writer: $(BUILD)/metrics.o $(UTIL)
# The writer again under UBSan (GCC's -fsanitize=undefined leaves float-cast-overflow out).
UNIT_BINS += $(BUILD)/tests/unit/metrics-writer-ubsan
$(BUILD)/tests/unit/metrics-writer-ubsan: tests/unit/metrics-writer.c src/metrics.c src/json.c | deps
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all \
		-Wall -Wextra -Wno-unused-parameter -I. $(filter %.c,$^) -lm -o $@
	$(call deps-of-sources,$(CC) -I.)
$(BUILD)/tests/unit/tpstat-metrics: $(BUILD)/tpstat_metrics.o $(METRICS) $(BUILD)/runloop.o $(TPSTAT_FMT) $(UTIL)
$(BUILD)/tests/unit/metrics-export: $(METRICS) $(BUILD)/runloop.o $(UTIL)
$(BUILD)/tests/unit/http-serve: $(BUILD)/http_serve.o $(BUILD)/metrics_textfile.o $(BUILD)/metrics.o $(UTIL)
$(BUILD)/tests/unit/http-pool: $(BUILD)/http_serve.o $(BUILD)/metrics.o $(UTIL)
$(BUILD)/tests/unit/eht-fmt: $(BUILD)/eht_fmt.o $(BUILD)/eht_snap.o $(UTIL)
$(BUILD)/tests/unit/tpfield: $(TPFIELD) $(BUILD)/tests/unit/layout/kernel-layout.o
$(BUILD)/tests/unit/tpfilter: $(BUILD)/tpfilter.o $(TPFIELD)
$(BUILD)/tests/unit/tpstat-expand: $(BUILD)/tpstat_expand.o $(BUILD)/tplist.o
$(BUILD)/tests/unit/layout/kernel-layout.o: tests/unit/layout/kernel-layout.c $(BUILD)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CC) -I$(BUILD) $(DEPFLAGS) -c $< -o $@
$(BUILD)/tests/unit/runloop: $(BUILD)/runloop.o $(UTIL)
$(BUILD)/tests/unit/stack-ksym: $(BUILD)/stack_ksym.o
$(BUILD)/tests/unit/stack-usym: $(BUILD)/stack_usym.o
$(BUILD)/tests/unit/stack-usym: LDLIBS += $(STACKS_LIBS)
$(BUILD)/tests/unit/tpstat-stack-merge: $(BUILD)/tpstat_stack_merge.o $(BUILD)/tpstat_buckets.o
$(BUILD)/tests/unit/stack-fold: $(BUILD)/stack_fold.o $(BUILD)/stack_html.o $(BUILD)/stack_viewer.o $(UTIL)
$(BUILD)/tests/unit/tpstat-cpus: $(TPSTAT_FMT) $(UTIL)
$(BUILD)/tests/unit/tpstat-specs: $(BUILD)/tpstat_specs.o $(BUILD)/tpstat_specs_resolve.o $(BUILD)/tpstat_expand.o $(TPFIELD) \
	$(BUILD)/tpfilter.o $(BUILD)/tplist.o \
	$(BUILD)/tpstat_buckets.o $(UTIL)
$(BUILD)/tests/unit/tpstat-hist: $(TPSTAT_FMT) $(UTIL)
$(BUILD)/tests/unit/tpstat-guard: $(BUILD)/tpstat_guard.o
$(BUILD)/tests/unit/bpf-fold: $(BUILD)/bpf_fold.o

# libFuzzer targets: clang with the fuzzer, address and undefined sanitizers. A target is its
# harness plus the sources it lists below (compiled in, under the sanitizers, not linked
# from the tools' objects).
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(wildcard tests/fuzz/*.c))
$(BUILD)/tests/fuzz/%: tests/fuzz/%.c | deps
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. \
		$(filter %.c,$^) -o $@
	$(call deps-of-sources,$(CLANG) -I.)
$(BUILD)/tests/fuzz/cookie-proto: src/cookie_proto.c
$(BUILD)/tests/fuzz/stack-text: src/stack_ksym.c src/stack_fold.c src/stack_html.c src/json.c

# The guest's initramfs: the cached base image plus a second cpio with the suite (what make
# run and make vm boot), and the test payload, an archive of its own that images/run-vm
# appends only for test boots (images/make-initrd says what is in which).
$(INITRD): $(BUILD)/base-image.path $(BUILD)/kernel.dir $(BUILD)/module/tpgen.ko $(BINS) \
		$(BUILD)/our-kernel/core-check \
		$(BUILD)/tests/vm/igmp-send $(wildcard images/guest/*) images/make-initrd
	GUEST_TOOLS="$(GUEST_TOOLS)" images/make-initrd $(BUILD) $(KDIR) $$(cat $(BUILD)/base-image.path) $@

$(TEST_PAYLOAD): $(VM_HELPERS) $(BENCH_BINS) $(SELFTEST_BINS) $(wildcard tests/vm/* tests/lib/* \
		tests/stock/* tests/bench/* tests/selftests/*) tests/tap-run tests/unit/atomics.expect \
		images/make-initrd
	images/make-initrd --tests $(BUILD) $@

# The QEMU the guest boots under: Debian's 10.0 from bookworm-backports, unpacked into the
# cache (images/qemu says why); when it cannot be had, run-vm uses the machine's own.
.PHONY: qemu
qemu: | deps
	@images/qemu $(BUILD) || [ $$? = 3 ]

image: $(INITRD) qemu
test-image: image $(TEST_PAYLOAD)

test: test-host test-vm-build
	@tests/run-all $(BUILD)

# The same suite with a nice -n 19 CPU hog on each host core beside it (tests/loaded): what
# passes here does not depend on an idle machine.
.PHONY: test-loaded
test-loaded: test-host test-vm-build
	@tests/loaded tests/run-all $(BUILD)

# Everything compiled that needs no kernel build, the guest's test helpers and tpbench
# included (tests/unit/make-deps.t checks that each one is rebuilt when a header changes).
test-host: $(BINS) $(UNIT_BINS) $(FUZZ_BINS) $(BPF_OBJS) $(VM_HELPERS) $(BENCH_BINS) | deps

test-vm-build: test-image stock-kernel prom-share

# Debian's etcd for the guest's cookie-gend --etcd test (tests/vm/cookie-etcd.t), and
# Debian's prometheus and promtool for the guest's metrics tests, shared into it with
# run-vm --share build/share (tests/run-all) rather than put in the image: 95 MB the boot
# would unpack every time, for two tests. With them the OpenMetrics reference parser
# (python3-prometheus-client, pure Python: the guest's python3 imports it from
# /mnt/share/python, tests/vm/om-check).
PROM_SHARE := $(BUILD)/share/prometheus
PY_SHARE := $(BUILD)/share/python
.PHONY: prom-share
prom-share: | deps
	@mkdir -p $(PROM_SHARE) $(PY_SHARE) && cp -pu /usr/bin/prometheus /usr/bin/promtool $(PROM_SHARE)/
	@cp -rpu /usr/lib/python3/dist-packages/prometheus_client \
		/usr/lib/python3/dist-packages/decorator.py $(PY_SHARE)/
	@mkdir -p $(BUILD)/share/etcd && cp -pu /usr/bin/etcd /usr/bin/etcdctl $(BUILD)/share/etcd/

run: image
	images/run-vm --cpus 4 -- /usr/lib/bareatom/demo

vm: image
	images/run-vm

# Benchmarks: one guest boot, results in build/bench/ (results.json, scaling.png, a table).
# BENCH_ARGS="-n EVENTS -r ROUNDS" shortens them (the smoke run in make test does).
bench: test-image
	tests/bench/run $(BUILD) $(BENCH_ARGS)

clean:
	rm -rf $(BUILD)

FORCE:

# ---- Debian packages (images/debian, debhelper) ----
# `make deb` stages the sources with images/debian as debian/, and the objects and tools
# this make built (with their .d files, the skeletons, build/vmlinux.h and build/flags:
# the BPF objects are CO-RE, the binaries run on any kernel with BTF; and build/viewer/,
# the flame graph viewer's files, which debian/copyright names), then builds the
# binary packages there with dpkg-buildpackage. The package build's own make (debian/rules)
# finds them all up to date and compiles nothing: the suite is built once, and the package
# holds the very binaries the host tests ran (tests/unit/deb.t compares their build ids).
# Staged with their times, and only they (--delete-excluded): without them, the same rules
# build the package from source. debian/ is replaced each time, so debhelper always runs
# its whole sequence. The package build's own make must not inherit this one's flags or
# variables (BUILD=...): MAKEFLAGS is dropped.
DEB_VERSION = $(shell dpkg-parsechangelog -l images/debian/changelog -S Version)
DEB_DIR := $(BUILD)/deb
DEB_STAGE = $(DEB_DIR)/bareatom-$(DEB_VERSION)
DEBS = $(DEB_DIR)/bareatom_$(DEB_VERSION)_amd64.deb $(DEB_DIR)/libcookie-dev_$(DEB_VERSION)_amd64.deb

.PHONY: deb
deb: $(DEBS)

DEB_BUILT := $(foreach f,*.o *.d *.skel.h libcookie.a vmlinux.h flags viewer.stamp viewer viewer/* $(TOOLS),--include='/$(f)')
$(DEB_DIR)/bareatom_%_amd64.deb $(DEB_DIR)/libcookie-dev_%_amd64.deb: Makefile $(BINS) $(BUILD)/libcookie.a \
		$(wildcard src/* src/man/* bpf/* images/debian/* images/debian/*/*) | deps
	@mkdir -p $(DEB_STAGE)/build
	rsync -a --delete src bpf Makefile $(DEB_STAGE)/
	rsync -a --delete-excluded $(DEB_BUILT) --exclude='*' $(BUILD)/ $(DEB_STAGE)/build/
	rsync -a --delete images/debian/ $(DEB_STAGE)/debian/
	for t in $(SBIN_TOOLS); do echo "build/$$t usr/sbin"; done >$(DEB_STAGE)/debian/bareatom.install
	for t in $(BIN_TOOLS); do echo "build/$$t usr/bin"; done >>$(DEB_STAGE)/debian/bareatom.install
	for t in $(SBIN_TOOLS) $(BIN_TOOLS); do ls src/man/$$t.[18]; done >$(DEB_STAGE)/debian/bareatom.manpages
	c=usr/share/bash-completion/completions; for t in $(filter-out $(firstword $(SBIN_TOOLS)),$(SBIN_TOOLS) \
		$(BIN_TOOLS)); do echo "$$c/$(firstword $(SBIN_TOOLS)) $$c/$$t"; done >$(DEB_STAGE)/debian/bareatom.links
	cd $(DEB_STAGE) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -b -us -uc --no-pre-clean >../build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log; exit 1; }
	@touch $(DEBS)

# The guest installs the suite from the package (images/make-initrd); package.t reinstalls it.
$(INITRD) $(TEST_PAYLOAD): $(DEBS)
# tests/unit/deb.t checks what make deb built.
test-host: $(DEBS)
