// SPDX-License-Identifier: MIT
/*
 * Can this kernel run a cipher, by the name its crypto API uses
 * ("adiantum(xchacha12,aes)")? Asked of the kernel itself where it can
 * be: an AF_ALG bind instantiates templates and loads modules as
 * dm-crypt's or fscrypt's own allocation would. Without AF_ALG (this
 * build machine's kernel) /proc/crypto says what is instantiated, and
 * modules.alias what a module would provide; a name in neither is
 * missing.
 */
#include <errno.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe.h"

static bool listed(const char *path, const char *fmt, const char *name)
{
	char line[512], want[NAME_LEN + 32];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	snprintf(want, sizeof(want), fmt, name);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strcmp(line, want) ||
			!strncmp(line, want, strlen(want));
	}
	fclose(f);
	return found;
}

/* 1 usable, 0 not, -1 AF_ALG cannot say. */
static int ask_af_alg(const char *type, const char *name)
{
	struct sockaddr_alg sa = {.salg_family = AF_ALG};
	int fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		return -1;
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 1
	     : errno == ENOENT				       ? 0
							       : -1;
	close(fd);
	return rc;
}

bool probe_cipher_usable(const char *name, char *why, size_t len)
{
	char alias[PATH_LEN / 16], outer[NAME_LEN];
	struct utsname u;
	int rc = ask_af_alg("skcipher", name);

	if (rc >= 0) {
		snprintf(why, len, "%s %s (asked the kernel through AF_ALG)",
			 name, rc ? "is there" : "is not in this kernel");
		return rc == 1;
	}
	if (listed("/proc/crypto", "name         : %s", name)) {
		snprintf(why, len, "%s is in /proc/crypto", name);
		return true;
	}
	/* A template's module is named after it: "crypto-adiantum". */
	snprintf(outer, sizeof(outer), "%s", name);
	outer[strcspn(outer, "(")] = '\0';
	uname(&u);
	snprintf(alias, sizeof(alias), "/lib/modules/%s/modules.alias",
		 u.release);
	if (listed(alias, "alias crypto-%s ", outer)) {
		snprintf(why, len, "%s: a module provides %s (modules.alias)",
			 name, outer);
		return true;
	}
	snprintf(why, len,
		 "this kernel has no %s (not in /proc/crypto, no module for "
		 "it, no AF_ALG to ask)",
		 name);
	return false;
}
