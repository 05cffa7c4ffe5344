#!/usr/bin/env bash
# Install what scripts/vm/run needs to boot Debian's kernels under QEMU.
# Idempotent and quick when everything is present: dpkg-query is asked first,
# apt-get (update + install) runs only for what is missing, quietly.
# --zfs: also make sure Debian's contrib component is enabled (only OpenZFS,
# zfs-dkms/zfsutils-linux, comes from there; scripts/vm/zfs.sh downloads and
# unpacks them for the guest, nothing from contrib is installed on the host).
set -euo pipefail

# Add contrib as a sources file of its own, for the same mirror and release
# as the system's main entry, so removing that one file undoes it.
enable_contrib() {
    local file=/etc/apt/sources.list.d/encbench-zfs-contrib.sources uri suite
    if apt-cache policy 2>/dev/null | grep -q ' [a-z]*/contrib '; then
        return 0
    fi
    uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/debian.sources | awk '{ print $2; exit }')
    [[ -n "$uri" ]] || uri=$(awk '$1 == "deb" && $3 !~ /security|updates/ { print $2; exit }' \
        /etc/apt/sources.list 2>/dev/null)
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    echo "install-deps-vm: enabling Debian's contrib component (only for OpenZFS in the VM tests): $file" >&2
    cat >"$file" <<EOS
# Added by encbench-trace scripts/install-deps-vm.sh --zfs: Debian's contrib
# component, only for zfs-dkms/zfsutils-linux (OpenZFS) used in the VM tests.
Types: deb
URIs: ${uri:-http://deb.debian.org/debian}
Suites: $suite
Components: contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
    apt-get update -qq
}

if [[ "${1:-}" == --zfs ]]; then
    enable_contrib
fi

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
    cryptsetup-bin    # test_vm_user makes a LUKS2 mount as a user would
)

here=$(dirname "$(readlink -f "$0")")
# shellcheck source=scripts/deps-lib.sh
. "$here/deps-lib.sh"
deps_install "VM tests" "${pkgs[@]}"
