// SPDX-License-Identifier: MIT
/* results.json: write, read back, compare every field; error paths. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "file_text.h"
#include "report/report.h"
#include "results_fixture.h"

struct fx {
	char dir[64];
	char path[128];
	struct results *in, *out;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/encbench-json-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/results.json", f->dir);
	f->in = fixture_results();
	f->out = calloc(1, sizeof(*f->out));
	*state = f;
	return f->in && f->out ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char p[160];

	unlink(f->path);
	snprintf(p, sizeof(p), "%s.tmp", f->path);
	unlink(p);
	snprintf(p, sizeof(p), "%s/other.json", f->dir);
	unlink(p);
	rmdir(f->dir);
	free(f->in);
	free(f->out);
	free(f);
	return 0;
}

static void assert_dbl(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void cmp_cap(const struct cap *a, const struct cap *b)
{
	assert_int_equal(a->ok, b->ok);
	assert_string_equal(a->detail, b->detail);
}

static void cmp_options(const struct run_options *a,
			const struct run_options *b)
{
	assert_true(a->size_bytes == b->size_bytes);
	assert_int_equal(a->runs_auto, b->runs_auto);
	assert_int_equal(a->runs, b->runs);
	assert_dbl(b->stable_pct, a->stable_pct);
	assert_int_equal(a->min_runs, b->min_runs);
	assert_int_equal(a->max_runs, b->max_runs);
	assert_dbl(b->scale, a->scale);
	assert_string_equal(a->preset, b->preset);
	assert_string_equal(a->scratch, b->scratch);
	assert_string_equal(a->output, b->output);
	assert_int_equal(a->trace, b->trace);
	assert_int_equal(a->drop_caches, b->drop_caches);
	assert_int_equal(a->html, b->html);
	assert_int_equal(a->nr_targets, b->nr_targets);
	for (int i = 0; i < a->nr_targets; i++)
		assert_string_equal(a->targets[i], b->targets[i]);
	assert_int_equal(a->nr_workloads, b->nr_workloads);
	for (int i = 0; i < a->nr_workloads; i++)
		assert_string_equal(a->workloads[i], b->workloads[i]);
	assert_string_equal(a->luks_cipher, b->luks_cipher);
	assert_int_equal(a->luks_key_bits, b->luks_key_bits);
	assert_int_equal(a->luks_sector_size, b->luks_sector_size);
	assert_int_equal(a->nr_user_targets, b->nr_user_targets);
	for (int i = 0; i < a->nr_user_targets; i++) {
		assert_string_equal(a->user_names[i], b->user_names[i]);
		assert_string_equal(a->user_paths[i], b->user_paths[i]);
	}
	assert_string_equal(a->baseline, b->baseline);
}

static void cmp_caps(const struct capabilities *a, const struct capabilities *b)
{
	const struct cap *ca = &a->btf, *cb = &b->btf;

	assert_string_equal(a->kernel, b->kernel);
	assert_string_equal(a->arch, b->arch);
	assert_int_equal(a->root, b->root);
	/* btf .. io_uring are consecutive struct cap members. */
	for (int i = 0; &ca[i] <= &a->io_uring; i++)
		cmp_cap(&ca[i], &cb[i]);
	assert_int_equal(a->cpu_aes, b->cpu_aes);
	assert_int_equal(a->nr_ciphers, b->nr_ciphers);
	for (int i = 0; i < a->nr_ciphers; i++) {
		assert_string_equal(a->ciphers[i].name, b->ciphers[i].name);
		assert_string_equal(a->ciphers[i].driver, b->ciphers[i].driver);
		assert_int_equal(a->ciphers[i].hw_accel,
				 b->ciphers[i].hw_accel);
		assert_int_equal(a->ciphers[i].predicted,
				 b->ciphers[i].predicted);
	}
	for (int l = 0; l < NR_LAYERS; l++)
		assert_string_equal(a->layer_sources[l], b->layer_sources[l]);
}

static void cmp_target(const struct target_info *a, const struct target_info *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->kind, b->kind);
	assert_string_equal(a->mount, b->mount);
	assert_string_equal(a->dir, b->dir);
	assert_string_equal(a->fs, b->fs);
	assert_int_equal(a->nr_devices, b->nr_devices);
	for (int i = 0; i < a->nr_devices; i++) {
		assert_string_equal(a->devices[i].name, b->devices[i].name);
		assert_int_equal(a->devices[i].major, b->devices[i].major);
		assert_int_equal(a->devices[i].minor, b->devices[i].minor);
		assert_string_equal(a->devices[i].role, b->devices[i].role);
	}
	assert_int_equal(a->encrypted, b->encrypted);
	assert_memory_equal(&a->encryption, &b->encryption,
			    sizeof(a->encryption));
	assert_int_equal(a->verified_encrypted, b->verified_encrypted);
	assert_string_equal(a->verification, b->verification);
	assert_string_equal(a->path, b->path);
	assert_int_equal(a->nr_notes, b->nr_notes);
	for (int i = 0; i < a->nr_notes; i++)
		assert_string_equal(a->notes[i], b->notes[i]);
}

static void cmp_result(const struct result *a, const struct result *b)
{
	assert_string_equal(a->target, b->target);
	assert_string_equal(a->workload, b->workload);
	assert_string_equal(a->metric.name, b->metric.name);
	assert_string_equal(a->metric.unit, b->metric.unit);
	assert_int_equal(a->metric.higher_is_better,
			 b->metric.higher_is_better);
	assert_int_equal(a->nr_samples, b->nr_samples);
	for (int i = 0; i < a->nr_samples; i++)
		assert_dbl(b->samples[i], a->samples[i]);
	assert_dbl(b->s.mean, a->s.mean);
	assert_dbl(b->s.sd, a->s.sd);
	assert_dbl(b->s.min, a->s.min);
	assert_dbl(b->s.max, a->s.max);
	assert_dbl(b->s.median, a->s.median);
	assert_dbl(b->s.ci95[0], a->s.ci95[0]);
	assert_dbl(b->s.ci95[1], a->s.ci95[1]);
	assert_dbl(b->cpu.min, a->cpu.min);
	assert_dbl(b->cpu.avg, a->cpu.avg);
	assert_dbl(b->cpu.max, a->cpu.max);
	assert_int_equal(b->cpu.samples, a->cpu.samples);
	assert_dbl(b->rusage.real_s, a->rusage.real_s);
	assert_dbl(b->rusage.user_s, a->rusage.user_s);
	assert_dbl(b->rusage.sys_s, a->rusage.sys_s);
	assert_int_equal(b->page_cache_writes, a->page_cache_writes);
	assert_int_equal(b->nr_traced, a->nr_traced);
	for (int i = 0; i < a->nr_traced; i++) {
		assert_dbl(b->traced[i], a->traced[i]);
		assert_int_equal(b->traced_iteration[i],
				 a->traced_iteration[i]);
		assert_dbl(b->traced_mean_n[i], a->traced_mean_n[i]);
	}
	assert_int_equal(b->nr_cached, a->nr_cached);
	for (int i = 0; i < a->nr_cached; i++) {
		assert_dbl(b->cached[i], a->cached[i]);
		assert_int_equal(b->cached_iteration[i],
				 a->cached_iteration[i]);
	}
}

static void cmp_comparison(const struct comparison *a,
			   const struct comparison *b)
{
	assert_string_equal(a->baseline, b->baseline);
	assert_string_equal(a->target, b->target);
	assert_string_equal(a->workload, b->workload);
	assert_string_equal(a->metric, b->metric);
	assert_dbl(b->diff_mean, a->diff_mean);
	assert_dbl(b->welch_ci95[0], a->welch_ci95[0]);
	assert_dbl(b->welch_ci95[1], a->welch_ci95[1]);
	assert_dbl(b->penalty_pct, a->penalty_pct);
	assert_dbl(b->penalty_ci95_pct[0], a->penalty_ci95_pct[0]);
	assert_dbl(b->penalty_ci95_pct[1], a->penalty_ci95_pct[1]);
	assert_int_equal(a->penalty_unbounded, b->penalty_unbounded);
	assert_int_equal(a->significant, b->significant);
	assert_int_equal(a->buffered, b->buffered);
}

static void cmp_attrib(const struct attribution *a, const struct attribution *b)
{
	assert_string_equal(a->target, b->target);
	assert_string_equal(a->workload, b->workload);
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->syscall_mean_ns, b->syscall_mean_ns);
	assert_int_equal(a->missed_events, b->missed_events);
	assert_dbl(b->closure_pct, a->closure_pct);
	for (int l = 0; l < NR_LAYERS; l++) {
		const struct layer_result *x = &a->layers[l],
					  *y = &b->layers[l];

		assert_int_equal(x->layer, y->layer);
		assert_string_equal(x->source, y->source);
		assert_int_equal(x->state, y->state);
		assert_string_equal(x->reason, y->reason);
		assert_true(x->count == y->count);
		assert_true(x->sum_ns == y->sum_ns);
		assert_true(x->busy_ns == y->busy_ns);
		assert_true(x->mean_ns == y->mean_ns);
		assert_true(x->p50_ns == y->p50_ns);
		assert_true(x->p99_ns == y->p99_ns);
		assert_true(x->kernel_requests == y->kernel_requests);
		assert_true(x->dropped == y->dropped);
		assert_memory_equal(x->slots, y->slots, sizeof(x->slots));
	}
	/* The wait decomposition survives whole. */
	assert_int_equal(a->wait.available, b->wait.available);
	assert_string_equal(a->wait.source, b->wait.source);
	assert_memory_equal(a->wait.ns, b->wait.ns, sizeof(a->wait.ns));
	assert_true(a->wait.total_ns == b->wait.total_ns);
	assert_true(a->wait.syscalls == b->wait.syscalls);
	assert_true(a->wait.oncpu_crypt_ns == b->wait.oncpu_crypt_ns);
	assert_true(a->wait.sampling_err_ns == b->wait.sampling_err_ns);
	assert_true(a->wait.dev_bytes == b->wait.dev_bytes);
	assert_memory_equal(a->wait.workers, b->wait.workers,
			    sizeof(a->wait.workers));
	assert_int_equal(a->wait.nr_cpus, b->wait.nr_cpus);
	assert_memory_equal(a->wait.cpu_wait_behind_ns,
			    b->wait.cpu_wait_behind_ns,
			    sizeof(a->wait.cpu_wait_behind_ns));
	assert_int_equal(a->wait.nr_cpu_holders, b->wait.nr_cpu_holders);
	for (int i = 0; i < a->wait.nr_cpu_holders; i++) {
		assert_string_equal(a->wait.cpu_holders[i].comm,
				    b->wait.cpu_holders[i].comm);
		assert_int_equal(a->wait.cpu_holders[i].pid,
				 b->wait.cpu_holders[i].pid);
		assert_int_equal(a->wait.cpu_holders[i].tgid,
				 b->wait.cpu_holders[i].tgid);
		assert_true(a->wait.cpu_holders[i].samples ==
			    b->wait.cpu_holders[i].samples);
		assert_true(a->wait.cpu_holders[i].ns ==
			    b->wait.cpu_holders[i].ns);
	}
	assert_memory_equal(a->wait.behind_samples, b->wait.behind_samples,
			    sizeof(a->wait.behind_samples));
	assert_true(a->wait.zfs_wakeups == b->wait.zfs_wakeups);
	assert_true(a->wait.zfs_crypt_ns == b->wait.zfs_crypt_ns);
	assert_true(a->wait.zfs_device_ns == b->wait.zfs_device_ns);
	assert_true(a->wait.zfs_pipeline_ns == b->wait.zfs_pipeline_ns);
	assert_true(a->wait.dmw_wakeups == b->wait.dmw_wakeups);
	assert_true(a->wait.dmw_waker_ns == b->wait.dmw_waker_ns);
	assert_true(a->wait.dmw_chained == b->wait.dmw_chained);
	assert_memory_equal(&a->wait.writeback, &b->wait.writeback,
			    sizeof(a->wait.writeback));
	assert_true(a->wait.behind_wb_samples == b->wait.behind_wb_samples);
	assert_true(a->wait.cpu_wait_wb_ns == b->wait.cpu_wait_wb_ns);
	assert_memory_equal(&a->wait.unwoken, &b->wait.unwoken,
			    sizeof(a->wait.unwoken));
}

static void cmp_results(const struct results *a, const struct results *b)
{
	const struct run_meta *ma = &a->meta, *mb = &b->meta;

	assert_string_equal(ma->tool_version, mb->tool_version);
	assert_string_equal(ma->hostname, mb->hostname);
	assert_string_equal(ma->cpu_model, mb->cpu_model);
	assert_string_equal(ma->started, mb->started);
	assert_dbl(mb->duration_s, ma->duration_s);
	cmp_options(&ma->options, &mb->options);
	assert_int_equal(ma->tracing, mb->tracing);
	assert_string_equal(ma->tracing_detail, mb->tracing_detail);
	assert_int_equal(ma->dropped_caches, mb->dropped_caches);
	cmp_caps(&ma->caps, &mb->caps);
	assert_int_equal(a->nr_targets, b->nr_targets);
	for (int i = 0; i < a->nr_targets; i++)
		cmp_target(&a->targets[i], &b->targets[i]);
	assert_int_equal(a->nr_workloads, b->nr_workloads);
	for (int i = 0; i < a->nr_workloads; i++) {
		assert_string_equal(a->workloads[i].name, b->workloads[i].name);
		const struct param_list *pa = &a->workloads[i].params,
					*pb = &b->workloads[i].params;

		assert_int_equal(pa->n, pb->n);
		for (int k = 0; k < pa->n; k++) {
			assert_string_equal(pa->p[k].key, pb->p[k].key);
			assert_int_equal(pa->p[k].kind, pb->p[k].kind);
			assert_int_equal(pa->p[k].i, pb->p[k].i);
			assert_true(pa->p[k].num == pb->p[k].num);
			assert_string_equal(pa->p[k].str, pb->p[k].str);
		}
	}
	assert_int_equal(a->nr_results, b->nr_results);
	for (int i = 0; i < a->nr_results; i++)
		cmp_result(&a->results[i], &b->results[i]);
	assert_int_equal(a->nr_comparisons, b->nr_comparisons);
	for (int i = 0; i < a->nr_comparisons; i++)
		cmp_comparison(&a->comparisons[i], &b->comparisons[i]);
	assert_int_equal(a->nr_attrib, b->nr_attrib);
	for (int i = 0; i < a->nr_attrib; i++)
		cmp_attrib(&a->attrib[i], &b->attrib[i]);
	assert_int_equal(a->nr_verdicts, b->nr_verdicts);
	for (int i = 0; i < a->nr_verdicts; i++) {
		const struct verdict *x = &a->verdicts[i], *y = &b->verdicts[i];

		assert_string_equal(x->target, y->target);
		assert_string_equal(x->workload, y->workload);
		assert_int_equal(x->op, y->op);
		assert_string_equal(x->summary, y->summary);
		assert_int_equal(x->nr_evidence, y->nr_evidence);
		for (int e = 0; e < x->nr_evidence; e++)
			assert_string_equal(x->evidence[e], y->evidence[e]);
		assert_string_equal(x->brief, y->brief);
		assert_float_equal(x->phase_ns, y->phase_ns, 0);
		assert_int_equal(x->headline, y->headline);
	}
	assert_int_equal(a->nr_skipped, b->nr_skipped);
	for (int i = 0; i < a->nr_skipped; i++) {
		assert_string_equal(a->skipped[i].kind, b->skipped[i].kind);
		assert_string_equal(a->skipped[i].reason, b->skipped[i].reason);
	}
}

/* Entries in dir, hidden ones (temp files) included. */
static int files_in(const char *dir)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void test_round_trip(void **state)
{
	struct fx *f = *state;
	double first = f->in->meta.duration_s;

	/* A non-encrypted target comes back with encryption null. */
	assert_false(f->in->targets[0].encrypted);
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	assert_int_equal(files_in(f->dir), 1); /* no temp file left */
	assert_int_equal(report_read_json(f->path, f->out), 0);
	cmp_results(f->in, f->out);
	/* Writing again never replaces it (issue 6: a file there is
	 * someone's): refused, the first stays whole, no temp file. */
	f->in->meta.duration_s = 7.0;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), -EEXIST);
	assert_int_equal(files_in(f->dir), 1);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	assert_dbl(f->out->meta.duration_s, first);
}

/* --json prints the very text written to results.json (the document is
 * made once for both), and nothing when the file cannot be written. */
static void test_printed_as_written(void **state)
{
	struct fx *f = *state;
	char *printed = NULL, *written;
	size_t len = 0, first_len;
	FILE *out = open_memstream(&printed, &len);

	assert_non_null(out);
	assert_int_equal(report_write_json(f->in, f->dir, out), 0);
	fflush(out);
	first_len = len;
	written = file_text(f->path);
	assert_non_null(written);
	assert_string_equal(printed, written);
	assert_int_equal(report_write_json(f->in, f->dir, out), -EEXIST);
	fflush(out);
	assert_int_equal(len, first_len);
	fclose(out);
	free(printed);
	free(written);
}

static struct json_object *at(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no member \"%s\"", k);
	return v;
}

/* An unbounded penalty interval (Fieller's, the baseline's mean not told
 * from 0) is written [null, null] with its flag, and read back so; a
 * file without the flag (before it) reads its finite ends as bounded. */
static void test_unbounded_round_trip(void **state)
{
	struct fx *f = *state;
	struct comparison *c = &f->in->comparisons[1];
	struct json_object *root, *jc;

	c->penalty_ci95_pct[0] = c->penalty_ci95_pct[1] = NAN;
	c->penalty_unbounded = true;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	root = json_object_from_file(f->path);
	assert_non_null(root);
	jc = json_object_array_get_idx(at(root, "comparisons"), 1);
	assert_true(json_object_get_boolean(at(jc, "penalty_ci95_unbounded")));
	assert_null(json_object_array_get_idx(at(jc, "penalty_ci95_pct"), 0));
	assert_null(json_object_array_get_idx(at(jc, "penalty_ci95_pct"), 1));
	jc = json_object_array_get_idx(at(root, "comparisons"), 0);
	assert_false(json_object_get_boolean(at(jc, "penalty_ci95_unbounded")));
	json_object_put(root);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	c = &f->out->comparisons[1];
	assert_true(c->penalty_unbounded);
	assert_true(isnan(c->penalty_ci95_pct[0]) &&
		    isnan(c->penalty_ci95_pct[1]));
	assert_false(f->out->comparisons[0].penalty_unbounded);
	assert_dbl(f->out->comparisons[0].penalty_ci95_pct[1], 13.3);
}

/* A write figure timed into the page cache and its comparison: the
 * flags are written only when set, and read back either way. */
static void test_buffered_round_trip(void **state)
{
	struct fx *f = *state;
	struct json_object *root, *jc, *v;

	f->in->results[2].page_cache_writes = true;
	f->in->comparisons[0].buffered = true;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	root = json_object_from_file(f->path);
	assert_non_null(root);
	jc = json_object_array_get_idx(at(root, "comparisons"), 0);
	assert_true(json_object_get_boolean(at(jc, "buffered")));
	jc = json_object_array_get_idx(at(root, "comparisons"), 1);
	assert_false(json_object_object_get_ex(jc, "buffered", &v));
	jc = json_object_array_get_idx(at(root, "results"), 2);
	assert_true(json_object_get_boolean(at(jc, "page_cache_writes")));
	jc = json_object_array_get_idx(at(root, "results"), 0);
	assert_false(json_object_object_get_ex(jc, "page_cache_writes", &v));
	json_object_put(root);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	cmp_results(f->in, f->out);
	assert_true(f->out->results[2].page_cache_writes);
	assert_true(f->out->comparisons[0].buffered);
}

/* The I/Os behind each traced iteration's clat mean are written where
 * known and read back; where not known, nothing is written (a file from
 * before them reads the same), and a count that is no count is refused.
 * Iterations split off as cached likewise. */
static void test_traced_mean_n_round_trip(void **state)
{
	struct fx *f = *state;
	struct json_object *root, *jr, *v;
	char bad[160];

	for (int i = 0; i < 2; i++) {
		struct result *r = &f->in->results[i];

		r->nr_traced = 2;
		r->traced[0] = 36.0;
		r->traced[1] = 4960000.0;
		r->traced_iteration[0] = 2;
		r->traced_iteration[1] = 5;
	}
	f->in->results[0].traced_mean_n[0] = 264000;
	f->in->results[0].traced_mean_n[1] = 4;
	/* An iteration split off as cached (result_split_cached). */
	f->in->results[0].nr_cached = 1;
	f->in->results[0].cached[0] = 26780;
	f->in->results[0].cached_iteration[0] = 7;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	root = json_object_from_file(f->path);
	assert_non_null(root);
	jr = json_object_array_get_idx(at(root, "results"), 0);
	assert_int_equal(json_object_array_length(at(jr, "traced_mean_n")), 2);
	assert_int_equal(json_object_array_length(at(jr, "cached_samples")), 1);
	jr = json_object_array_get_idx(at(root, "results"), 1);
	assert_false(json_object_object_get_ex(jr, "traced_mean_n", &v));
	assert_false(json_object_object_get_ex(jr, "cached_samples", &v));
	json_object_put(root);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	cmp_results(f->in, f->out);
	assert_dbl(f->out->results[0].traced_mean_n[1], 4);
	/* A negative count, and one count for two traced samples. */
	for (int k = 0; k < 2; k++) {
		root = json_object_from_file(f->path);
		assert_non_null(root);
		jr = json_object_array_get_idx(at(root, "results"), 0);
		v = at(jr, "traced_mean_n");
		if (k)
			json_object_array_del_idx(v, 1, 1);
		else
			json_object_array_put_idx(v, 0,
						  json_object_new_double(-1));
		snprintf(bad, sizeof(bad), "%s/bad.json", f->dir);
		assert_int_equal(json_object_to_file(bad, root), 0);
		json_object_put(root);
		assert_int_equal(report_read_json(bad, f->out), -EINVAL);
		unlink(bad);
	}
}

/* A journal wait shared out by jbd2's own time: said where it was (a
 * file from before reads the same), read back. */
static void test_journal_by_jbd2_round_trip(void **state)
{
	struct fx *f = *state;
	struct json_object *root, *w, *v;

	f->in->attrib[1].wait.unwoken.shared = true;
	f->in->attrib[1].wait.unwoken.journal_by_jbd2 = true;
	f->in->attrib[1].wait.unwoken.journal_ns = 250000000;
	f->in->attrib[1].wait.unwoken.blocked_ns[LAYER_DM] = 250000000;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	root = json_object_from_file(f->path);
	assert_non_null(root);
	w = at(json_object_array_get_idx(at(root, "attribution"), 0), "wait");
	assert_false(json_object_object_get_ex(at(w, "unwoken"),
					       "journal_by_jbd2", &v));
	w = at(json_object_array_get_idx(at(root, "attribution"), 1), "wait");
	assert_true(json_object_get_boolean(
		at(at(w, "unwoken"), "journal_by_jbd2")));
	json_object_put(root);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	cmp_results(f->in, f->out);
	assert_true(f->out->attrib[1].wait.unwoken.journal_by_jbd2);
}

/* The part of cpu-wait behind the target's writeback workers: written
 * where there is any (a file from before it reads the same), read back,
 * and refused where it is more than the other tasks' part it is of. */
static void test_behind_writeback_round_trip(void **state)
{
	struct fx *f = *state;
	struct json_object *root, *w, *v;
	char bad[160];

	f->in->attrib[1].wait.behind_wb_samples = 8;
	f->in->attrib[1].wait.cpu_wait_wb_ns = 996000;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	root = json_object_from_file(f->path);
	assert_non_null(root);
	w = at(json_object_array_get_idx(at(root, "attribution"), 0), "wait");
	assert_false(
		json_object_object_get_ex(w, "cpu_wait_behind_writeback", &v));
	w = at(json_object_array_get_idx(at(root, "attribution"), 1), "wait");
	v = at(w, "cpu_wait_behind_writeback");
	assert_int_equal(json_object_get_int64(at(v, "samples")), 8);
	assert_int_equal(json_object_get_int64(at(v, "ns")), 996000);
	json_object_put(root);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	cmp_results(f->in, f->out);
	/* More samples than the other tasks had (10), then more time. */
	for (int k = 0; k < 2; k++) {
		root = json_object_from_file(f->path);
		assert_non_null(root);
		w = at(json_object_array_get_idx(at(root, "attribution"), 1),
		       "wait");
		v = at(w, "cpu_wait_behind_writeback");
		json_object_object_add(v, k ? "ns" : "samples",
				       json_object_new_int64(k ? 1245001 : 11));
		snprintf(bad, sizeof(bad), "%s/bad.json", f->dir);
		assert_int_equal(json_object_to_file(bad, root), 0);
		json_object_put(root);
		assert_int_equal(report_read_json(bad, f->out), -EINVAL);
		unlink(bad);
	}
}

/* Async I/O's drops by why: the stale part written where any, read
 * back, refused where more than the drops. */
static void test_aio_dropped_stale_round_trip(void **state)
{
	struct fx *f = *state;
	struct aio_result *in = &f->in->attrib[1].aio;
	struct json_object *root, *o, *v;
	char bad[160];

	in->available = true;
	snprintf(in->source, sizeof(in->source), "test");
	in->ios = 1000;
	in->dropped = 9;
	f->in->attrib[0].aio = *in;
	in->dropped_stale = 5;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	root = json_object_from_file(f->path);
	assert_non_null(root);
	o = at(json_object_array_get_idx(at(root, "attribution"), 0), "aio");
	assert_false(json_object_object_get_ex(o, "dropped_stale", &v));
	o = at(json_object_array_get_idx(at(root, "attribution"), 1), "aio");
	assert_int_equal(json_object_get_int64(at(o, "dropped_stale")), 5);
	json_object_object_add(o, "dropped_stale", json_object_new_int64(10));
	snprintf(bad, sizeof(bad), "%s/bad.json", f->dir);
	assert_int_equal(json_object_to_file(bad, root), 0);
	json_object_put(root);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	assert_true(f->out->attrib[1].aio.dropped == 9);
	assert_true(f->out->attrib[1].aio.dropped_stale == 5);
	assert_true(f->out->attrib[0].aio.dropped_stale == 0);
	assert_int_equal(report_read_json(bad, f->out), -EINVAL);
	unlink(bad);
}

/* The document itself: contract names, trimmed slots, null encryption. */
static void test_document_shape(void **state)
{
	struct fx *f = *state;
	struct json_object *root, *meta, *l0, *slots, *enc;

	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	root = json_object_from_file(f->path);
	assert_non_null(root);
	assert_string_equal(json_object_get_string(at(root, "schema")),
			    "encbench-trace/1");
	meta = at(root, "meta");
	assert_string_equal(json_object_get_string(at(meta, "kernel")),
			    "6.1.0-28-amd64");
	assert_string_equal(json_object_get_string(
				    at(at(meta, "cipher_drivers"), "xts(aes)")),
			    "xts(ecb(aes-generic))");
	assert_int_equal(json_object_get_int(at(at(meta, "options"), "runs")),
			 3);
	assert_true(json_object_is_type(at(meta, "capabilities"),
					json_type_object));
	enc = at(json_object_array_get_idx(at(root, "targets"), 0),
		 "encryption");
	assert_null(enc);
	assert_int_equal(
		json_object_get_int(at(
			at(json_object_array_get_idx(at(root, "workloads"), 0),
			   "params"),
			"size_bytes")),
		64 << 20);
	l0 = json_object_array_get_idx(
		at(json_object_array_get_idx(at(root, "attribution"), 0),
		   "layers"),
		LAYER_SYSCALL);
	assert_string_equal(json_object_get_string(at(l0, "layer")), "syscall");
	assert_string_equal(json_object_get_string(at(at(l0, "hist"), "unit")),
			    "ns");
	slots = at(at(l0, "hist"), "slots");
	/* Fixture: syscall counts in slots 10 and 12 only. */
	assert_int_equal(json_object_array_length(slots), 13);
	json_object_put(root);
}

static void test_caps_shape(void **state)
{
	struct fx *f = *state;
	struct json_object *o = report_caps_json(&f->in->meta.caps);
	struct capabilities back;

	assert_non_null(o);
	assert_false(json_object_get_boolean(
		at(at(at(o, "attach"), "fentry"), "ok")));
	assert_string_equal(json_object_get_string(at(
				    at(at(o, "attach"), "fentry"), "detail")),
			    "load failed: Operation not permitted (EPERM)");
	assert_true(json_object_get_boolean(
		at(at(at(o, "storage"), "dm_crypt"), "ok")));
	assert_true(json_object_get_boolean(at(at(o, "io_uring"), "ok")));
	assert_true(json_object_get_boolean(at(at(o, "btf"), "ok")));
	assert_true(json_object_get_boolean(at(o, "root")));
	assert_string_equal(json_object_get_string(at(o, "arch")), "x86_64");
	assert_string_equal(json_object_get_string(
				    at(at(o, "layer_sources"), "crypt-queue")),
			    "tp:source-2");
	assert_true(json_object_get_boolean(at(
		json_object_array_get_idx(at(o, "ciphers"), 1), "hw_accel")));
	memset(&back, 0, sizeof(back));
	assert_int_equal(report_caps_from_json(o, &back), 0);
	cmp_caps(&f->in->meta.caps, &back);
	json_object_put(o);
	assert_int_equal(report_caps_from_json(NULL, &back), -EINVAL);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* Every "dmcrypt-write" member and layer entry out of o, as a file from
 * before that stage has none. */
static void strip_dmcrypt_write(struct json_object *o)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = json_object_array_length(o); i-- > 0;) {
			struct json_object *e = json_object_array_get_idx(o, i);
			struct json_object *name;

			if (json_object_object_get_ex(e, "layer", &name) &&
			    !strcmp(json_object_get_string(name),
				    "dmcrypt-write"))
				json_object_array_del_idx(o, i, 1);
			else
				strip_dmcrypt_write(e);
		}
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_del(o, "dmcrypt-write");
	json_object_object_foreach(o, key, val)
	{
		(void)key;
		strip_dmcrypt_write(val);
	}
}

/* A results.json written before the dmcrypt-write stage still reads, and
 * the stage says it was not recorded rather than "unavailable". */
static void test_reads_file_without_dmcrypt_write(void **state)
{
	struct fx *f = *state;
	const struct layer_result *l;
	struct json_object *doc;

	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	doc = json_object_from_file(f->path);
	assert_non_null(doc);
	strip_dmcrypt_write(doc);
	assert_non_null(strstr(json_object_to_json_string(doc), "crypt-queue"));
	assert_null(strstr(json_object_to_json_string(doc), "dmcrypt-write"));
	unlink(f->path);
	assert_int_equal(json_object_to_file(f->path, doc), 0);
	json_object_put(doc);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	l = &f->out->attrib[0].layers[LAYER_DMCRYPT_WRITE];
	assert_int_equal(l->state, LAYER_UNAVAILABLE);
	assert_int_equal(l->count, 0);
	assert_string_equal(l->reason, "not recorded in this file");
	assert_non_null(strstr(l->source, "predates"));
	/* The layers it had are read as written. */
	assert_int_equal(f->out->attrib[0].layers[LAYER_DEVICE].count,
			 f->in->attrib[0].layers[LAYER_DEVICE].count);
	assert_int_equal(f->out->attrib[0].wait.ns[LAYER_CRYPT],
			 f->in->attrib[0].wait.ns[LAYER_CRYPT]);
	assert_int_equal(f->out->attrib[0].wait.ns[LAYER_DMCRYPT_WRITE], 0);
}

/* A results.json from before the writeback workers were sampled still
 * reads: they were not sampled, and the rest is as written. */
static void test_reads_file_without_writeback_workers(void **state)
{
	struct fx *f = *state;
	struct json_object *doc, *attrib, *wait;

	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	doc = json_object_from_file(f->path);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "attribution", &attrib));
	for (size_t i = 0; i < json_object_array_length(attrib); i++)
		if (json_object_object_get_ex(
			    json_object_array_get_idx(attrib, i), "wait",
			    &wait))
			json_object_object_del(wait, "writeback_workers");
	assert_null(
		strstr(json_object_to_json_string(doc), "writeback_workers"));
	unlink(f->path);
	assert_int_equal(json_object_to_file(f->path, doc), 0);
	json_object_put(doc);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	assert_false(f->out->attrib[0].wait.writeback.sampled);
	assert_int_equal(f->out->attrib[0].wait.writeback.crypt_ns, 0);
	assert_int_equal(f->out->attrib[0].wait.zfs_wakeups,
			 f->in->attrib[0].wait.zfs_wakeups);
}

/* A results.json from before the short report: its verdicts have no
 * line of their own, and the reads and writes are the headlines. */
static void test_reads_file_without_brief(void **state)
{
	struct fx *f = *state;
	struct json_object *doc, *verdicts;
	static const char *const gone[] = {"brief", "phase_ns", "headline"};

	f->in->verdicts[0].headline = false;
	assert_int_equal(report_write_json(f->in, f->dir, NULL), 0);
	doc = json_object_from_file(f->path);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "verdicts", &verdicts));
	for (size_t i = 0; i < json_object_array_length(verdicts); i++)
		for (int k = 0; k < 3; k++)
			json_object_object_del(
				json_object_array_get_idx(verdicts, i),
				gone[k]);
	unlink(f->path);
	assert_int_equal(json_object_to_file(f->path, doc), 0);
	json_object_put(doc);
	assert_int_equal(report_read_json(f->path, f->out), 0);
	assert_string_equal(f->out->verdicts[0].brief, "");
	assert_float_equal(f->out->verdicts[0].phase_ns, 0, 0);
	/* The fixture's verdict is a read's. */
	assert_int_equal(f->out->verdicts[0].op, EB_OP_READ);
	assert_true(f->out->verdicts[0].headline);
	assert_string_equal(f->out->verdicts[0].summary,
			    f->in->verdicts[0].summary);
}

static void test_read_errors(void **state)
{
	struct fx *f = *state;
	char p[160];

	snprintf(p, sizeof(p), "%s/other.json", f->dir);
	assert_int_equal(report_read_json(p, f->out), -ENOENT);
	write_file(p, "{\"schema\": \"encbench-trace/1\", \"meta\": {");
	assert_true(report_read_json(p, f->out) < 0);
	write_file(p, "not json");
	assert_true(report_read_json(p, f->out) < 0);
	write_file(p, "");
	assert_true(report_read_json(p, f->out) < 0);
	write_file(p, "{\"schema\": \"encbench-trace/1\"} trailing");
	assert_true(report_read_json(p, f->out) < 0);
	write_file(p, "{\"schema\": \"other/9\"}");
	assert_int_equal(report_read_json(p, f->out), -EINVAL);
	write_file(p, "{\"schema\": \"encbench-trace/1\", \"targets\": 3}");
	assert_int_equal(report_read_json(p, f->out), -EINVAL);
	write_file(p, "{\"schema\": \"encbench-trace/1\", "
		      "\"meta\": {\"duration_s\": \"long\"}}");
	assert_int_equal(report_read_json(p, f->out), -EINVAL);
	/* Every member the writer writes is required (issue 6): the
	 * schema alone is no document (test_report_input.c has the rest). */
	write_file(p, "{\"schema\": \"encbench-trace/1\"}\n");
	assert_int_equal(report_read_json(p, f->out), -EINVAL);
	/* Missing folder: the writer fails and says so. */
	assert_true(report_write_json(f->in, "/nonexistent/encbench", NULL) <
		    0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unbounded_round_trip,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffered_round_trip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_behind_writeback_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_by_jbd2_round_trip,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_aio_dropped_stale_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traced_mean_n_round_trip,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_printed_as_written, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_document_shape, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_caps_shape, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_reads_file_without_dmcrypt_write, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_reads_file_without_writeback_workers, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_reads_file_without_brief,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_errors, setup,
						teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
