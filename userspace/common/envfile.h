/* SPDX-License-Identifier: MIT */
/*
 * Records for the tests, made as things are made: when environment
 * variable `env` names a file, one line is appended to it at once, in
 * one write, so that even a run killed later has left every line.
 */
#ifndef ENCBENCH_ENVFILE_H
#define ENCBENCH_ENVFILE_H

void envfile_append(const char *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
