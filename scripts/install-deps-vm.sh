#!/usr/bin/env bash
# Install what scripts/vm/run needs to boot Debian's kernels under QEMU.
# Idempotent and quick when everything is present: dpkg-query is asked first,
# apt-get (update + install) runs only for what is missing.
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

missing=()
for p in "${pkgs[@]}"; do
    # "install ok installed" is the only status that means usable.
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
        missing+=("$p")
    fi
done

if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "install-deps-vm: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
