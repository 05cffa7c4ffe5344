#!/bin/busybox sh
# Stage 1, /init of the guest (busybox sh, runs from the initramfs).
# Mounts the host's / over 9p read-only, puts a tmpfs-backed overlay on top
# so the whole root is writable (writes vanish at power-off), chroots into it
# and runs stage 2 (guest.sh, bash from the host) which runs the command.
# Everything printed here goes to the console log (ttyS0), not to the user.
# shellcheck shell=sh

/bin/busybox --install -s
export PATH=/sbin:/bin:/usr/sbin:/usr/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

# shellcheck source=/dev/null
. /encbench/stage1.env # NONCE

finish() {
    # The host looks for exactly this line to learn the command's status.
    echo "ENCBENCH-VM-EXIT:$NONCE:$1"
    sync
    sleep 1 # let the UARTs drain before the power goes
    poweroff -f
}

fail() {
    echo "encbench-vm init: $*"
    finish 125
}

while read -r m; do
    insmod "/modules/$m" || echo "encbench-vm init: insmod $m failed"
done </modules/order

# msize: the default (8 KiB on 6.1) makes every read a round trip per page.
# cache=loose: the export is read-only and the host does not change under us.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /host ||
    fail "cannot mount the host root over 9p"

mount -t tmpfs -o size=80%,mode=0755 rw /rw
mkdir -p /rw/upper /rw/work
if ! mount -t overlay overlay \
    -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work,index=off,xino=off,redirect_dir=off,metacopy=off \
    /newroot; then
    # Fallback: read-only root, tmpfs where programs write. The host's /tmp is
    # hidden then, so the project folder must not live under /tmp.
    echo "encbench-vm init: overlayfs failed, using a read-only root with tmpfs /tmp /var/tmp /etc"
    mount --bind /host /newroot
    mount -t tmpfs tmpfs /newroot/tmp
    mount -t tmpfs tmpfs /newroot/var/tmp
    mkdir -p /rw/etc && cp -a /host/etc/. /rw/etc/ && mount --bind /rw/etc /newroot/etc
fi

mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
# And the same devtmpfs here too: kernel threads resolve paths from this
# root, not from the chroot below (OpenZFS opens a disk vdev by its path
# on a taskq thread, vdev_open_children: without device nodes here a
# pool on a block device fails with ENOENT, "no such pool or dataset").
mount -t devtmpfs devtmpfs /dev
# A fresh /run: the host's may hold /run/udev/control, which would make
# libdevmapper wait for a udev that is not running here.
mount -t tmpfs -o mode=0755 run /newroot/run
mkdir -p /newroot/run/encbench-vm
cp /encbench/* /newroot/run/encbench-vm/

chroot /newroot /bin/bash /run/encbench-vm/guest.sh
finish $?
