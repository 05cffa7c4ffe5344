// SPDX-License-Identifier: MIT
/* `run` options: parsing and help. Errors are one line and exit code 2. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "../storage/dmcrypt.h"
#include "../storage/target.h"
#include "../workload/workload.h"

static const char run_usage[] =
	"Usage: encbench-trace run [OPTIONS]\n"
	"\n"
	"Build a plain target and encrypted ones on loop devices, run the "
	"same\n"
	"workloads on each, report each penalty with a 95 % confidence "
	"interval,\n"
	"and attribute the latency of every I/O to kernel layers with BPF.\n"
	"\n"
	"  -s, --size SIZE        bytes per workload iteration (K/M/G; default "
	"64M)\n"
	"  -n, --runs N|auto      iterations per workload and target (default "
	"5);\n"
	"                         auto: until the relative standard error of "
	"every\n"
	"                         metric is under --stable PCT (default 3.5)\n"
	"      --min-runs N       with auto: at least N runs (default 3)\n"
	"      --max-runs N       with auto: at most N runs (default 20)\n"
	"      --stable PCT       with auto: relative standard error wanted\n"
	"      --preset NAME      a report's parameters: luks-cp, zfs-dd, "
	"phoronix\n"
	"      --scale X          workloads' counts and durations times X "
	"(e.g. 0.1)\n"
	"      --WORKLOAD-KEY V   a workload's own option (below), e.g. "
	"--dd-size 16M\n"
	"  -t, --targets LIST     target kinds, baseline first (default: "
	"every\n"
	"                         kind this kernel supports, others skipped)\n"
	"      --target NAME=PATH a folder of yours as target NAME "
	"(repeatable): its\n"
	"                         stack is detected; the work happens in "
	"a new\n"
	"                         subfolder of PATH, removed afterwards\n"
	"      --baseline NAME    the target penalties are relative to "
	"(default:\n"
	"                         the first of --targets, else the first "
	"--target)\n"
	"  -w, --workloads LIST   workloads (default dd)\n"
	"  -o, --output DIR       results folder (default "
	"./encbench-results/<time>)\n"
	"      --scratch DIR      where images are created (default /var/tmp)\n"
	"      --zfs-encryption C ZFS cipher of the zfs target (default "
	"aes-256-gcm)\n"
	"      --zfs-keyformat F  raw (default) or passphrase, from memory\n"
	"      --zfs-compression C compression of both ZFS datasets (default "
	"lz4)\n"
	"      --no-trace         benchmark only, no BPF attribution\n"
	"      --no-drop-caches   keep the page cache between write and read\n"
	"      --luks-cipher C    LUKS2 cipher (default aes-xts-plain64)\n"
	"      --luks-key-size N  LUKS2 key bits (default 512)\n"
	"      --luks-sector-size N  512 or 4096 (default 4096)\n"
	"      --luks-flags LIST  dm-crypt flags: no_read_workqueue,\n"
	"                         no_write_workqueue, same_cpu_crypt,\n"
	"                         submit_from_crypt_cpus\n"
	"  -q, --quiet            no histograms, no progress line\n"
	"      --html             also report.html: charts, offline, one "
	"file\n"
	"      --prometheus FILE  also the run as OpenMetrics text (a new "
	"file)\n"
	"      --timeline[=S]     per-I/O spans of each phase's first S "
	"seconds\n"
	"                         (default 2) as Perfetto/Chrome trace "
	"JSON\n"
	"      --json             results.json on stdout (the text goes to "
	"stderr)\n"
	"  -h, --help             this help\n"
	"\n"
	"Targets:\n";

static const char run_examples[] =
	"\n"
	"EXAMPLES:\n"
	"  encbench-trace run                       # plain vs fscrypt, dd, "
	"64M x 5\n"
	"  encbench-trace run -s 256M -n 10         # bigger files, more runs\n"
	"  encbench-trace run -o /tmp/r --json | jq '.comparisons'\n"
	"  encbench-trace run --no-trace            # benchmark without BPF\n"
	"  encbench-trace run --html                # and open report.html\n"
	"  encbench-trace run --preset luks-cp --target data1=/data1 "
	"--target data2=/data2\n"
	"  encbench-trace run --prometheus "
	"/var/lib/prometheus/node-exporter/encbench.prom\n";

static void print_run_help(void)
{
	const struct target_kind *const *t = target_list();
	const struct workload_ops *const *w = workload_list();

	fputs(run_usage, stdout);
	for (; *t; t++)
		printf("  %-10s %s\n", (*t)->kind, (*t)->help);
	printf("\nWorkloads:\n");
	for (; *w; w++) {
		printf("  %-12s %s\n", (*w)->name, (*w)->help);
		if ((*w)->follows)
			printf("  %-12s follows %s\n", "", (*w)->follows);
		for (const struct workload_key *k = (*w)->keys; k && k->key;
		     k++)
			printf("  %-12s --%s-%s: %s\n", "", (*w)->name, k->key,
			       k->help);
	}
	fputs(run_examples, stdout);
}

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
	OPT_ZFS_ENC,
	OPT_ZFS_FMT,
	OPT_ZFS_COMP,
	OPT_TARGET,
	OPT_BASELINE,
};

static const struct option run_opts[] = {
	{"size", required_argument, NULL, 's'},
	{"runs", required_argument, NULL, 'n'},
	{"targets", required_argument, NULL, 't'},
	{"target", required_argument, NULL, OPT_TARGET},
	{"baseline", required_argument, NULL, OPT_BASELINE},
	{"workloads", required_argument, NULL, 'w'},
	{"output", required_argument, NULL, 'o'},
	{"scratch", required_argument, NULL, OPT_SCRATCH},
	{"no-trace", no_argument, NULL, OPT_NO_TRACE},
	{"no-drop-caches", no_argument, NULL, OPT_NO_DROP},
	{"quiet", no_argument, NULL, 'q'},
	{"json", no_argument, NULL, OPT_JSON},
	{"zfs-encryption", required_argument, NULL, OPT_ZFS_ENC},
	{"zfs-keyformat", required_argument, NULL, OPT_ZFS_FMT},
	{"zfs-compression", required_argument, NULL, OPT_ZFS_COMP},
	{"html", no_argument, NULL, OPT_HTML},
	{"luks-cipher", required_argument, NULL, OPT_LUKS_CIPHER},
	{"luks-key-size", required_argument, NULL, OPT_LUKS_KEY_SIZE},
	{"luks-sector-size", required_argument, NULL, OPT_LUKS_SECTOR_SIZE},
	{"luks-flags", required_argument, NULL, OPT_LUKS_FLAGS},
	{"prometheus", required_argument, NULL, OPT_PROMETHEUS},
	{"timeline", optional_argument, NULL, OPT_TIMELINE},
	{"preset", required_argument, NULL, OPT_PRESET},
	{"scale", required_argument, NULL, OPT_SCALE},
	{"stable", required_argument, NULL, OPT_STABLE},
	{"min-runs", required_argument, NULL, OPT_MIN_RUNS},
	{"max-runs", required_argument, NULL, OPT_MAX_RUNS},
	{"help", no_argument, NULL, 'h'},
	{0},
};

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
static int parse_user_target(const char *arg, struct run_config *cfg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	int i = cfg->nr_user_targets;

	if (!n || !eq[1])
		RUN_BAD("invalid --target '%s': expected NAME=PATH", arg);
	if (n >= NAME_LEN ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789_-.") < n ||
	    arg[0] == '.' || arg[0] == '-')
		RUN_BAD("invalid --target name '%.*s': letters, digits, _ . "
			"and - only, at most %d",
			(int)n, arg, NAME_LEN - 1);
	if (strlen(eq + 1) >= PATH_LEN)
		RUN_BAD("--target %.*s: path too long", (int)n, arg);
	if (i >= MAX_USER_TARGETS)
		RUN_BAD("too many --target: at most %d", MAX_USER_TARGETS);
	snprintf(cfg->user_names[i], NAME_LEN, "%.*s", (int)n, arg);
	snprintf(cfg->user_paths[i], PATH_LEN, "%s", eq + 1);
	if (target_find(cfg->user_names[i]) ||
	    !strcmp(cfg->user_names[i], user_target.kind))
		RUN_BAD("--target name '%s' is a target kind's: name your "
			"folder otherwise",
			cfg->user_names[i]);
	for (int j = 0; j < i; j++)
		if (!strcmp(cfg->user_names[j], cfg->user_names[i]))
			RUN_BAD("target '%s' given twice", cfg->user_names[i]);
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
		RUN_BAD("too many targets: at most %d, --targets and --target "
			"together",
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
static int parse_luks_opt(int opt, const char *arg, struct luks_options *o)
{
	char *end;
	long n;

	switch (opt) {
	case OPT_LUKS_CIPHER:
		if (!*arg || !strchr(arg + 1, '-') ||
		    strlen(arg) >= sizeof(o->cipher))
			RUN_BAD("invalid LUKS cipher '%s': expected "
				"cipher-mode-iv, e.g. aes-xts-plain64",
				arg);
		snprintf(o->cipher, sizeof(o->cipher), "%s", arg);
		return 0;
	case OPT_LUKS_FLAGS:
		if (dmcrypt_parse_flags(arg, &o->flags))
			RUN_BAD("invalid --luks-flags '%s': expected "
				"no_read_workqueue, no_write_workqueue, "
				"same_cpu_crypt, submit_from_crypt_cpus",
				arg);
		return 0;
	}
	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end)
		n = -1;
	if (opt == OPT_LUKS_KEY_SIZE) {
		if (n < 64 || n > 1024 || n % 8)
			RUN_BAD("invalid LUKS key size '%s': expected bits, "
				"a multiple of 8 (e.g. 256, 512)",
				arg);
		o->key_bits = (int)n;
	} else {
		if (n != 512 && n != 4096)
			RUN_BAD("invalid LUKS sector size '%s': expected 512 "
				"or 4096",
				arg);
		o->sector_size = (int)n;
	}
	return 0;
}

/* --name of an option, from its short letter or value. */
static const char *opt_name(int c)
{
	for (const struct option *o = run_opts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

/* One of ZFS's values for the property (zfsprops(7) of 2.1): 0, or 2
 * after the one-line error. */
static int zfs_option(struct zfs_options *o, int opt, const char *v)
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
	fprintf(stderr,
		"encbench-trace: %s: invalid --%s '%s' (ZFS accepts %s)\n",
		config_command, opt_name(opt), v,
		opt == OPT_ZFS_ENC   ? "aes-{128,192,256}-{ccm,gcm}"
		: opt == OPT_ZFS_FMT ? "raw or passphrase"
				     : "off, on, lz4, lzjb, zle, gzip[-N], "
				       "zstd[-N], zstd-fast[-N]");
	return 2;
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
			RUN_BAD("too many targets with '%s' (its baseline %s "
				"is added): at most %d",
				cfg->targets[i], b, MAX_TARGETS);
		memmove(cfg->targets[i + 1], cfg->targets[i],
			(cfg->nr_targets - i) * sizeof(cfg->targets[0]));
		snprintf(cfg->targets[i], NAME_LEN, "%s", b);
		cfg->nr_targets++;
		i++;
	}
	return 0;
}

int parse_run_args(int nr_args, char **args, struct run_config *cfg)
{
	char *argv[nr_args + 1];
	int argc;
	int c, rc;
	int64_t sz;
	long n;
	double x;

	rc = workload_args_take(nr_args, args, argv, &argc, cfg);
	if (rc)
		return rc;
	opterr = 0; /* our own one-line messages */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:n:t:w:o:qh", run_opts, NULL)) !=
	       -1) {
		if (optarg && !*optarg)
			RUN_BAD("option '--%s' needs a value, not an empty one",
				opt_name(c));
		switch (c) {
		case 's':
			sz = parse_size(optarg);
			if (sz <= 0)
				RUN_BAD("invalid size '%s': expected a "
					"positive "
					"number with optional K, M or G",
					optarg);
			if (sz % 4096)
				RUN_BAD("size '%s' is not a multiple of 4 KiB "
					"(O_DIRECT needs aligned sizes)",
					optarg);
			/* Bounded so that space arithmetic cannot wrap. */
			if (sz > (1LL << 50))
				RUN_BAD("size '%s' is larger than 1 PiB",
					optarg);
			cfg->size_bytes = sz;
			cfg->size_given = true;
			break;
		case 'n':
			cfg->runs_given = true;
			if (!strcmp(optarg, "auto")) {
				cfg->runs_auto = true;
				break;
			}
			if (parse_int(optarg, 1, MAX_SAMPLES, &n))
				RUN_BAD("invalid runs '%s': expected 1..%d or "
					"auto",
					optarg, MAX_SAMPLES);
			cfg->runs = (int)n;
			cfg->runs_auto = false;
			break;
		case OPT_MIN_RUNS:
		case OPT_MAX_RUNS:
			if (parse_int(optarg, 2, MAX_SAMPLES, &n))
				RUN_BAD("invalid %s '%s': expected 2..%d",
					c == OPT_MIN_RUNS ? "--min-runs"
							  : "--max-runs",
					optarg, MAX_SAMPLES);
			*(c == OPT_MIN_RUNS ? &cfg->min_runs : &cfg->max_runs) =
				(int)n;
			break;
		case OPT_STABLE:
			if (parse_positive(optarg, &x) || x >= 100)
				RUN_BAD("invalid --stable '%s': a percentage "
					"above 0 and below 100",
					optarg);
			cfg->stable_pct = x;
			break;
		case OPT_SCALE:
			if (parse_positive(optarg, &x) || x > 1000)
				RUN_BAD("invalid --scale '%s': a number above "
					"0 "
					"(0.1 shrinks by ten)",
					optarg);
			cfg->scale = x;
			break;
		case OPT_PRESET:
			snprintf(cfg->preset, sizeof(cfg->preset), "%s",
				 optarg);
			break;
		case 't':
			if (parse_list(optarg, cfg->targets, MAX_TARGETS,
				       &cfg->nr_targets))
				RUN_BAD("invalid target list '%s'", optarg);
			cfg->targets_given = true;
			break;
		case OPT_TARGET:
			if (parse_user_target(optarg, cfg))
				return 2;
			break;
		case OPT_BASELINE:
			snprintf(cfg->baseline, sizeof(cfg->baseline), "%s",
				 optarg);
			break;
		case 'w':
			if (parse_list(optarg, cfg->workloads, MAX_WORKLOADS,
				       &cfg->nr_workloads))
				RUN_BAD("invalid workload list '%s'", optarg);
			cfg->workloads_given = true;
			break;
		case 'o':
			snprintf(cfg->output, sizeof(cfg->output), "%s",
				 optarg);
			break;
		case OPT_SCRATCH:
			snprintf(cfg->scratch, sizeof(cfg->scratch), "%s",
				 optarg);
			break;
		case OPT_NO_TRACE:
			cfg->trace = false;
			break;
		case OPT_NO_DROP:
			cfg->drop_caches = false;
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case OPT_HTML:
			cfg->html = true;
			break;
		case OPT_LUKS_CIPHER:
		case OPT_LUKS_KEY_SIZE:
		case OPT_LUKS_SECTOR_SIZE:
		case OPT_LUKS_FLAGS:
			if (parse_luks_opt(c, optarg, &cfg->luks))
				return 2;
			break;
		case OPT_TIMELINE: {
			double s = 2;

			if (optarg) {
				if (parse_positive(optarg, &s) || s > 60)
					RUN_BAD("invalid timeline '%s': "
						"expected "
						"seconds, more than 0 and at "
						"most 60",
						optarg);
			}
			cfg->timeline_s = s;
			break;
		}
		case OPT_PROMETHEUS:
			snprintf(cfg->prometheus, sizeof(cfg->prometheus), "%s",
				 optarg);
			break;
		case OPT_ZFS_ENC:
		case OPT_ZFS_FMT:
		case OPT_ZFS_COMP:
			if (zfs_option(&cfg->zfs, c, optarg))
				return 2;
			break;
		case 'h':
			print_run_help();
			return 1;
		case ':':
			RUN_BAD("option '%s' needs a value", argv[optind - 1]);
		default:
			RUN_BAD("unknown option '%s' (see encbench-trace run "
				"--help)",
				argv[optind - 1]);
		}
	}
	if (optind < argc)
		RUN_BAD("unexpected argument '%s'", argv[optind]);
	if (cfg->timeline_s > 0 && !cfg->trace)
		RUN_BAD("--timeline rides on the tracer: it cannot go with "
			"--no-trace");
	if (cfg->min_runs > cfg->max_runs)
		RUN_BAD("--min-runs %d is above --max-runs %d", cfg->min_runs,
			cfg->max_runs);
	rc = check_names(cfg);
	rc = rc ? rc : add_baselines(cfg);
	rc = rc ? rc : workload_args_resolve(cfg);
	return rc ? rc : check_user_targets(cfg);
}
