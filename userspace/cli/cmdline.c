// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

bool cmd_line_check_only;

void *cmd_line_input(const struct argp_state *state)
{
	return ((struct cmd_line *)state->input)->input;
}

error_t cmd_line_bad(struct argp_state *state, const char *fmt, ...)
{
	struct cmd_line *cl = state->input;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cl->error, sizeof(cl->error), fmt, ap);
	va_end(ap);
	return EINVAL;
}

/* The option an argument names: "--html=x" or "--ht" (argp takes unique
 * prefixes) or "-o"; NULL when none. */
static const struct argp_option *option_of(const struct argp *argp,
					   const char *word)
{
	const struct argp_option *found = NULL;
	size_t len;

	if (word[0] != '-' || !word[1])
		return NULL;
	if (word[1] != '-') {
		for (const struct argp_option *o = argp->options;
		     o->name || o->key || o->doc; o++)
			if (o->key == word[1] && !(o->flags & OPTION_DOC))
				return o;
		return NULL;
	}
	word += 2;
	len = strcspn(word, "=");
	for (const struct argp_option *o = argp->options;
	     o->name || o->key || o->doc; o++) {
		if (!o->name || (o->flags & OPTION_DOC) ||
		    strncmp(o->name, word, len))
			continue;
		if (strlen(o->name) == len)
			return o;
		if (found)
			return NULL; /* ambiguous */
		found = o;
	}
	return found;
}

/* argp refused argv[next - 1]: say how, in one line. */
static void explain(struct cmd_line *cl, const struct argp_state *state)
{
	const char *word = state->argv[state->next - 1];
	const struct argp_option *o = option_of(state->root_argp, word);
	size_t len = strcspn(word, "=");

	if (o && o->arg && !word[len])
		snprintf(cl->error, sizeof(cl->error),
			 "option '%s' needs a value", word);
	else if (o && !o->arg && word[len])
		snprintf(cl->error, sizeof(cl->error),
			 "option '%.*s' takes no value", (int)len, word);
	else
		snprintf(cl->error, sizeof(cl->error),
			 "unknown option '%.*s' (see encbench-trace %s --help)",
			 (int)len, word, cl->cmd);
}

const char *cmd_line_option_name(const struct argp_state *state, int key)
{
	for (const struct argp_option *o = state->root_argp->options;
	     o->name || o->key || o->doc; o++)
		if (o->key == key && o->name && !(o->flags & OPTION_DOC))
			return o->name;
	return "?";
}

error_t cmd_line_key(int key, char *arg, struct argp_state *state)
{
	struct cmd_line *cl = state->input;

	switch (key) {
	case 'h':
		cl->help = true;
		state->next = state->argc; /* nothing after it matters */
		return 0;
	case ARGP_KEY_ARG:
		if (cl->no_args)
			return cmd_line_bad(state, "unexpected argument '%s'",
					    arg);
		if (!*arg) /* a path or a command: never empty */
			return cmd_line_bad(state, "an argument is empty");
		if (cl->nr_args >= CMD_MAX_ARGS)
			return cmd_line_bad(state, "more than %d arguments",
					    CMD_MAX_ARGS);
		if (!cl->nr_args) {
			cl->first_arg = state->next - 1;
			cl->after_dashes =
				cl->first_arg > 0 &&
				!strcmp(state->argv[cl->first_arg - 1], "--");
		}
		cl->args[cl->nr_args++] = arg;
		if (cl->stop_at_arg)
			state->next = state->argc;
		return 0;
	case ARGP_KEY_ERROR:
		if (!cl->error[0])
			explain(cl, state);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* argp's help on stdout, without the trailing blanks glibc's line
 * filler leaves where a text ends right at the margin (a line of spaces
 * only, or spaces after the last word). */
static void print_help(const struct argp *argp, const char *name)
{
	char *text = NULL, *line, *p;
	size_t len = 0, end;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		argp_help(argp, stdout, ARGP_HELP_STD_HELP, (char *)name);
		return;
	}
	argp_help(argp, f, ARGP_HELP_STD_HELP, (char *)name);
	fclose(f);
	for (p = text; (line = strsep(&p, "\n"));) {
		end = strlen(line);
		while (end && line[end - 1] == ' ')
			end--;
		if (!end && line[0]) /* spaces only: not argp's blank line */
			continue;
		if (p || end)
			printf("%.*s\n", (int)end, line);
	}
	free(text);
}

/* Every command's parser sits behind this one: an option given an empty
 * value ("--html ''", "--size=") is refused here, once for all of them,
 * before the command's own parser sees it. */
static error_t refuse_empty(int key, char *arg, struct argp_state *state)
{
	struct cmd_line *cl = state->input;

	if (key != ARGP_KEY_ARG && arg && !*arg)
		return cmd_line_bad(
			state, "option '--%s' needs a value, not an empty one",
			cmd_line_option_name(state, key));
	return cl->parser(key, arg, state);
}

int cmd_line_parse(struct cmd_line *cl, const struct argp *argp, int argc,
		   char **argv)
{
	struct argp checked = *argp;

	/* Our own help and errors; arguments in order, so that a command
	 * line after the options keeps its own options. */
	const unsigned flags =
		ARGP_NO_ERRS | ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_IN_ORDER;
	char name[64];
	error_t err;

	cl->nr_args = 0;
	cl->help = false;
	cl->error[0] = '\0';
	cl->parser = argp->parser;
	checked.parser = refuse_empty;
	err = argp_parse(&checked, argc, argv, flags, NULL, cl);
	if (cl->help) {
		snprintf(name, sizeof(name), "encbench-trace %s", cl->cmd);
		print_help(argp, name);
		return 1;
	}
	if (err || cl->error[0]) {
		fprintf(stderr, "encbench-trace: %s: %s\n", cl->cmd,
			cl->error[0] ? cl->error : strerror(err));
		return 2;
	}
	return cmd_line_check_only && !cl->check_after ? 1 : 0;
}
