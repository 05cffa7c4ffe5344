// SPDX-License-Identifier: MIT
/* `probe` output: what this kernel and machine support, one line each. */
#include <stdio.h>

#include "report_priv.h"
#include "report.h"

static void print_group(const struct capabilities *caps, const char *title,
			const struct cap_field *f, FILE *out)
{
	if (title)
		fprintf(out, "%s\n", title);
	for (; f->name; f++) {
		const struct cap *c = report_cap_at(caps, f->offset);

		fprintf(out, "  %-14s%-5s%s\n", f->name, c->ok ? "yes" : "no",
			c->detail);
	}
}

void report_print_caps(const struct capabilities *caps, FILE *out)
{
	fprintf(out, "Kernel %s (%s), running as root: %s\n", caps->kernel,
		caps->arch, caps->root ? "yes" : "no");
	print_group(caps, "Kernel interfaces", report_caps_top, out);
	print_group(caps, "BPF attach methods", report_caps_attach, out);
	print_group(caps, "Storage", report_caps_storage, out);
	print_group(caps, NULL, report_caps_io, out);
	fprintf(out, "Ciphers (AES instructions in this CPU: %s)\n",
		caps->cpu_aes ? "yes" : "no");
	if (caps->nr_ciphers <= 0)
		fprintf(out, "  none found in /proc/crypto\n");
	for (int i = 0; i < caps->nr_ciphers && i < MAX_CIPHERS; i++) {
		const struct cipher_info *ci = &caps->ciphers[i];

		fprintf(out, "  %-14s%-36s hardware: %s%s\n", ci->name,
			ci->driver[0] ? ci->driver : "(no driver)",
			ci->hw_accel ? "yes" : "no",
			ci->predicted ? " (template, built on first use)" : "");
	}
	fprintf(out, "Layer sources (what the tracer will use)\n");
	for (int l = 0; l < NR_LAYERS; l++)
		fprintf(out, "  %-14s%s\n", layer_name(l),
			caps->layer_sources[l][0] ? caps->layer_sources[l]
						  : "(not planned)");
}
