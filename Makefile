# SPDX-License-Identifier: MIT
# Build layout after libbpf-bootstrap: BPF objects -> skeletons -> user space.
# Every object lives under build/; the program is ./encbench-trace.

PROG      := encbench-trace
VERSION   := 0.1.0
BUILD     := build
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
# -Wno-format-truncation as the kernel builds: snprintf truncation into
# fixed buffers is deliberate here (names, bounded paths under our scratch).
CFLAGS    += -Wall -Wextra -Werror -Wno-format-truncation -std=gnu11 \
	     -D_GNU_SOURCE \
	     -DENCBENCH_VERSION='"$(VERSION)"' \
	     -I$(BUILD) -Iuserspace $(shell pkg-config --cflags $(PKGS))
LDLIBS    += $(shell pkg-config --libs $(PKGS)) -lelf -lz -lm
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
.PHONY: all deps deps-check run check check-unit check-integration install deb clean format
all: $(PROG)

# What building and running need; deps-check adds the tests' (VM included).
deps:
	@scripts/install-deps.sh run

deps-check:
	@scripts/install-deps.sh check

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX)
	@mkdir -p $(dir $@)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# Any user-space object may include a skeleton: rebuild when one changes.
$(BUILD)/userspace/%.o: userspace/%.c $(wildcard userspace/*/*.h) bpf/attrib.h $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The page's style and chart code are built in with .incbin.
$(BUILD)/userspace/report/html_assets.o: userspace/report/html.css \
	userspace/report/html_charts.js

$(PROG): $(OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/%.c $(LIB_OBJS) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests $(shell pkg-config --cflags $(TEST_PKGS)) $< \
		$(LIB_OBJS) $(LDLIBS) $(shell pkg-config --libs $(TEST_PKGS)) -o $@

-include tests/vm/vm.mk

run: deps
	@$(MAKE) --no-print-directory $(PROG)
	./$(PROG) run

check-unit: $(UNIT_BINS)
	prove -v $(UNIT_BINS)

check-integration: $(PROG) $(INTEG_BINS)
	prove -v $(INTEG_BINS)

check: deps-check
	@$(MAKE) --no-print-directory $(PROG) $(UNIT_BINS) $(INTEG_BINS) $(VM_TEST_BINS)
	prove -v $(UNIT_BINS) $(INTEG_BINS) tests/vm/vm-tests.t

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
	rm -rf $(BUILD) $(PROG)
