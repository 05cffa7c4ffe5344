# Tests that run inside a QEMU guest with Debian's 6.1/6.12 kernels, where
# dm-crypt, eCryptfs, kprobes and fentry exist (scripts/vm/run; VM.md).
# Included from the top-level Makefile. Each tests/vm/test_vm_*.c is one
# cmocka program (TAP output) that the host driver tests/vm/vm-tests.t runs in
# the guest; it is built here, on the host, with the host's libraries, which
# the guest sees too (it runs on the host's root over 9p).

VM_TEST_SRCS := $(wildcard tests/vm/test_vm_*.c)
VM_TEST_BINS := $(patsubst tests/vm/%.c,$(BUILD)/tests/vm/%,$(VM_TEST_SRCS))
VM_TEST_CFLAGS = $(shell pkg-config --cflags cmocka json-c)
# libbpf: tests that check the BPF ids a run made are gone (leftovers.h).
# libutil: forkpty (in libc itself since glibc 2.34; the stub keeps older ones).
VM_TEST_LIBS = $(shell pkg-config --libs cmocka json-c libbpf) -lm -lutil

$(BUILD)/tests/vm/test_vm_%: tests/vm/test_vm_%.c tests/vm/vm.mk | $(SKELS)
	@mkdir -p $(@D)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFILE) $(VM_TEST_CFLAGS) -o $@ $< $(LDFLAGS) $(VM_TEST_LIBS)

# ENCBENCH_VM_KERNELS (default "6.1 6.12") picks the kernels; ENCBENCH_SKIP_VM=1 skips.
.PHONY: check-vm
check-vm: $(VM_TEST_BINS) $(BIN)
	prove -v tests/vm/vm-tests.t
