# shellcheck shell=bash
# Helpers for scripts/vm/run: find Debian's kernel package, unpack it into a
# cache outside the repo, and build the (cached) base initramfs.
#
# Cache layout, one folder per exact kernel version:
#   $VM_CACHE/<kver>/root/       the unpacked linux-image package (depmod'ed)
#   $VM_CACHE/<kver>/base.cpio   busybox + the modules needed to mount 9p
#   $VM_CACHE/<kver>/.complete   written last: without it the folder is redone
# The guest reads root/ over 9p (it sees the host's /), so the cache must be
# an absolute host path.

VM_CACHE_VERSION=1 # bump when the cache layout changes: old folders are redone

vm_err() { printf 'scripts/vm/run: %s\n' "$*" >&2; }
vm_die() { vm_err "$*"; exit 125; }

# The 9p chain the initramfs must insmod before it can mount the host root,
# plus overlay for the writable root. modprobe --show-depends orders them.
VM_INITRD_MODULES=(virtio_pci 9pnet_virtio 9p overlay)

# Print the exact package name for a kernel series. Never a glob:
# `apt-get download` with a pattern fetches every matching version (>1 GB).
vm_resolve_pkg_once() {
    case "$1" in
    6.1)
        # What Debian 12's default kernel metapackage points at right now.
        apt-cache depends linux-image-amd64 2>/dev/null |
            awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.1\.[0-9]+-[0-9]+-amd64$/ { print $2; exit }'
        ;;
    6.12)
        # Only the generic flavour (not -rt, -cloud, -dbg, -unsigned).
        apt-cache pkgnames linux-image-6.12. 2>/dev/null |
            grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | sort -V | tail -n 1
        ;;
    esac
}

vm_resolve_pkg() {
    local pkg
    pkg=$(vm_resolve_pkg_once "$1")
    if [[ -z "$pkg" ]]; then
        # A fresh machine has no package lists yet.
        apt-get update -qq >&2 || vm_die "apt-get update failed"
        pkg=$(vm_resolve_pkg_once "$1")
    fi
    [[ -n "$pkg" ]] || vm_die "no Debian package found for kernel $1"
    printf '%s\n' "$pkg"
}

# Download and unpack $1 (package) into $2 (its cache folder). Run under lock.
vm_unpack_kernel() {
    local pkg=$1 dir=$2 kver=${1#linux-image-} deb
    rm -rf "$dir/root" "$dir/dl" "$dir/base.cpio" "$dir/.complete"
    mkdir -p "$dir/dl" "$dir/root"
    vm_err "downloading $pkg (once; cached in $dir)"
    # _apt must be able to write here, or apt warns and downloads as root.
    chmod 0777 "$dir/dl"
    if ! (cd "$dir/dl" && apt-get download -q "$pkg" >&2); then
        # Stale lists name a version the mirror no longer has: refresh once.
        apt-get update -qq >&2 || true
        (cd "$dir/dl" && apt-get download -q "$pkg" >&2) || vm_die "apt-get download $pkg failed"
    fi
    deb=$(find "$dir/dl" -name '*.deb' | head -n 1)
    [[ -n "$deb" ]] || vm_die "apt-get download $pkg produced no .deb"
    dpkg-deb -x "$deb" "$dir/root"
    rm -rf "$dir/dl"

    # Debian 12's 6.12 packages put modules under usr/lib; modprobe -d wants lib/.
    if [[ ! -e "$dir/root/lib/modules/$kver" && -d "$dir/root/usr/lib/modules/$kver" ]]; then
        [[ -e "$dir/root/lib" ]] || ln -s usr/lib "$dir/root/lib"
    fi
    [[ -d "$dir/root/lib/modules/$kver" ]] || vm_die "$pkg has no lib/modules/$kver"
    [[ -f "$dir/root/boot/vmlinuz-$kver" ]] || vm_die "$pkg has no boot/vmlinuz-$kver"
    depmod -b "$dir/root" "$kver"
}

# Build $dir/base.cpio: static busybox and the 9p/overlay modules, plain .ko
# (busybox insmod cannot read .ko.xz), listed in load order in modules.order.
vm_build_base_initrd() {
    local dir=$1 kver=$2 stage mod line path name n=0
    local -A seen=()
    stage=$(mktemp -d)
    mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,host,rw,newroot,modules}
    cp /bin/busybox "$stage/bin/busybox"
    : >"$stage/modules/order"
    for mod in "${VM_INITRD_MODULES[@]}"; do
        # Lines are "insmod /path/x.ko[.xz] [opts]" or "builtin x" (6.12 has virtio_pci built in).
        while read -r line; do
            [[ "$line" == insmod\ * ]] || continue
            path=$(awk '{ print $2 }' <<<"$line")
            [[ -z "${seen[$path]:-}" ]] || continue
            seen[$path]=1
            name=$(basename "$path")
            name=$(printf '%02d-%s' "$n" "${name%%.ko*}.ko")
            n=$((n + 1))
            case "$path" in
            *.ko) cp "$path" "$stage/modules/$name" ;;
            *.ko.xz) xz -dc "$path" >"$stage/modules/$name" ;;
            *.ko.zst) zstd -qdc "$path" >"$stage/modules/$name" ;;
            *) rm -rf "$stage"; vm_die "unexpected module file $path" ;;
            esac
            echo "$name" >>"$stage/modules/order"
        done < <(modprobe -d "$dir/root" -S "$kver" --show-depends "$mod")
    done
    (cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet) >"$dir/base.cpio.tmp"
    mv "$dir/base.cpio.tmp" "$dir/base.cpio"
    rm -rf "$stage"
}

# Make sure the cache for $1 (package) is complete; set VM_DIR to its folder.
# Several runs (or clones) may race here: a lock file serialises them.
vm_prepare_kernel() {
    local pkg=$1 kver=${1#linux-image-} dir fd
    dir="$VM_CACHE/$kver"
    mkdir -p "$dir" || vm_die "cannot create cache folder $dir (set ENCBENCH_VM_CACHE)"
    exec {fd}>"$dir/.lock"
    flock "$fd"
    if [[ "$(cat "$dir/.complete" 2>/dev/null)" != "$VM_CACHE_VERSION" ]]; then
        vm_unpack_kernel "$pkg" "$dir"
        vm_build_base_initrd "$dir" "$kver"
        echo "$VM_CACHE_VERSION" >"$dir/.complete"
    fi
    exec {fd}>&-
    # shellcheck disable=SC2034 # read by scripts/vm/run
    VM_DIR=$dir
}
