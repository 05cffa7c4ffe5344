#!/bin/bash
# Stage 2, run by init.sh inside the chroot (the host's root, writable via
# overlay): mount what the tracer needs, load the modules the tests need,
# then run the user's command with its output on ttyS1 (the host prints that
# file; the kernel console stays on ttyS0). Exits with the command's status.
# Module and mount failures are logged to the console log, never fatal: the
# command itself reports what it finds missing.
set -uo pipefail

# shellcheck source=/dev/null
. /run/encbench-vm/env # KVER, MODROOT, PROJECT_DIR, forwarded ENCBENCH_* vars

log() { echo "encbench-vm guest: $*"; }

try_mount() { # type source target [options]
    mkdir -p "$3" 2>/dev/null
    mountpoint -q "$3" || mount -t "$1" ${4:+-o "$4"} "$2" "$3" || log "mount $1 on $3 failed"
}
try_mount devpts devpts /dev/pts gid=5,mode=620,ptmxmode=666
try_mount tmpfs shm /dev/shm mode=1777
try_mount tracefs tracefs /sys/kernel/tracing
try_mount debugfs debugfs /sys/kernel/debug
try_mount bpf bpf /sys/fs/bpf mode=0700
try_mount cgroup2 cgroup2 /sys/fs/cgroup
try_mount securityfs securityfs /sys/kernel/security
mkdir -p /run/cryptsetup /run/lock /run/lock/cryptsetup
mountpoint -q /tmp || chmod 1777 /tmp /var/tmp 2>/dev/null

# Make /lib/modules/$KVER the unpacked Debian tree, so plain `modprobe` and the
# kernel's own request_module (crypto algorithms, filesystems) find modules.
if ! { mkdir -p "/lib/modules/$KVER" &&
    mount --bind "$MODROOT/lib/modules/$KVER" "/lib/modules/$KVER"; }; then
    log "cannot bind the module tree; only modprobe -d will work"
fi

loaded=() failed=()
# crypto_null: LUKS2's cipher_null control (a module in Debian's 6.12,
# which libcryptsetup's cipher check does not load). The kernel's own
# request_module runs modprobe in the initramfs root, which has no module
# tree, so nothing loads itself: Adiantum's parts (adiantum, the XChaCha
# and NHPoly1305 drivers) and essiv for dm-crypt and fscrypt, and AF_ALG's
# skcipher socket, through which libcryptsetup encrypts a LUKS2 key slot
# with a cipher its crypto backend lacks. Without them the 6.1 guest's
# `cryptsetup luksFormat --cipher xchacha12,aes-adiantum-plain64` said
# "Cannot use ... cipher for keyslot encryption", tune's LUKS2 setup
# "Failed to setup dm-crypt key mapping", and tune's cipher probe, with no
# AF_ALG to ask, fell back to modules.alias and called Adiantum usable;
# with them dm-crypt takes both Adiantum ciphers (2026-12-02). twofish and
# cast6: eCryptfs's other 128-bit-block ciphers, tune's ecryptfs sweep.
for m in loop dm-mod dm-crypt dm-delay xts aesni_intel ecryptfs ext4 hmac \
    sha512_generic encrypted_keys crypto_null adiantum chacha_generic \
    chacha-x86_64 nhpoly1305 nhpoly1305-sse2 poly1305_generic essiv \
    af_alg algif_skcipher twofish_generic cast6_generic; do
    if modprobe -d "$MODROOT" -S "$KVER" "$m" 2>&1; then
        loaded+=("$m")
    else
        failed+=("$m")
    fi
done
log "modules loaded: ${loaded[*]}; failed: ${failed[*]:-none}"

# OpenZFS (run --zfs): the cached user space goes into the overlay (gone at
# power-off; the host never gets ZFS installed), then the built modules are
# loaded in dependency order, the kernel's own dependencies by modprobe.
load_zfs() {
    local ko deps dep
    tar -C "$ZFS_DIR/root" -cf - . | tar -C / -xf - --keep-directory-symlink ||
        { ZFS_SKIP="cannot copy the OpenZFS user space from $ZFS_DIR"; return 1; }
    while read -r ko deps; do
        for dep in $deps; do
            [[ -f "$ZFS_DIR/modules/$dep.ko" ]] || modprobe "$dep" ||
                { ZFS_SKIP="cannot load $dep (needed by $ko)"; return 1; }
        done
        insmod "$ZFS_DIR/modules/$ko" ||
            { ZFS_SKIP="insmod $ko failed (see the console log)"; return 1; }
    done <"$ZFS_DIR/load-order"
    # ZFS opens file vdevs by path from its own kernel threads, whose root
    # is still the initramfs (init.sh chroots a child, not itself): show
    # them the folders pools may live in, at the same paths.
    for d in /var/tmp /tmp; do
        mkdir -p "/proc/1/root$d" &&
            mount --no-canonicalize --bind "$d" "/proc/1/root$d" ||
            log "cannot show $d to ZFS's kernel threads"
    done
    ENCBENCH_VM_ZFS=$(cat /sys/module/zfs/version)
    export ENCBENCH_VM_ZFS
}
if [[ -n "${ZFS_DIR:-}" ]] && ! load_zfs; then
    log "OpenZFS not loaded: $ZFS_SKIP"
fi
if [[ -n "${ZFS_SKIP:-}" ]]; then
    export ENCBENCH_VM_ZFS_SKIP=$ZFS_SKIP
fi

export HOME=/root TERM=dumb LANG=C.UTF-8 ENCBENCH_VM=1 ENCBENCH_VM_KERNEL=$KVER
# No udev runs here: make libdevmapper (dmsetup, cryptsetup) create the
# /dev/mapper nodes itself instead of waiting for udev to do it.
export DM_DISABLE_UDEV=1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# raw: no \n -> \r\n translation, so the host gets the bytes as written.
stty -F /dev/ttyS1 raw -echo 115200 || log "stty ttyS1 failed"
mapfile -d '' -t argv </run/encbench-vm/cmd
(
    cd "$PROJECT_DIR" || exit 125
    exec "${argv[@]}"
) </dev/null >/dev/ttyS1 2>&1
status=$?
sync
exit "$status"
