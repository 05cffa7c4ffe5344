// SPDX-License-Identifier: MIT
/*
 * `run` and `setup` options, parsed through cmdline.c's argp layer as every
 * subcommand's are: run's own table, the table of what shapes a target
 * (setup's too), the target kinds and each workload's own options from
 * their tables. Errors are one line and exit code 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cmdline.h"
#include "../storage/dmcrypt.h"
#include "../run/run.h"
#include "../storage/target.h"
#include "../workload/workload.h"

/* In a parser: refuse the value with one line, exit 2. */
#define ARG_BAD(...) return cmd_line_bad(state, __VA_ARGS__)

enum {
	OPT_SCRATCH = 256,
	OPT_NO_TRACE,
	OPT_NO_DROP,
	OPT_JSON,
	OPT_HTML,
	OPT_LUKS_CIPHER,
	OPT_LUKS_KEY_SIZE,
	OPT_LUKS_SECTOR_SIZE,
	OPT_LUKS_FLAGS,
	OPT_PROMETHEUS,
	OPT_TIMELINE,
	OPT_PRESET,
	OPT_SCALE,
	OPT_STABLE,
	OPT_MIN_RUNS,
	OPT_MAX_RUNS,
	OPT_TRACE_RUNS,
	OPT_SYSCALL_TP,
	OPT_ZFS_ENC,
	OPT_ZFS_FMT,
	OPT_ZFS_COMP,
	OPT_TARGET,
	OPT_BASELINE,
	OPT_ROOM,
	OPT_KIND,
	OPT_BUDGET,
	OPT_CROSS,
	OPT_AXES,
	OPT_ALLOW_REFRESH,
	OPT_KEY_FILE,
	/* The workloads' own options: OPT_WORKLOAD + their index. */
	OPT_WORKLOAD = 0x10000,
};

/* The groups of --help, in this order. */
enum {
	GROUP_RUN = 1,
	GROUP_OUTPUT,
	GROUP_TARGETS,
	GROUP_KINDS,
	GROUP_WORKLOADS,
};

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp_option run_options[] = {
	{"workloads", 'w', "LIST", 0, "workloads, comma-separated (default dd)", GROUP_RUN},
	{"runs", 'n', "N|auto", 0, "iterations per workload and target (default 5); auto: until the relative standard error of every metric is under --stable", GROUP_RUN},
	{"min-runs", OPT_MIN_RUNS, "N", 0, "with --runs auto: at least N runs (default 3)", GROUP_RUN},
	{"max-runs", OPT_MAX_RUNS, "N", 0, "with --runs auto: at most N runs (default 20)", GROUP_RUN},
	{"stable", OPT_STABLE, "PCT", 0, "with --runs auto: the relative standard error wanted, in % (default 3.5)", GROUP_RUN},
	{"preset", OPT_PRESET, "NAME", 0, "a report's parameters: luks-cp, zfs-dd or phoronix", GROUP_RUN},
	{"scale", OPT_SCALE, "X", 0, "the workloads' counts and durations times X (e.g. 0.1)", GROUP_RUN},
	{"target", OPT_TARGET, "NAME=PATH", 0, "a folder of yours as target NAME (repeatable): its stack is detected; the work happens in a new subfolder of PATH, removed afterwards", GROUP_RUN},
	{"baseline", OPT_BASELINE, "NAME", 0, "the target penalties are relative to (default: the first of --targets, else the first --target)", GROUP_RUN},
	{"no-trace", OPT_NO_TRACE, 0, 0, "benchmark only, no BPF attribution", GROUP_RUN},
	{"syscall-tracepoints", OPT_SYSCALL_TP, 0, 0, "time every call with the raw syscall tracepoints, also where the workload times its own (fio's synchronous engines): the older way, whose slow syscall path every thread of the machine pays while attached", GROUP_RUN},
	{"trace-runs", OPT_TRACE_RUNS, "N", 0, "traced iterations per workload and target, interleaved with the untraced ones that give the figures (default 2)", GROUP_RUN},
	{"no-drop-caches", OPT_NO_DROP, 0, 0, "keep the page cache between write and read", GROUP_RUN},

	{0, 0, 0, 0, "Output:", GROUP_OUTPUT},
	{"output", 'o', "DIR", 0, "results folder, a new one (default ./encbench-results/<time>)", GROUP_OUTPUT},
	{"quiet", 'q', 0, 0, "no progress (no progress line, no per-stage lines): warnings and the report only", GROUP_OUTPUT},
	{"verbose", 'v', 0, 0, "the full report on the screen (report.txt's, without histograms), and a line per iteration", GROUP_OUTPUT},
	{"json", OPT_JSON, 0, 0, "results.json on stdout (the text goes to stderr)", GROUP_OUTPUT},
	{"html", OPT_HTML, 0, 0, "also report.html: charts, offline, one file", GROUP_OUTPUT},
	{"prometheus", OPT_PROMETHEUS, "FILE", 0, "also the run as OpenMetrics text (a new file)", GROUP_OUTPUT},
	{"timeline", OPT_TIMELINE, "S", OPTION_ARG_OPTIONAL, "per-I/O spans of each phase's first S seconds (default 2) as Perfetto/Chrome trace JSON", GROUP_OUTPUT},
	{0},
};

/* What shapes the targets: run's, and setup's (which builds them only). */
static const struct argp_option target_options[] = {
	{0, 0, 0, 0, "Targets (run and setup):", GROUP_TARGETS},
	{"targets", 't', "LIST", 0, "target kinds, baseline first (default: every kind this kernel supports, others skipped)", GROUP_TARGETS},
	{"size", 's', "SIZE", 0, "bytes per workload iteration, for each workload whose own size option (--dd-size, --copy-size, --fio-size) is not given (K/M/G; default 64M)", GROUP_TARGETS},
	{"room", OPT_ROOM, "SIZE", 0, "each built target's file system size (default: 5 times the largest workload's data plus 256M, sparse, so that ext4 never takes its near-full path)", GROUP_TARGETS},
	{"scratch", OPT_SCRATCH, "DIR", 0, "where images are created (default /var/tmp)", GROUP_TARGETS},
	{"luks-cipher", OPT_LUKS_CIPHER, "C", 0, "LUKS2 cipher (default aes-xts-plain64)", GROUP_TARGETS},
	{"luks-key-size", OPT_LUKS_KEY_SIZE, "N", 0, "LUKS2 key bits (default 512)", GROUP_TARGETS},
	{"luks-sector-size", OPT_LUKS_SECTOR_SIZE, "N", 0, "LUKS2 sector size, 512 or 4096 (default 4096)", GROUP_TARGETS},
	{"luks-flags", OPT_LUKS_FLAGS, "LIST", 0, "dm-crypt flags: no_read_workqueue, no_write_workqueue, same_cpu_crypt, submit_from_crypt_cpus", GROUP_TARGETS},
	{"zfs-encryption", OPT_ZFS_ENC, "C", 0, "ZFS cipher of the zfs target (default aes-256-gcm)", GROUP_TARGETS},
	{"zfs-keyformat", OPT_ZFS_FMT, "F", 0, "raw (default) or passphrase, from memory", GROUP_TARGETS},
	{"zfs-compression", OPT_ZFS_COMP, "C", 0, "compression of both ZFS datasets (default lz4)", GROUP_TARGETS},
	{0},
};

static const struct argp_option tune_options[] = {
	{"kind", 'k', "KIND", 0, "the kind whose variants are swept: luks2, fscrypt, zfs or ecryptfs (default fscrypt)", GROUP_RUN},
	{"budget", OPT_BUDGET, "DURATION", 0, "the time the sweep may take, split across the variants (default 20m)", GROUP_RUN},
	{"axes", OPT_AXES, "LIST", 0, "only these axes, one at a time (default: all of the kind's)", GROUP_RUN},
	{"cross", OPT_CROSS, "A,B", 0, "two axes crossed instead of one at a time (luks2: cipher, sector, flags; fscrypt: block, dataunit, contents, inlinecrypt)", GROUP_RUN},
	{"allow-refresh", OPT_ALLOW_REFRESH, 0, 0, "with --target NAME=PATH, a folder on your own open LUKS2 device: try its dm-crypt runtime flags by refreshing the device (its original flags are restored after)", GROUP_RUN},
	{"key-file", OPT_KEY_FILE, "FILE", 0, "the key of that device, for the refreshes (else its passphrase is asked on the terminal; neither is stored)", GROUP_RUN},
	{0},
};

static const struct argp_option setup_options[] = {
	{"quiet", 'q', 0, 0, "no progress (no progress line, no per-stage lines): warnings and the targets only", GROUP_OUTPUT},
	{0},
};

static const char run_doc[] =
	"Build the targets to compare: the kinds of --targets "
	"(a plain file system and encrypted ones, on loop devices) "
	"and folders of your own (--target), whose stack is detected. "
	"Run the same workloads on each, "
	"report each penalty against the baseline with its 95 % confidence interval, "
	"attribute the time of every I/O to the kernel's layers with BPF, "
	"and say in one sentence where the time goes.\n"
	"\v"
	"EXAMPLES:\n"
	"  sudo encbench-trace run\n"
	"  sudo encbench-trace run -s 256M -n 10\n"
	"  sudo encbench-trace run -o /tmp/r --json | jq '.comparisons'\n"
	"  sudo encbench-trace run --no-trace --html\n"
	"  sudo encbench-trace run -w fio --fio-rw randread --target mine=/srv/data\n"
	"  sudo encbench-trace run --preset luks-cp --target a=/data1 --target b=/data2\n"
	"  sudo encbench-trace run --prometheus /srv/metrics/encbench.prom\n";

static const char tune_doc[] =
	"Which settings of one encryption kind make this machine fastest: "
	"build each variant (one setting changed from the defaults at a time) next to the plain baseline, "
	"run the same workloads on each with --runs auto within the budget, "
	"rank them by their penalty against plain with 95 % confidence intervals (ties marked), "
	"split the time each adds by what the caller waited for, "
	"and print the best with the command that applies it.\n"
	"\v"
	"EXAMPLES:\n"
	"  sudo encbench-trace tune\n"
	"  sudo encbench-trace tune --kind luks2 --budget 10m\n"
	"  sudo encbench-trace tune --kind luks2 --cross sector,flags --html\n"
	"  sudo encbench-trace tune --kind fscrypt -w fio --fio-rw randread\n";

static const char setup_doc[] =
	"Build targets as `run` does, verify them, and leave them mounted for your own tools; "
	"print each target's name and folder. "
	"Everything made is recorded in the state file; "
	"`encbench-trace teardown` removes it.\n"
	"\v"
	"EXAMPLES:\n"
	"  sudo encbench-trace setup --targets plain,fscrypt\n"
	"  sudo encbench-trace setup -t luks2 --luks-sector-size 512 -s 1G\n"
	"  sudo encbench-trace teardown\n";
// clang-format on

static const struct argp_option help_option[] = {
	CMD_HELP_OPTION,
	{0},
};

/* Room for the tables above, the target kinds and the workloads' own
 * options (WORKLOAD_OPTIONS_MAX at most). */
#define OPTIONS_MAX (64 + WORKLOAD_OPTIONS_MAX)

struct option_table {
	struct argp_option o[OPTIONS_MAX]; /* ends with {0} */
	int n;
};

/* Split "a,b,c" into out[]; 0, or -1 if empty items or too many. */
int parse_list(const char *s, char out[][NAME_LEN], int max, int *n)
{
	const char *p = s;

	*n = 0;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (!len || len >= NAME_LEN || *n >= max)
			return -1;
		memcpy(out[*n], p, len);
		out[*n][len] = '\0';
		(*n)++;
		p += len + (comma ? 1 : 0);
		if (comma && !*p)
			return -1;
	}
	return *n ? 0 : -1;
}

static void table_add(struct option_table *t, const struct argp_option *src)
{
	for (; src->name || src->key || src->doc; src++)
		if (t->n < OPTIONS_MAX - 1)
			t->o[t->n++] = *src;
}

/* The target kinds, from their table, as argp lays out documentation. */
static void table_add_kinds(struct option_table *t)
{
	const struct argp_option head = {
		0, 0, 0, 0, "Target kinds (--targets):", GROUP_KINDS};

	table_add(t, (const struct argp_option[]){head, {0}});
	for (const struct target_kind *const *k = target_list(); *k; k++) {
		const struct argp_option kind = {
			(*k)->kind, 0, 0, OPTION_DOC, (*k)->help, GROUP_KINDS};

		table_add(t, (const struct argp_option[]){kind, {0}});
	}
}

static int check_names(const struct run_config *cfg)
{
	for (int i = 0; i < cfg->nr_targets; i++) {
		if (!target_find(cfg->targets[i]))
			RUN_BAD("unknown target '%s' (see --help)",
				cfg->targets[i]);
		for (int j = 0; j < i; j++)
			if (!strcmp(cfg->targets[i], cfg->targets[j]))
				RUN_BAD("target '%s' given twice",
					cfg->targets[i]);
	}
	for (int i = 0; i < cfg->nr_workloads; i++) {
		if (!workload_find(cfg->workloads[i]))
			RUN_BAD("unknown workload '%s' (see --help)",
				cfg->workloads[i]);
		for (int j = 0; j < i; j++)
			if (!strcmp(cfg->workloads[i], cfg->workloads[j]))
				RUN_BAD("workload '%s' given twice",
					cfg->workloads[i]);
	}
	return 0;
}
/* --target NAME=PATH: NAME names files (<target>-<workload>.csv), so
 * it is a plain word, and it is not a kind's. PATH is checked later,
 * with everything else that looks at the system. */
static error_t parse_user_target(struct argp_state *state, const char *arg,
				 struct run_config *cfg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	int i = cfg->nr_user_targets;

	if (!n || !eq[1])
		ARG_BAD("invalid --target '%s': expected NAME=PATH", arg);
	if (n >= NAME_LEN ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789_-.") < n ||
	    arg[0] == '.' || arg[0] == '-')
		ARG_BAD("invalid --target name '%.*s': letters, digits, _ . and - only, at most %d",
			(int)n, arg, NAME_LEN - 1);
	if (strlen(eq + 1) >= PATH_LEN)
		ARG_BAD("--target %.*s: path too long", (int)n, arg);
	if (i >= MAX_USER_TARGETS)
		ARG_BAD("too many --target: at most %d", MAX_USER_TARGETS);
	snprintf(cfg->user_names[i], NAME_LEN, "%.*s", (int)n, arg);
	snprintf(cfg->user_paths[i], PATH_LEN, "%s", eq + 1);
	if (target_find(cfg->user_names[i]) ||
	    !strcmp(cfg->user_names[i], user_target.kind))
		ARG_BAD("--target name '%s' is a target kind's: name your folder otherwise",
			cfg->user_names[i]);
	for (int j = 0; j < i; j++)
		if (!strcmp(cfg->user_names[j], cfg->user_names[i]))
			ARG_BAD("target '%s' given twice", cfg->user_names[i]);
	cfg->nr_user_targets++;
	return 0;
}

/* Only the folders the user named, unless --targets asks for kinds too;
 * the baseline must be one of the targets. */
static int check_user_targets(struct run_config *cfg)
{
	bool found = !cfg->baseline[0];

	if (cfg->nr_user_targets && !cfg->targets_given)
		cfg->nr_targets = 0;
	if (cfg->nr_targets + cfg->nr_user_targets > MAX_TARGETS)
		RUN_BAD("too many targets: at most %d, --targets and --target together",
			MAX_TARGETS);
	for (int i = 0; i < cfg->nr_targets && !found; i++)
		found = !strcmp(cfg->targets[i], cfg->baseline);
	for (int i = 0; i < cfg->nr_user_targets && !found; i++)
		found = !strcmp(cfg->user_names[i], cfg->baseline);
	if (!found)
		RUN_BAD("--baseline '%s' is not one of the targets",
			cfg->baseline);
	return 0;
}

/* --luks-*: the shape is checked here, what the kernel accepts at setup. */
static error_t parse_luks_opt(struct argp_state *state, int opt,
			      const char *arg, struct luks_options *o)
{
	char *end;
	long n;

	switch (opt) {
	case OPT_LUKS_CIPHER:
		if (!*arg || !strchr(arg + 1, '-') ||
		    strlen(arg) >= sizeof(o->cipher))
			ARG_BAD("invalid LUKS cipher '%s': expected cipher-mode-iv, e.g. aes-xts-plain64",
				arg);
		snprintf(o->cipher, sizeof(o->cipher), "%s", arg);
		return 0;
	case OPT_LUKS_FLAGS:
		if (dmcrypt_parse_flags(arg, &o->flags))
			ARG_BAD("invalid --luks-flags '%s': expected no_read_workqueue, no_write_workqueue, same_cpu_crypt, submit_from_crypt_cpus",
				arg);
		return 0;
	}
	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end)
		n = -1;
	if (opt == OPT_LUKS_KEY_SIZE) {
		if (n < 64 || n > 1024 || n % 8)
			ARG_BAD("invalid LUKS key size '%s': expected bits, a multiple of 8 (e.g. 256, 512)",
				arg);
		o->key_bits = (int)n;
	} else {
		if (n != 512 && n != 4096)
			ARG_BAD("invalid LUKS sector size '%s': expected 512 or 4096",
				arg);
		o->sector_size = (int)n;
	}
	return 0;
}

/* One of ZFS's values for the property (zfsprops(7) of 2.1). */
static error_t zfs_option(struct argp_state *state, int opt, const char *v,
			  struct zfs_options *o)
{
	static const char *const ciphers[] = {
		"aes-128-ccm", "aes-192-ccm", "aes-256-ccm", "aes-128-gcm",
		"aes-192-gcm", "aes-256-gcm", NULL};
	static const char *const formats[] = {"raw", "passphrase", NULL};
	static const char *const comps[] = {"off", "on",   "lz4",  "lzjb",
					    "zle", "gzip", "zstd", NULL};
	const char *const *ok = opt == OPT_ZFS_ENC   ? ciphers
				: opt == OPT_ZFS_FMT ? formats
						     : comps;
	char *dst = opt == OPT_ZFS_ENC	 ? o->encryption
		    : opt == OPT_ZFS_FMT ? o->keyformat
					 : o->compression;
	unsigned int level;
	char tail;

	for (int i = 0; ok[i]; i++)
		if (!strcmp(v, ok[i]))
			goto good;
	/* Levels: gzip-1..9, zstd-1..19, zstd-fast-1..1000 (and 10..100 by
	 * tens, which zfs checks itself). */
	if (opt == OPT_ZFS_COMP &&
	    ((sscanf(v, "gzip-%u%c", &level, &tail) == 1 && level >= 1 &&
	      level <= 9) ||
	     (sscanf(v, "zstd-%u%c", &level, &tail) == 1 && level >= 1 &&
	      level <= 19) ||
	     (sscanf(v, "zstd-fast-%u%c", &level, &tail) == 1 && level >= 1 &&
	      level <= 1000)))
		goto good;
	ARG_BAD("invalid --%s '%s' (ZFS accepts %s)",
		cmd_line_option_name(state, opt), v,
		opt == OPT_ZFS_ENC ? "aes-{128,192,256}-{ccm,gcm}"
		: opt == OPT_ZFS_FMT
			? "raw or passphrase"
			: "off, on, lz4, lzjb, zle, gzip[-N], zstd[-N], zstd-fast[-N]");
good:
	snprintf(dst, NAME_LEN / 2, "%s", v);
	return 0;
}

/* A kind compared with a kind of its own (zfs with zfs-off: the same
 * pool without encryption) gets it added right before it if missing. */
static int add_baselines(struct run_config *cfg)
{
	for (int i = 0; i < cfg->nr_targets; i++) {
		const char *b = target_find(cfg->targets[i])->baseline;
		bool have = false;

		for (int j = 0; b && j < cfg->nr_targets; j++)
			have |= !strcmp(cfg->targets[j], b);
		if (!b || have)
			continue;
		if (cfg->nr_targets >= MAX_TARGETS)
			RUN_BAD("too many targets with '%s' (its baseline %s is added): at most %d",
				cfg->targets[i], b, MAX_TARGETS);
		memmove(cfg->targets[i + 1], cfg->targets[i],
			(cfg->nr_targets - i) * sizeof(cfg->targets[0]));
		snprintf(cfg->targets[i], NAME_LEN, "%s", b);
		cfg->nr_targets++;
		i++;
	}
	return 0;
}

static error_t size_option(struct argp_state *state, const char *arg,
			   struct run_config *cfg)
{
	int64_t sz = parse_size(arg);

	if (sz <= 0)
		ARG_BAD("invalid size '%s': expected a positive number with optional K, M or G",
			arg);
	if (sz % 4096)
		ARG_BAD("size '%s' is not a multiple of 4 KiB (O_DIRECT needs aligned sizes)",
			arg);
	/* Bounded so that space arithmetic cannot wrap. */
	if (sz > (1LL << 50))
		ARG_BAD("size '%s' is larger than 1 PiB", arg);
	cfg->size_bytes = sz;
	cfg->size_given = true;
	return 0;
}

/* How many times, and how: --runs, --min-runs, --max-runs, --stable,
 * --scale, --timeline. */
static error_t count_option(struct argp_state *state, int key, const char *arg,
			    struct run_config *cfg)
{
	double x = 2;
	long n;

	switch (key) {
	case 'n':
		cfg->runs_given = true;
		cfg->runs_auto = !strcmp(arg, "auto");
		if (cfg->runs_auto)
			return 0;
		if (parse_int(arg, 1, MAX_SAMPLES, &n))
			ARG_BAD("invalid runs '%s': expected 1..%d or auto",
				arg, MAX_SAMPLES);
		cfg->runs = (int)n;
		return 0;
	case OPT_MIN_RUNS:
	case OPT_MAX_RUNS:
		if (parse_int(arg, 2, MAX_SAMPLES, &n))
			ARG_BAD("invalid --%s '%s': expected 2..%d",
				cmd_line_option_name(state, key), arg,
				MAX_SAMPLES);
		*(key == OPT_MIN_RUNS ? &cfg->min_runs : &cfg->max_runs) =
			(int)n;
		return 0;
	case OPT_TRACE_RUNS:
		if (parse_int(arg, 1, MAX_TRACED_SAMPLES, &n))
			ARG_BAD("invalid --trace-runs '%s': expected 1..%d",
				arg, MAX_TRACED_SAMPLES);
		cfg->trace_runs = (int)n;
		cfg->trace_runs_given = true;
		return 0;
	case OPT_STABLE:
		if (parse_positive(arg, &x) || x >= 100)
			ARG_BAD("invalid --stable '%s': a percentage above 0 and below 100",
				arg);
		cfg->stable_pct = x;
		return 0;
	case OPT_SCALE:
		if (parse_positive(arg, &x) || x > 1000)
			ARG_BAD("invalid --scale '%s': a number above 0 (0.1 shrinks by ten)",
				arg);
		cfg->scale = x;
		return 0;
	}
	/* --timeline[=S] */
	if (arg && (parse_positive(arg, &x) || x > 60))
		ARG_BAD("invalid timeline '%s': expected seconds, more than 0 and at most 60",
			arg);
	cfg->timeline_s = x;
	return 0;
}

/* --kind, --budget, --cross: the axes are checked with the kind's. */
static error_t tune_option(struct argp_state *state, int key, const char *arg,
			   struct run_config *cfg)
{
	char axes[3][NAME_LEN];
	int n;

	switch (key) {
	case 'k':
		if (!tune_kind_known(arg))
			ARG_BAD("invalid --kind '%s': tune sweeps luks2, fscrypt, zfs or ecryptfs",
				arg);
		snprintf(cfg->tune_kind, sizeof(cfg->tune_kind), "%s", arg);
		/* dd needs O_DIRECT, which eCryptfs has not: its sweep ranks
		 * by copy unless -w says otherwise (before or after). */
		if (target_find(arg)->no_direct_io && !cfg->workloads_given) {
			cfg->nr_workloads = 1;
			snprintf(cfg->workloads[0], NAME_LEN, "copy");
		}
		return 0;
	case OPT_BUDGET:
		cfg->budget_s = parse_duration(arg);
		if (cfg->budget_s < 10)
			ARG_BAD("invalid --budget '%s': a duration of 10s or more (90s, 20m, 1h)",
				arg);
		return 0;
	case OPT_AXES:
		if (parse_list(arg, cfg->axes, 8, &cfg->nr_axes))
			ARG_BAD("invalid --axes '%s': a list of axes, A,B,...",
				arg);
		return 0;
	case OPT_ALLOW_REFRESH:
		cfg->allow_refresh = true;
		return 0;
	case OPT_KEY_FILE:
		if (strlen(arg) >= sizeof(cfg->key_file))
			ARG_BAD("--key-file: path too long");
		snprintf(cfg->key_file, sizeof(cfg->key_file), "%s", arg);
		return 0;
	}
	if (parse_list(arg, axes, 3, &n) || n != 2 ||
	    strlen(axes[0]) >= sizeof(cfg->cross[0]) ||
	    strlen(axes[1]) >= sizeof(cfg->cross[1]))
		ARG_BAD("invalid --cross '%s': expected two axes, A,B", arg);
	for (int i = 0; i < 2; i++)
		snprintf(cfg->cross[i], sizeof(cfg->cross[i]), "%s", axes[i]);
	return 0;
}

/* Each option of run's and setup's tables. */
static error_t run_key(int key, char *arg, struct argp_state *state)
{
	struct run_config *cfg = cmd_line_input(state);

	if (key >= OPT_WORKLOAD && key < OPT_WORKLOAD + WORKLOAD_OPTIONS_MAX) {
		if (workload_option_take(key - OPT_WORKLOAD, arg, cfg))
			ARG_BAD("more than %d workload options",
				MAX_WORKLOAD_OPTS);
		return 0;
	}
	switch (key) {
	case 's':
		return size_option(state, arg, cfg);
	case OPT_ROOM: {
		int64_t sz = parse_size(arg);

		if (sz < (64LL << 20) || sz > (1LL << 50))
			ARG_BAD("invalid room '%s': expected a size from 64M to 1P",
				arg);
		cfg->room_bytes = (uint64_t)sz;
		return 0;
	}
	case 'n':
	case OPT_MIN_RUNS:
	case OPT_MAX_RUNS:
	case OPT_TRACE_RUNS:
	case OPT_STABLE:
	case OPT_SCALE:
	case OPT_TIMELINE:
		return count_option(state, key, arg, cfg);
	case OPT_PRESET:
		snprintf(cfg->preset, sizeof(cfg->preset), "%s", arg);
		return 0;
	case 't':
		if (parse_list(arg, cfg->targets, MAX_TARGETS,
			       &cfg->nr_targets))
			ARG_BAD("invalid target list '%s'", arg);
		cfg->targets_given = true;
		return 0;
	case OPT_TARGET:
		return parse_user_target(state, arg, cfg);
	case OPT_BASELINE:
		snprintf(cfg->baseline, sizeof(cfg->baseline), "%s", arg);
		return 0;
	case 'w':
		if (parse_list(arg, cfg->workloads, MAX_WORKLOADS,
			       &cfg->nr_workloads))
			ARG_BAD("invalid workload list '%s'", arg);
		cfg->workloads_given = true;
		return 0;
	case 'o':
		snprintf(cfg->output, sizeof(cfg->output), "%s", arg);
		return 0;
	case OPT_SCRATCH:
		snprintf(cfg->scratch, sizeof(cfg->scratch), "%s", arg);
		return 0;
	case OPT_PROMETHEUS:
		snprintf(cfg->prometheus, sizeof(cfg->prometheus), "%s", arg);
		return 0;
	case OPT_NO_TRACE:
		cfg->trace = false;
		return 0;
	case OPT_SYSCALL_TP:
		cfg->syscall_tracepoints = true;
		return 0;
	case OPT_NO_DROP:
		cfg->drop_caches = false;
		return 0;
	case 'q':
		cfg->quiet = true;
		return 0;
	case 'v':
		cfg->verbose = true;
		return 0;
	case OPT_JSON:
		cfg->json = true;
		return 0;
	case OPT_HTML:
		cfg->html = true;
		return 0;
	case OPT_LUKS_CIPHER:
	case OPT_LUKS_KEY_SIZE:
	case OPT_LUKS_SECTOR_SIZE:
	case OPT_LUKS_FLAGS:
		return parse_luks_opt(state, key, arg, &cfg->luks);
	case OPT_ZFS_ENC:
	case OPT_ZFS_FMT:
	case OPT_ZFS_COMP:
		return zfs_option(state, key, arg, &cfg->zfs);
	case 'k':
	case OPT_BUDGET:
	case OPT_CROSS:
	case OPT_AXES:
	case OPT_ALLOW_REFRESH:
	case OPT_KEY_FILE:
		return tune_option(state, key, arg, cfg);
	}
	return cmd_line_key(key, arg, state);
}

/* Parse with argp, then check what needs every option seen. */
static int parse(const struct argp *argp, int argc, char **argv,
		 struct run_config *cfg)
{
	struct cmd_line cl = {.cmd = config_command,
			      .input = cfg,
			      .no_args = true,
			      .check_after = true};
	int rc = cmd_line_parse(&cl, argp, argc, argv);

	if (rc)
		return rc;
	if (cfg->timeline_s > 0 && !cfg->trace)
		RUN_BAD("--timeline rides on the tracer: it cannot go with --no-trace");
	if (cfg->trace_runs_given && !cfg->trace)
		RUN_BAD("--trace-runs counts traced iterations: it cannot go with --no-trace");
	if (cfg->syscall_tracepoints && !cfg->trace)
		RUN_BAD("--syscall-tracepoints says how to trace: it cannot go with --no-trace");
	if (cfg->min_runs > cfg->max_runs)
		RUN_BAD("--min-runs %d is above --max-runs %d", cfg->min_runs,
			cfg->max_runs);
	rc = check_names(cfg);
	rc = rc ? rc : add_baselines(cfg);
	rc = rc ? rc : workload_args_resolve(cfg);
	/* --check-args: the folders of --target are the machine's. */
	if (!rc && cmd_line_checked())
		return 1;
	return rc ? rc : check_user_targets(cfg);
}

int parse_run_args(int argc, char **argv, struct run_config *cfg)
{
	static struct option_table t;
	static struct argp run_argp = {.parser = run_key, .doc = run_doc};

	if (!t.n) {
		table_add(&t, run_options);
		table_add(&t, target_options);
		table_add_kinds(&t);
		t.n += workload_options(t.o + t.n, OPTIONS_MAX - 1 - t.n,
					OPT_WORKLOAD, GROUP_WORKLOADS);
		table_add(&t, help_option);
		run_argp.options = t.o;
	}
	return parse(&run_argp, argc, argv, cfg);
}

/* tune: the targets are plain and the kind's variants; --runs auto
 * unless --runs says otherwise. */
/* --target NAME=PATH: a folder on the user's own open LUKS2 device,
 * whose runtime flags only are tried, and only with --allow-refresh. */
static int check_tune_device(struct run_config *cfg)
{
	if (!cfg->nr_user_targets) {
		if (cfg->allow_refresh || cfg->key_file[0])
			RUN_BAD("--%s: only with --target NAME=PATH, a folder on your open LUKS2 device",
				cfg->allow_refresh ? "allow-refresh"
						   : "key-file");
		return 0;
	}
	if (cfg->nr_user_targets > 1)
		RUN_BAD("--target: tune tries one device of yours at a time");
	if (!cfg->allow_refresh)
		RUN_BAD("--target %s: trying its dm-crypt flags refreshes your open device: add --allow-refresh",
			cfg->user_names[0]);
	if (cfg->tune_kind[0] && strcmp(cfg->tune_kind, "luks2"))
		RUN_BAD("--target: on a device of yours tune tries dm-crypt's flags (--kind luks2), not %s",
			cfg->tune_kind);
	if (cfg->cross[0][0] || cfg->nr_axes > 1 ||
	    (cfg->nr_axes && strcmp(cfg->axes[0], "flags")))
		RUN_BAD("--target: on a device of yours only the flags axis can be tried (its cipher and sector size stay)");
	snprintf(cfg->tune_kind, sizeof(cfg->tune_kind), "luks2");
	return 0;
}

int parse_tune_args(int argc, char **argv, struct run_config *cfg)
{
	static struct option_table t;
	static struct argp tune_argp = {.parser = run_key, .doc = tune_doc};
	int rc;

	if (!t.n) {
		table_add(&t, tune_options);
		table_add(&t, run_options);
		table_add(&t, target_options);
		t.n += workload_options(t.o + t.n, OPTIONS_MAX - 1 - t.n,
					OPT_WORKLOAD, GROUP_WORKLOADS);
		table_add(&t, help_option);
		tune_argp.options = t.o;
	}
	cfg->tune_kind[0] = '\0';
	cfg->nr_targets = 0;
	rc = parse(&tune_argp, argc, argv, cfg);
	/* --check-args (1 then) checks tune's own rules too. */
	if (rc && !(rc == 1 && cmd_line_checked()))
		return rc;
	if (cfg->targets_given)
		RUN_BAD("--targets: tune builds plain and the variants of --kind");
	rc = check_tune_device(cfg) ?: rc;
	if (rc == 2)
		return rc;
	if (!cfg->tune_kind[0])
		snprintf(cfg->tune_kind, sizeof(cfg->tune_kind), "fscrypt");
	if (!strcmp(cfg->workloads[0], "dd") &&
	    target_find(cfg->tune_kind)->no_direct_io)
		RUN_BAD("--workloads: dd, the ranking workload, needs O_DIRECT: %s (rank by copy or fio)",
			target_find(cfg->tune_kind)->no_direct_io);
	if (cfg->preset[0])
		RUN_BAD("--preset: tune runs the workloads of --workloads");
	if (cfg->nr_axes && cfg->cross[0][0])
		RUN_BAD("--axes and --cross: cross two axes, or sweep some one at a time");
	for (int i = 0; i < cfg->nr_axes + (cfg->cross[0][0] ? 2 : 0); i++) {
		const char *a = i < cfg->nr_axes ? cfg->axes[i]
						 : cfg->cross[i - cfg->nr_axes];

		if (!tune_axis_known(cfg->tune_kind, a))
			RUN_BAD("%s has no axis '%s' (its axes: %s)",
				cfg->tune_kind, a, tune_axes(cfg->tune_kind));
	}
	if (cfg->cross[0][0] && !strcmp(cfg->cross[0], cfg->cross[1]))
		RUN_BAD("--cross needs two different axes");
	if (!cfg->runs_given)
		cfg->runs_auto = true;
	cfg->nr_targets = 2;
	snprintf(cfg->targets[0], NAME_LEN, "%s",
		 tune_baseline(cfg->tune_kind));
	snprintf(cfg->targets[1], NAME_LEN, "%s", cfg->tune_kind);
	return rc;
}

int parse_setup_args(int argc, char **argv, struct run_config *cfg)
{
	static struct option_table t;
	static struct argp setup_argp = {.parser = run_key, .doc = setup_doc};

	if (!t.n) {
		table_add(&t, setup_options);
		table_add(&t, target_options);
		table_add_kinds(&t);
		table_add(&t, help_option);
		setup_argp.options = t.o;
	}
	return parse(&setup_argp, argc, argv, cfg);
}
