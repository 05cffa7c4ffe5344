// SPDX-License-Identifier: MIT
/*
 * Probe what this kernel and machine support. Attach methods are tested
 * by loading and attaching a trivial program each (probe.bpf.c); storage
 * stacks by what the kernel exposes in sysfs/procfs; ciphers from
 * /proc/crypto.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "probe.skel.h"
#include "probe.h"
#include "../common/bpf_ids.h"
#include "../common/mountinfo.h"
#include "../common/pause_point.h"
#include "../common/state.h"

#define TRACEFS	      "/sys/kernel/tracing"
#define BPFFS	      "/sys/fs/bpf"
#define BPF_FS_MAGIC  0xcafe4a11
#define TRACEFS_MAGIC 0x74726163

static void cap_set(struct cap *c, bool ok, const char *fmt, ...)
{
	va_list ap;

	c->ok = ok;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

static bool path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* Does a line of `path` equal/contain `needle`? */
static bool file_has(const char *path, const char *needle)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

static int silent_print(enum libbpf_print_level l, const char *f, va_list a)
{
	(void)l, (void)f, (void)a;
	return 0;
}

/*
 * What we mounted, to unmount in probe_release: a run leaves no mount.
 * Each is recorded in the state file before it is made, with the run's
 * token as its source: after a SIGKILL, `teardown` unmounts it, and only
 * it (common/state.c), not a tracefs someone mounts there later.
 */
struct fs_mount {
	const char *path, *type;
	long magic;
	char source[32]; /* "encbench-trace.<token>" once mounted */
	int rec;
};

static struct fs_mount tracefs = {
	.path = TRACEFS, .type = "tracefs", .magic = TRACEFS_MAGIC};

static void mount_if_missing(struct cap *c, struct fs_mount *m)
{
	char source[sizeof(m->source)];
	struct statfs sfs;
	int rec;

	if (statfs(m->path, &sfs) == 0 && sfs.f_type == m->magic) {
		cap_set(c, true, "%s", m->path);
		return;
	}
	snprintf(source, sizeof(source), "encbench-trace.%s", state_token());
	rec = state_add_mount(m->path, m->type, source);
	if (rec < 0) {
		cap_set(c, false, "cannot record a mount of %s: %s", m->path,
			strerror(-rec));
	} else if (mount(source, m->path, m->type, 0, NULL) == 0) {
		pause_point("mounted:%s", m->type);
		cap_set(c, true, "%s (mounted for this run)", m->path);
		snprintf(m->source, sizeof(m->source), "%s", source);
		m->rec = rec;
	} else {
		cap_set(c, false, "cannot mount %s: %s", m->path,
			strerror(errno));
		state_forget(rec);
	}
}

/*
 * bpffs is looked at, never mounted: nothing of ours is pinned (links
 * and maps live as long as our file descriptors), and a bpffs we mounted
 * would take with it, at our unmount, whatever another tool pinned there
 * in the meantime -- each bpffs mount is its own instance.
 */
static void look_at_bpffs(struct cap *c)
{
	struct statfs sfs;

	if (statfs(BPFFS, &sfs) == 0 && sfs.f_type == BPF_FS_MAGIC)
		cap_set(c, true, "%s", BPFFS);
	else
		cap_set(c, false,
			"not mounted at %s (not needed: encbench-trace pins "
			"nothing, so it mounts none)",
			BPFFS);
}

static void probe_fs_mounts(struct capabilities *caps)
{
	mount_if_missing(&caps->tracefs, &tracefs);
	look_at_bpffs(&caps->bpffs);
}

/* Ours only while still the topmost mount there. */
static void unmount_ours(struct fs_mount *m)
{
	char type[NAME_LEN], source[PATH_LEN];

	if (!m->source[0])
		return;
	if (mount_at(m->path, type, sizeof(type), source, sizeof(source)))
		state_forget(m->rec); /* gone already */
	else if (strcmp(type, m->type) || strcmp(source, m->source))
		fprintf(stderr,
			"encbench-trace: %s mounted over our %s at %s: ours "
			"stays, recorded for `encbench-trace teardown`\n",
			type, m->type, m->path);
	else if (umount2(m->path, 0) == 0)
		state_forget(m->rec);
	else
		fprintf(stderr, "encbench-trace: umount %s: %s\n", m->path,
			strerror(errno));
	m->source[0] = '\0';
}

void probe_release(void)
{
	unmount_ours(&tracefs);
}

static struct bpf_link *attach_perf_event(struct bpf_program *prog, int *pfd)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_freq = 99,
		.freq = 1,
	};

	*pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		       PERF_FLAG_FD_CLOEXEC);
	if (*pfd < 0)
		return NULL;
	return bpf_program__attach_perf_event(prog, *pfd);
}

/* Load and attach program `which` of the probe skeleton, alone. */
static void probe_attach_one(struct cap *c, int which)
{
	struct probe_bpf *skel = probe_bpf__open();
	struct bpf_program *progs[5], *p;
	struct bpf_link *link = NULL;
	int err, pfd = -1;

	if (!skel) {
		cap_set(c, false, "open failed: %s", strerror(errno));
		return;
	}
	progs[0] = skel->progs.probe_tp_btf;
	progs[1] = skel->progs.probe_raw_tp;
	progs[2] = skel->progs.probe_fentry;
	progs[3] = skel->progs.probe_kprobe;
	progs[4] = skel->progs.probe_perf_event;
	for (int i = 0; i < 5; i++)
		bpf_program__set_autoload(progs[i], i == which);
	p = progs[which];

	err = probe_bpf__load(skel);
	if (err) {
		cap_set(c, false, "load failed: %s (%s)", strerror(-err),
			strerrorname_np(-err) ?: "?");
		goto cleanup;
	}
	bpf_ids_add_prog(p);
	if (which == 4)
		link = attach_perf_event(p, &pfd);
	else
		link = bpf_program__attach(p);
	if (!link) {
		err = -errno;
		cap_set(c, false, "attach failed: %s (%s)", strerror(-err),
			strerrorname_np(-err) ?: "?");
		goto cleanup;
	}
	bpf_ids_add_link(link);
	cap_set(c, true, "loaded and attached");
cleanup:
	bpf_link__destroy(link);
	if (pfd >= 0)
		close(pfd);
	probe_bpf__destroy(skel);
}

static void probe_attach(struct capabilities *caps)
{
	libbpf_print_fn_t old = libbpf_set_print(silent_print);

	probe_attach_one(&caps->tp_btf, 0);
	probe_attach_one(&caps->raw_tp, 1);
	probe_attach_one(&caps->fentry, 2);
	probe_attach_one(&caps->kprobe, 3);
	probe_attach_one(&caps->perf_event, 4);
	/* kprobes cannot load or attach without CONFIG_KPROBES; say so
	 * rather than leave the bare errno. */
	if (!caps->kprobe.ok && !path_exists(TRACEFS "/kprobe_events"))
		cap_set(&caps->kprobe, false,
			"not built (CONFIG_KPROBES "
			"unset: no kprobe_events in tracefs)");
	libbpf_set_print(old);
}

/* A module is usable if built in, loaded, or listed in modules.dep. */
static bool module_available(const char *name, char *how, size_t len)
{
	char path[512];
	struct utsname u;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	if (path_exists(path)) {
		snprintf(how, len, "%s loaded or built in", name);
		return true;
	}
	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	char needle[80];
	snprintf(needle, sizeof(needle), "/%s.ko", name);
	if (file_has(path, needle)) {
		snprintf(how, len, "module %s available (not loaded)", name);
		return true;
	}
	snprintf(how, len, "%s neither built in, loaded nor in modules.dep",
		 name);
	return false;
}

/* An executable `name` in PATH? */
static bool in_path(const char *name)
{
	const char *path = getenv("PATH") ?: "/usr/sbin:/usr/bin:/sbin:/bin";
	char dir[PATH_MAX], file[PATH_MAX + 64];

	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
		snprintf(file, sizeof(file), "%s/%s", dir, name);
		if (n && access(file, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* ZFS needs its module (not in mainline: Debian's zfs-dkms builds it)
 * and its tools, zpool and zfs (zfsutils-linux). */
static void probe_zfs(struct cap *c)
{
	char how[DETAIL_LEN - 32], version[32] = "";
	FILE *f;

	if (!module_available("zfs", how, sizeof(how))) {
		cap_set(c, false,
			"no zfs module (OpenZFS is not in mainline Linux; "
			"Debian builds it with zfs-dkms)");
		return;
	}
	if (!in_path("zpool") || !in_path("zfs")) {
		cap_set(c, false,
			"%s, but no zpool/zfs tools in PATH "
			"(zfsutils-linux)",
			how);
		return;
	}
	f = fopen("/sys/module/zfs/version", "re");
	if (f) {
		if (fgets(version, sizeof(version), f))
			version[strcspn(version, "\n")] = '\0';
		fclose(f);
	}
	cap_set(c, true, "OpenZFS %s: %s", version[0] ? version : "?", how);
}

void probe_storage(struct capabilities *caps)
{
	char how[DETAIL_LEN - 32];
	bool ok;

	ok = path_exists("/dev/loop-control");
	cap_set(&caps->loop, ok,
		ok ? "/dev/loop-control"
		   : "no /dev/loop-control (loop driver missing)");

	ok = module_available("dm_crypt", how, sizeof(how));
	if (ok && !path_exists("/dev/mapper/control") &&
	    !module_available("dm_mod", how, sizeof(how)))
		ok = false;
	cap_set(&caps->dm_crypt, ok, "%s", how);

	ok = path_exists("/sys/fs/ext4/features/encryption");
	cap_set(&caps->fscrypt, ok,
		ok ? "ext4 encryption (v2 policies)"
		   : "no /sys/fs/ext4/features/encryption");

	ok = file_has("/proc/filesystems", "ecryptfs") ||
	     module_available("ecryptfs", how, sizeof(how));
	cap_set(&caps->ecryptfs, ok, "%s", ok ? "ecryptfs filesystem" : how);

	probe_zfs(&caps->zfs);
}

static void probe_io_uring(struct capabilities *caps)
{
	struct io_uring_params p = {0};
	int fd = syscall(__NR_io_uring_setup, 1, &p);

	if (fd >= 0) {
		cap_set(&caps->io_uring, true, "io_uring_setup works");
		close(fd);
	} else {
		cap_set(&caps->io_uring, false, "io_uring_setup: %s",
			strerror(errno));
	}
}

bool cipher_driver_is_hw(const char *driver)
{
	static const char *const hw[] = {"aesni", "vaes",    "-ce",  "neon",
					 "-avx",  "aes-x86", "s390", "p8",
					 "-hw",	  "ccp",     "qat"};

	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++)
		if (strstr(driver, hw[i]))
			return true;
	return false;
}

struct crypto_alg {
	char name[NAME_LEN], driver[NAME_LEN];
	int priority;
};

/* Highest-priority driver for algorithm `name`, as the kernel picks it. */
static bool best_driver(const struct crypto_alg *a, int n, const char *name,
			char *out)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (!strcmp(a[i].name, name) &&
		    (best < 0 || a[i].priority > a[best].priority))
			best = i;
	if (best < 0)
		return false;
	snprintf(out, NAME_LEN, "%s", a[best].driver);
	return true;
}

static int read_proc_crypto(struct crypto_alg *a, int max)
{
	char line[256], val[NAME_LEN];
	int n = -1;
	FILE *f = fopen("/proc/crypto", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "name : %63s", val) == 1) {
			if (n + 1 >= max)
				break;
			n++;
			memset(&a[n], 0, sizeof(a[n]));
			snprintf(a[n].name, NAME_LEN, "%s", val);
		} else if (n >= 0 && sscanf(line, "driver : %63s", val) == 1) {
			snprintf(a[n].driver, NAME_LEN, "%s", val);
		} else if (n >= 0) {
			sscanf(line, "priority : %d", &a[n].priority);
		}
	}
	fclose(f);
	return n + 1;
}

bool probe_cipher_driver(const char *name, char *driver)
{
	struct crypto_alg *a = calloc(512, sizeof(*a));
	int n = a ? read_proc_crypto(a, 512) : 0;
	bool found = best_driver(a, n, name, driver);

	free(a);
	return found;
}

void probe_ciphers(struct capabilities *caps)
{
	/* The modes the targets use: LUKS2/fscrypt contents (xts),
	 * ZFS (gcm), fscrypt without AES instructions (adiantum). */
	static const char *const want[][2] = {
		{"xts(aes)", "xts"},
		{"gcm(aes)", "gcm_base"},
		{"adiantum(xchacha12,aes)", NULL},
	};
	struct crypto_alg *a = calloc(512, sizeof(*a));
	char ecb[NAME_LEN], aes[NAME_LEN];
	int n = a ? read_proc_crypto(a, 512) : 0;

	caps->nr_ciphers = 0;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct cipher_info *c = &caps->ciphers[caps->nr_ciphers];

		memset(c, 0, sizeof(*c));
		snprintf(c->name, NAME_LEN, "%s", want[i][0]);
		if (!best_driver(a, n, want[i][0], c->driver)) {
			/* A template is instantiated on first use; until then
			 * predict it from the best ecb(aes)/aes present. */
			if (!want[i][1] || !best_driver(a, n, "aes", aes))
				continue;
			if (!best_driver(a, n, "ecb(aes)", ecb))
				snprintf(ecb, NAME_LEN, "ecb(%.50s)", aes);
			if (!strcmp(want[i][1], "xts"))
				snprintf(c->driver, NAME_LEN, "xts(%.55s)",
					 ecb);
			else
				snprintf(c->driver, NAME_LEN,
					 "gcm_base(ctr(%.20s),ghash-generic)",
					 aes);
			c->predicted = true;
		}
		c->hw_accel = cipher_driver_is_hw(c->driver);
		caps->nr_ciphers++;
	}
	free(a);
}

static void probe_cpu(struct capabilities *caps)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");

	caps->cpu_aes = false;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* x86 "flags", arm64 "Features" */
		if (strncmp(line, "flags", 5) && strncmp(line, "Features", 8))
			continue;
		caps->cpu_aes = strstr(line, " aes ") || strstr(line, " aes\n");
		break;
	}
	fclose(f);
}

void probe_all(struct capabilities *caps)
{
	struct utsname u;

	memset(caps, 0, sizeof(*caps));
	uname(&u);
	snprintf(caps->kernel, sizeof(caps->kernel), "%.63s", u.release);
	snprintf(caps->arch, sizeof(caps->arch), "%.31s", u.machine);
	caps->root = geteuid() == 0;

	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		cap_set(&caps->btf, true, "/sys/kernel/btf/vmlinux");
	else
		cap_set(&caps->btf, false,
			"no /sys/kernel/btf/vmlinux "
			"(CONFIG_DEBUG_INFO_BTF unset): CO-RE impossible");

	if (caps->root) {
		probe_fs_mounts(caps);
		probe_attach(caps);
	} else {
		const char *why = "not root: BPF needs CAP_BPF/CAP_SYS_ADMIN";

		cap_set(&caps->tracefs, false, "%s", why);
		cap_set(&caps->bpffs, false, "%s", why);
		cap_set(&caps->tp_btf, false, "%s", why);
		cap_set(&caps->raw_tp, false, "%s", why);
		cap_set(&caps->fentry, false, "%s", why);
		cap_set(&caps->kprobe, false, "%s", why);
		cap_set(&caps->perf_event, false, "%s", why);
	}
	probe_storage(caps);
	probe_io_uring(caps);
	probe_cpu(caps);
	probe_ciphers(caps);
}

void probe_target_driver(struct capabilities *caps, struct target_info *ti)
{
	probe_ciphers(caps);
	for (int i = 0; i < caps->nr_ciphers; i++) {
		if (strcmp(caps->ciphers[i].name,
			   ti->encryption.contents_cipher))
			continue;
		snprintf(ti->encryption.driver, NAME_LEN, "%s",
			 caps->ciphers[i].driver);
		ti->encryption.hw_accel = caps->ciphers[i].hw_accel;
	}
	/* A cipher the probe does not list (--luks-cipher): ask directly. */
	if (!ti->encryption.driver[0] &&
	    probe_cipher_driver(ti->encryption.contents_cipher,
				ti->encryption.driver))
		ti->encryption.hw_accel =
			cipher_driver_is_hw(ti->encryption.driver);
}
