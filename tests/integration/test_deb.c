// SPDX-License-Identifier: MIT
/*
 * `make deb`: the package this machine's dpkg accepts (its declared
 * dependencies are checked against the installed packages, without
 * installing), installed by dpkg into a scratch root of its own, and the
 * program run from there: --version and probe. The man page it carries
 * names every command and every option the program's --help shows, and
 * the bash completion is where bash-completion looks for it.
 */
#include <limits.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "file_text.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-deb.XXXXXX";
static char deb[PATH_MAX], root[PATH_MAX], prog[PATH_MAX + 32];

/* Run cmd through sh with stdout to tmp/out and stderr to tmp/err; its
 * stdout, malloc'ed, and its exit status in *status. */
static char *sh(const char *cmd, int *status)
{
	char line[PATH_MAX * 3], path[PATH_MAX];
	int rc;

	snprintf(line, sizeof(line), "%s > %s/out 2> %s/err", cmd, tmp, tmp);
	rc = system(line);
	*status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
	if (*status) {
		snprintf(path, sizeof(path), "%s/err", tmp);
		char *err = file_text(path);
		fprintf(stderr, "# %s: exit %d: %s\n", cmd, *status,
			err ? err : "");
		free(err);
	}
	snprintf(path, sizeof(path), "%s/out", tmp);
	return file_text(path);
}

static int setup(void **state)
{
	char *out;
	int status;

	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	out = sh("make --no-print-directory deb", &status);
	if (status || !out)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	snprintf(deb, sizeof(deb), "%s", out);
	free(out);
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(prog, sizeof(prog), "%s/usr/sbin/encbench-trace", root);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static void test_dependencies_declared(void **state)
{
	char cmd[PATH_MAX * 2];
	char *out;
	int status;

	(void)state;
	snprintf(cmd, sizeof(cmd), "dpkg-deb -f %s Depends", deb);
	out = sh(cmd, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "libbpf"));
	assert_non_null(strstr(out, "libjson-c"));
	assert_non_null(strstr(out, "e2fsprogs"));
	assert_non_null(strstr(out, "fio")); /* the fio workload runs it */
	free(out);
	/* Every one of them is a package this machine has: dpkg checks
	 * them as for an install, and changes nothing (--no-act). */
	snprintf(cmd, sizeof(cmd), "dpkg --no-act -i %s", deb);
	free(sh(cmd, &status));
	assert_int_equal(status, 0);
}

/* dpkg with a database of its own under root, the package's files
 * there too; the dependencies were checked against the host above. */
static void test_install_and_run(void **state)
{
	char cmd[PATH_MAX * 3];
	char *out;
	int status;

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/var/lib/dpkg/info %s/var/lib/dpkg/updates && "
		 "touch %s/var/lib/dpkg/status && "
		 "dpkg --root=%s --force-depends --force-script-chrootless "
		 "-i %s",
		 root, root, root, root, deb);
	free(sh(cmd, &status));
	assert_int_equal(status, 0);
	snprintf(cmd, sizeof(cmd), "dpkg --root=%s -s encbench-trace", root);
	out = sh(cmd, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "Status: install ok installed"));
	free(out);

	snprintf(cmd, sizeof(cmd), "%s --version", prog);
	out = sh(cmd, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "encbench-trace "));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s probe --json", prog);
	out = sh(cmd, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "\"tp_btf\""));
	free(out);
}

/* Every "--option" in text, one at a time. */
static void each_option(const char *text, void (*fn)(const char *opt))
{
	regex_t re;
	regmatch_t m;
	char opt[64];

	assert_int_equal(regcomp(&re, "--[a-z][a-z-]*", REG_EXTENDED), 0);
	for (const char *p = text; !regexec(&re, p, 1, &m, 0); p += m.rm_eo) {
		int len = m.rm_eo - m.rm_so;

		snprintf(opt, sizeof(opt), "%.*s", len, p + m.rm_so);
		fn(opt);
	}
	regfree(&re);
}

static char *man_text;

static void in_man(const char *opt)
{
	if (!strstr(man_text, opt))
		fail_msg("the man page does not mention %s", opt);
}

/* The commands `encbench-trace --help` lists: "  name  help" lines
 * after "Commands:". At most 16, NULL-terminated, pointing into help. */
static int list_commands(char *help, char *cmds[17])
{
	char *p = strstr(help, "Commands:\n"), *line;
	int n = 0;

	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	while (n < 16 && (line = strsep(&p, "\n")) && line[0] == ' ') {
		line += strspn(line, " ");
		line[strcspn(line, " ")] = '\0';
		cmds[n++] = line;
	}
	cmds[n] = NULL;
	return n;
}

static void test_man_page_complete(void **state)
{
	char cmd[PATH_MAX * 2], *cmds[17];
	char *help, *list;
	int status;

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "MANWIDTH=200 man -l %s/usr/share/man/man1/"
		 "encbench-trace.1.gz | col -b",
		 root);
	man_text = sh(cmd, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(man_text, "EXAMPLES"));
	/* Every command of the program's own list, and every option each
	 * one's --help shows. */
	snprintf(cmd, sizeof(cmd), "%s --help", prog);
	list = sh(cmd, &status);
	assert_true(list_commands(list, cmds) >= 4);
	for (int i = 0; cmds[i]; i++) {
		char name[64];

		snprintf(name, sizeof(name), "encbench-trace %s", cmds[i]);
		if (!strstr(man_text, name))
			fail_msg("the man page does not show %s", name);
		snprintf(cmd, sizeof(cmd), "%s %s --help", prog, cmds[i]);
		help = sh(cmd, &status);
		assert_int_equal(status, 0);
		each_option(help, in_man);
		free(help);
	}
	free(list);
	free(man_text);
}

static void test_completion_installed(void **state)
{
	char path[PATH_MAX + 64], cmd[PATH_MAX * 2];
	char *out;
	int status;

	(void)state;
	snprintf(path, sizeof(path),
		 "%s/usr/share/bash-completion/completions/encbench-trace",
		 root);
	/* Completing "encbench-trace run --ta" (--targets and --target),
	 * "--targets pl", and a workload's own option, from `run --help`. */
	snprintf(
		cmd, sizeof(cmd),
		"PATH=%s/usr/sbin:$PATH bash -c '"
		". /usr/share/bash-completion/bash_completion; . %s; "
		"c() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); "
		"COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; _encbench_trace "
		"2>/dev/null; echo \"${COMPREPLY[*]}\"; }; "
		"c encbench-trace run --ta; c encbench-trace run --targets pl; "
		"c encbench-trace me; c encbench-trace run --fio-i'",
		root, path);
	out = sh(cmd, &status);
	assert_int_equal(status, 0);
	assert_string_equal(
		out, "--targets --target\nplain\nmerge\n--fio-iodepth\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dependencies_declared),
		cmocka_unit_test(test_install_and_run),
		cmocka_unit_test(test_man_page_complete),
		cmocka_unit_test(test_completion_installed),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
