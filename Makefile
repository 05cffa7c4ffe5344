# SPDX-License-Identifier: MIT
# Build layout after libbpf-bootstrap: BPF objects -> skeletons -> user space.
# Every object lives under build/; the program is ./encbench-trace.

PROG      := encbench-trace
VERSION   := 0.1.0
# SANITIZE=1: ASan + UBSan, everything in build/san (the program too).
ifeq ($(SANITIZE),1)
BUILD     := build/san
BIN       := $(BUILD)/$(PROG)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	     -fno-omit-frame-pointer
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0
else
BUILD     := build
BIN       := $(PROG)
endif
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
VMLINUX   := vmlinux/$(ARCH)/vmlinux.h
CLANG     ?= clang
BPFTOOL   ?= bpftool
CC        ?= gcc
PREFIX    ?= /usr/local
MANDIR    ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
PKGS      := libbpf libcryptsetup json-c sqlite3
TEST_PKGS := cmocka liburing

CFLAGS    ?= -O2 -g
# pkg-config's answers, asked once and only when a recipe first needs them
# (the first compile or link), never while the Makefile is read: on a fresh
# machine `make run` and `make check` run install-deps.sh first, which
# installs pkg-config and the -dev packages it asks about, and nothing may
# complain about them before it has (tests/repo/make-fresh.t).
pkg_once   = $(eval $(1) := $$(shell pkg-config $(2)))$($(1))
PKG_CFLAGS = $(call pkg_once,PKG_CFLAGS,--cflags $(PKGS))
PKG_LIBS   = $(call pkg_once,PKG_LIBS,--libs $(PKGS))
TEST_PKG_CFLAGS = $(call pkg_once,TEST_PKG_CFLAGS,--cflags $(TEST_PKGS))
TEST_PKG_LIBS   = $(call pkg_once,TEST_PKG_LIBS,--libs $(TEST_PKGS))
# The project's own flags, appended to whatever CFLAGS says (make
# CFLAGS=-O1 keeps them). -Wno-format-truncation as the kernel builds:
# snprintf truncation into fixed buffers is deliberate here (names, bounded
# paths under our scratch). -MMD: each object depends on exactly the
# headers (and skeletons) it includes.
OWN_CFLAGS  = -Wall -Wextra -Werror -Wno-format-truncation -std=gnu11 \
	     -D_GNU_SOURCE \
	     -DENCBENCH_VERSION='"$(VERSION)"' \
	     -I$(BUILD) -Iuserspace $(PKG_CFLAGS) \
	     -MMD -MP
ALL_CFLAGS = $(CFLAGS) $(SAN_FLAGS) $(OWN_CFLAGS)
# A program's own dependency file is hidden: globs of test programs
# (tests/vm/vm-tests.t) must not take it for one.
DEPFILE    = -MF $(@D)/.$(@F).d
LDLIBS    += $(PKG_LIBS) -lelf -lz -lm
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	      -I$(dir $(VMLINUX)) -Ibpf -Wall -Werror

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
SKELS     := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
SRCS      := $(wildcard userspace/*/*.c)
OBJS      := $(patsubst %.c,$(BUILD)/%.o,$(SRCS))
LIB_OBJS  := $(filter-out $(BUILD)/userspace/cli/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst %.c,$(BUILD)/%,$(UNIT_SRCS))
INTEG_SRCS := $(wildcard tests/integration/test_*.c)
INTEG_BINS := $(patsubst %.c,$(BUILD)/%,$(INTEG_SRCS))

# Quiet by default as libbpf-bootstrap builds; V=1 shows the commands.
ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.SECONDARY:
.DELETE_ON_ERROR:
.PHONY: all deps deps-check run check check-unit check-integration check-repo \
	sanitize fuzz check-bpf-headers \
	install deb clean format
all: $(BIN)

# What building and running need; deps-check adds the tests' (VM included).
deps:
	@scripts/install-deps.sh run

deps-check:
	@scripts/install-deps.sh check

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX)
	@mkdir -p $(dir $@)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# Each bpf/*.bpf.h compiles on its own, after vmlinux.h and libbpf's
# headers alone: a header that leans on its includer's statics (or on a
# header it does not include) fails here. Run by make check.
BPF_HDRS  := $(wildcard bpf/*.bpf.h)
BPF_HDR_OKS := $(patsubst bpf/%,$(BUILD)/bpf/%.ok,$(BPF_HDRS))
BPF_HDR_PRELUDE := '\#include "vmlinux.h"\n\#include <bpf/bpf_helpers.h>\n\#include <bpf/bpf_core_read.h>\n\#include <bpf/bpf_tracing.h>\n'

$(BUILD)/bpf/%.bpf.h.ok: bpf/%.bpf.h $(wildcard bpf/*.h) $(VMLINUX)
	@mkdir -p $(dir $@)
	$(call msg,BPF-HDR,$<)
	$(Q)printf $(BPF_HDR_PRELUDE)'#include "%s"\n' $(notdir $<) | \
		$(CLANG) $(BPF_CFLAGS) -fsyntax-only -x c - && touch $@

check-bpf-headers: $(BPF_HDR_OKS)

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# The skeletons exist before the first compile (order only); from then on
# the .d files -MMD wrote say which object includes which.
$(BUILD)/userspace/%.o: userspace/%.c | $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# The page's style and chart code are built in with .incbin.
$(BUILD)/userspace/report/html_assets.o: userspace/report/html.css \
	userspace/report/html_charts.js

$(BIN): $(OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/%.c $(LIB_OBJS) | $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFILE) -Itests $(TEST_PKG_CFLAGS) $< \
		$(LIB_OBJS) $(LDLIBS) $(TEST_PKG_LIBS) -o $@

# The analysis's unit tests link the pure stages alone (analysis, stats,
# report, common) and no libbpf: a reach into the tracer, a skeleton or
# libbpf fails their build (issue 19).
PURE_TESTS := test_attribute test_wait test_stacks test_replay test_snapshot \
	      test_aio \
	      test_why test_brief
PURE_OBJS  := $(filter-out $(BUILD)/userspace/common/bpf_ids.o, \
		$(filter $(foreach d,analysis stats report common, \
			$(BUILD)/userspace/$(d)/%),$(OBJS)))
JSONC_LIBS  = $(call pkg_once,JSONC_LIBS,--libs json-c)
PURE_LIBS   = $(JSONC_LIBS) -lm
$(patsubst %,$(BUILD)/tests/unit/%,$(PURE_TESTS)): $(BUILD)/tests/unit/%: \
		tests/unit/%.c $(PURE_OBJS) | $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,TEST,$@ (no libbpf))
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFILE) -Itests $(TEST_PKG_CFLAGS) $< \
		$(PURE_OBJS) $(PURE_LIBS) $(TEST_PKG_LIBS) -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

-include tests/vm/vm.mk

# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang: the readers
# they reach are compiled again with coverage and ASan + UBSan.
# ENCBENCH_FUZZ_SECONDS (default 60) is the length of `make fuzz`.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	      -fno-sanitize-recover=all -Wno-unknown-warning-option
FUZZ_SRCS  := $(wildcard userspace/report/*.c userspace/common/*.c \
		userspace/analysis/*.c \
		userspace/stats/*.c)
FUZZ_OBJS  := $(patsubst %.c,build/fuzz/%.o,$(FUZZ_SRCS))
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS := $(or $(ENCBENCH_FUZZ_SECONDS),60)

build/fuzz/%.o: %.c | $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $(OWN_CFLAGS) -c $< -o $@

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(OWN_CFLAGS) $(DEPFILE) $< \
		$(FUZZ_OBJS) $(LDLIBS) -o $@

fuzz: $(FUZZ_BINS)
	@scripts/fuzz-run.sh $(FUZZ_SECONDS)

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) run

check-unit: $(UNIT_BINS)
	prove -v $(UNIT_BINS)

check-integration: $(BIN) $(INTEG_BINS)
	ENCBENCH_BIN=$(CURDIR)/$(BIN) prove -v $(INTEG_BINS)

# Checks of the repository itself (tests/repo/*.t): the Makefile on a
# fresh machine, the documentation's example commands, the include rules
# between the folders of userspace/ (includes.t).
REPO_TESTS := $(wildcard tests/repo/*.t)
check-repo: $(BIN)
	ENCBENCH_BIN=$(CURDIR)/$(BIN) prove -v $(REPO_TESTS)

# The unit tests and the program under ASan + UBSan (build/san).
sanitize:
	@$(MAKE) --no-print-directory SANITIZE=1 build/san/$(PROG) check-unit

# make -n: say what would run (make's own convention for spotting -n).
CHECK_DRY := $(findstring n,$(firstword -$(MAKEFLAGS)))

# Everything, then the unit tests under the sanitizers and a short fuzz
# run. With SANITIZE=1 the program and the host tests are the sanitized
# build; the VM tests boot a guest with the plain one, so they are left out.
ifeq ($(SANITIZE),1)
check: deps-check
	@$(MAKE) --no-print-directory $(BIN) $(UNIT_BINS) $(INTEG_BINS) check-bpf-headers
	ENCBENCH_BIN=$(CURDIR)/$(BIN) prove -v $(UNIT_BINS) $(INTEG_BINS) $(REPO_TESTS)
else
# Each stage runs whatever the ones before it did, and the end lists each
# one that failed (scripts/check-stages.sh); make check fails then. The
# guests' kernels and OpenZFS build fill their cache at SCHED_IDLE while the
# host tests run (scripts/vm/prepare-bg).
check: deps-check
	@MAKE='$(MAKE)' ENCBENCH_CHECK_DRY='$(CHECK_DRY)' scripts/check-stages.sh \
		build '$(MAKE) --no-print-directory $(BIN) $(UNIT_BINS) $(INTEG_BINS) $(VM_TEST_BINS) check-bpf-headers' \
		tests 'scripts/vm/prepare-bg; prove -v --timer $(UNIT_BINS) $(INTEG_BINS) $(REPO_TESTS) tests/vm/vm-tests.t' \
		sanitizers '$(MAKE) --no-print-directory sanitize' \
		fuzzers '$(MAKE) --no-print-directory fuzz'
endif

install: $(PROG)
	install -D -m 0755 $(PROG) $(DESTDIR)$(PREFIX)/sbin/$(PROG)
	install -D -m 0644 userspace/cli/$(PROG).1 $(DESTDIR)$(MANDIR)/man1/$(PROG).1
	install -D -m 0644 userspace/cli/$(PROG).bash \
		$(DESTDIR)$(BASHCOMPDIR)/$(PROG)

# A Debian package with dpkg-deb alone; prints its path.
deb: $(PROG)
	@scripts/mkdeb.sh $(VERSION)

format:
	clang-format -i $(SRCS) $(wildcard userspace/*/*.h bpf/*.c bpf/*.h tests/*/*.c)

clean:
	rm -rf build $(PROG)
