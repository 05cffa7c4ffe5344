#!/usr/bin/env bash
# Record the guest's golden snapshots (tests/data/README.md): run inside
# the 6.1 guest, from the tree's root, by
#   scripts/vm/run --kernel 6.1 --zfs --timeout 3000 -- tests/data/record-vm.sh KIND...
# KIND: luks-aes luks-null ecryptfs zfs dmdelay (default: all). Each kind's
# results folder is printed as a base64 tar between marker lines, for
# tests/data/unpack-vm.sh on the host (the guest's /var/tmp is its own).
# The set-ups are the VM tests' (tests/vm/test_vm_wait.c, test_vm_zfs.c,
# test_vm_delay.c).
set -uo pipefail
bin=${ENCBENCH_BIN:-./encbench-trace}
tmp=$(mktemp -d /var/tmp/encbench-record.XXXXXX)
kinds=("$@")
((${#kinds[@]})) || kinds=(luks-aes luks-null ecryptfs zfs dmdelay)

run() { # name, run's arguments...
	local name=$1
	shift
	"$bin" run --size 16M --runs 2 --quiet --scratch "$tmp" \
		--output "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1
}

# loop -> dm-delay (50 ms) -> LUKS2 -> ext4, `trace -- dd` of 32 direct
# 4 KiB reads, as test_vm_delay.c's long delay.
dmdelay() {
	local img=$tmp/img key=$tmp/key mnt=$tmp/mnt loop sectors rc
	local dm=encbench-record-delay crypt=encbench-record-crypt
	truncate -s 64M "$img" && head -c 64 /dev/urandom >"$key" || return 1
	loop=$(losetup -f --show "$img") || return 1
	sectors=$(blockdev --getsz "$loop")
	dmsetup create $dm --table "0 $sectors delay $loop 0 0" &&
		cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
			--pbkdf-force-iterations 1000 --key-file "$key" \
			/dev/mapper/$dm &&
		cryptsetup open --key-file "$key" /dev/mapper/$dm $crypt &&
		mkfs.ext4 -q /dev/mapper/$crypt && mkdir "$mnt" &&
		mount /dev/mapper/$crypt "$mnt" &&
		dd if=/dev/urandom of="$mnt/f" bs=4096 count=32 status=none &&
		sync &&
		dmsetup suspend $dm &&
		dmsetup load $dm --table "0 $sectors delay $loop 0 50" &&
		dmsetup resume $dm && echo 3 >/proc/sys/vm/drop_caches &&
		"$bin" trace --path "$mnt" --quiet --output "$tmp/dmdelay" -- \
			dd if="$mnt/f" of=/dev/null bs=4096 iflag=direct \
			status=none >"$tmp/dmdelay.log" 2>&1
	rc=$?
	umount "$mnt" 2>/dev/null
	cryptsetup close $crypt 2>/dev/null
	dmsetup remove $dm 2>/dev/null
	losetup -d "$loop"
	return $rc
}

for k in "${kinds[@]}"; do
	case $k in
	luks-aes) run $k --targets plain,luks2 --luks-cipher aes-xts-plain64 ;;
	luks-null) run $k --targets luks2 --luks-cipher cipher_null-ecb ;;
	ecryptfs) run $k --targets plain,ecryptfs --workloads copy ;; # no O_DIRECT: no dd
	zfs) run $k --targets zfs-off,zfs --workloads dd ;;
	dmdelay) dmdelay ;;
	*) echo "record-vm.sh: unknown kind $k" >&2; continue ;;
	esac
	rc=$?
	echo "=== $k rc=$rc"
	[ -f "$tmp/$k.log" ] && tail -n 5 "$tmp/$k.log"
	if ((rc == 0)); then
		echo "=== begin $k"
		tar -C "$tmp/$k" -czf - results.json snapshots | base64 -w 76
		echo "=== end $k"
	fi
done
rm -rf "$tmp"
