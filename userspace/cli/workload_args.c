// SPDX-License-Identifier: MIT
/*
 * What `run` hands each workload: its own parameter struct, made from its
 * defaults, a preset, --size/--scale and its --<workload>-<key> options,
 * all checked before anything is created.
 */
#include <argp.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "../storage/target.h"
#include "../workload/workload.h"

/* A report's parameters in one word. Targets and workloads this build
 * does not have are left out (said on stderr). */
struct preset {
	const char *name;
	const char *workloads;
	const char *targets;
	uint64_t size_bytes; /* 0: each workload's default */
	int runs;	     /* 0: --runs auto */
};

static const struct preset presets[] = {
	/* LUKS report: 4.4 GB copied 5 times, plain vs LUKS ext4. */
	{"luks-cp", "copy", "plain,luks2", 4196ULL << 20, 5},
	/* ZFS report: dd of 2000 MB, 100 iterations. */
	{"zfs-dd", "dd", "plain,zfs", 2000ULL << 20, 100},
	/* Phoronix's ext4 encryption run, every test it had. */
	{"phoronix",
	 "fio,fsmark,createfiles,compilebench,sqlite,pgbench,build,nginx",
	 "plain,fscrypt,ecryptfs,luks2", 0, 0},
};

const char *preset_names(void)
{
	return "luks-cp, zfs-dd, phoronix";
}

/* Keep the names of `list` that `known` finds. */
static int known_list(const char *list, char out[][NAME_LEN], int max,
		      bool (*known)(const char *), const char *what)
{
	char all[MAX_WORKLOADS][NAME_LEN];
	int n = 0, k = 0;

	if (parse_list(list, all, MAX_WORKLOADS, &n))
		return 0;
	for (int i = 0; i < n && k < max; i++) {
		if (known(all[i]))
			snprintf(out[k++], NAME_LEN, "%s", all[i]);
		else
			fprintf(stderr,
				"encbench-trace: preset: no %s '%s' in this "
				"build; left out\n",
				what, all[i]);
	}
	return k;
}

static bool workload_known(const char *n)
{
	return workload_find(n) != NULL;
}

static bool target_known(const char *n)
{
	return target_find(n) != NULL;
}

static int apply_preset(struct run_config *cfg)
{
	const struct preset *p = NULL;
	int n;

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, cfg->preset))
			p = &presets[i];
	if (!p)
		RUN_BAD("unknown preset '%s' (known: %s)", cfg->preset,
			preset_names());
	if (!cfg->workloads_given) {
		n = known_list(p->workloads, cfg->workloads, MAX_WORKLOADS,
			       workload_known, "workload");
		if (!n)
			RUN_BAD("preset '%s': none of its workloads is in this "
				"build",
				p->name);
		cfg->nr_workloads = n;
	}
	/* Folders of the user's own (--target) replace the preset's. */
	if (!cfg->targets_given && !cfg->nr_user_targets) {
		n = known_list(p->targets, cfg->targets, MAX_TARGETS,
			       target_known, "target");
		if (n)
			cfg->nr_targets = n;
	}
	if (!cfg->size_given && p->size_bytes) {
		cfg->size_bytes = p->size_bytes;
		cfg->size_given = true;
	}
	if (!cfg->runs_given) {
		cfg->runs_auto = !p->runs;
		if (p->runs)
			cfg->runs = p->runs;
	}
	return 0;
}

static int workload_index(const struct run_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->nr_workloads; i++)
		if (!strcmp(cfg->workloads[i], name))
			return i;
	return -1;
}

/* The options made from the workload table (workload_options). */
static struct key_option {
	const struct workload_ops *w;
	const struct workload_key *k;
	char name[2 * NAME_LEN]; /* "fio-rw" */
	char arg[NAME_LEN];	 /* "RW" */
} key_options[WORKLOAD_OPTIONS_MAX];
static char headings[MAX_WORKLOADS * 4][DETAIL_LEN];

int workload_options(struct argp_option *out, int max, int key_base, int group)
{
	const struct workload_ops *const *w = workload_list();
	int n = 0, nr_keys = 0;

	for (int h = 0;
	     w[h] && h < (int)(sizeof(headings) / DETAIL_LEN) && n < max;
	     h++, group++) {
		snprintf(headings[h], DETAIL_LEN, "Workload %s: %s%s%s.",
			 w[h]->name, w[h]->help,
			 w[h]->follows ? ". Follows " : "",
			 w[h]->follows ? w[h]->follows : "");
		out[n++] = (struct argp_option){0, 0, 0, 0, headings[h], group};
		for (const struct workload_key *k = w[h]->keys;
		     k && k->key && n < max && nr_keys < WORKLOAD_OPTIONS_MAX;
		     k++, nr_keys++) {
			struct key_option *o = &key_options[nr_keys];

			o->w = w[h];
			o->k = k;
			snprintf(o->name, sizeof(o->name), "%s-%s", w[h]->name,
				 k->key);
			for (size_t i = 0; i < sizeof(o->arg) - 1 && k->key[i];
			     i++)
				o->arg[i] = toupper((unsigned char)k->key[i]);
			out[n++] = (struct argp_option){
				o->name, key_base + nr_keys, o->arg, 0, k->help,
				group};
		}
	}
	return n;
}

int workload_option_take(int index, const char *value, struct run_config *cfg)
{
	struct workload_opt *o;

	if (cfg->nr_wopts >= MAX_WORKLOAD_OPTS)
		return -1;
	o = &cfg->wopts[cfg->nr_wopts];
	snprintf(o->workload, NAME_LEN, "%s", key_options[index].w->name);
	snprintf(o->key, NAME_LEN, "%s", key_options[index].k->key);
	snprintf(o->value, PATH_LEN, "%s", value);
	cfg->nr_wopts++;
	return 0;
}

int workload_args_resolve(struct run_config *cfg)
{
	struct workload_common common = {.scale = cfg->scale};
	char why[DETAIL_LEN];

	if (cfg->preset[0] && apply_preset(cfg))
		return 2;
	if (cfg->size_given)
		common.size_bytes = cfg->size_bytes;
	for (int i = 0; i < cfg->nr_workloads; i++) {
		const struct workload_ops *w = workload_find(cfg->workloads[i]);

		if (!w)
			RUN_BAD("unknown workload '%s' (see --help)",
				cfg->workloads[i]);
		cfg->wparams[i] = workload_params_new(w);
		if (!cfg->wparams[i])
			RUN_BAD("out of memory");
		if (w->common)
			w->common(cfg->wparams[i], &common);
	}
	for (int k = 0; k < cfg->nr_wopts; k++) {
		const struct workload_opt *o = &cfg->wopts[k];
		int i = workload_index(cfg, o->workload);
		const struct workload_ops *w = workload_find(o->workload);

		if (i < 0)
			RUN_BAD("option '--%s-%s' given, but workload '%s' is "
				"not run (--workloads)",
				o->workload, o->key, o->workload);
		snprintf(why, sizeof(why), "workload '%s' has no option '%s'",
			 w->name, o->key);
		if (!w->set ||
		    w->set(cfg->wparams[i], o->key, o->value, why, sizeof(why)))
			RUN_BAD("%s", why);
	}
	for (int i = 0; i < cfg->nr_workloads; i++) {
		const struct workload_ops *w = workload_find(cfg->workloads[i]);

		int rc;

		why[0] = '\0';
		rc = w->check ? w->check(cfg->wparams[i], why, sizeof(why)) : 0;
		if (rc == -2) { /* the tool's own complaint: not usage */
			fprintf(stderr, "encbench-trace: %s: %s\n",
				config_command, why);
			return RUN_TOOL_REFUSED;
		}
		if (rc)
			RUN_BAD("%s", why);
	}
	return 0;
}
