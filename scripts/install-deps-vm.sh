#!/usr/bin/env bash
# Install what scripts/vm/run needs to boot Debian's kernels under QEMU.
# Idempotent and quick when everything is present: dpkg-query is asked first,
# apt-get (update + install) runs only for what is missing, quietly.
set -euo pipefail

pkgs=(
    qemu-system-x86   # qemu-system-x86_64 (TCG; KVM is unusable on the CI machines)
    busybox-static    # the initramfs userland (static: no libraries to copy)
    cpio              # packs the initramfs
    kmod              # depmod/modprobe against the extracted kernel tree
    xz-utils          # 6.12 ships .ko.xz modules; busybox insmod wants them plain
    perl              # prove (TAP driver for tests/vm/vm-tests.t)
    libcmocka-dev     # tests/vm guest test programs
    libjson-c-dev
    pkg-config
)

here=$(dirname "$(readlink -f "$0")")
# shellcheck source=scripts/deps-lib.sh
. "$here/deps-lib.sh"
deps_install "VM tests" "${pkgs[@]}"
