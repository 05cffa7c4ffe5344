// SPDX-License-Identifier: MIT
/*
 * Text from outside (a results.json someone handed us, a path given on
 * the command line) on its way out: escaped for the terminal, where a
 * control character would be obeyed (ESC [2J clears the screen, an OSC
 * sets the title), and made valid UTF-8 for JSON, which strict readers
 * require. Both show a byte they cannot pass as the four characters \xNN.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"

/* Length of the valid UTF-8 sequence at s (1..4 bytes of at most left),
 * or 0: overlong forms, surrogates and values past U+10FFFF are not. */
static int utf8_len(const unsigned char *s, size_t left)
{
	unsigned int cp;
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if ((size_t)n > left)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void report_put_safe(FILE *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	while (i < len) {
		int n = utf8_len(s + i, len - i);

		if (n == 1 && (s[i] >= 0x20 || s[i] == '\n' || s[i] == '\t') &&
		    s[i] != 0x7f) {
			fputc(s[i], out);
		} else if (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0) {
			/* C1 controls, U+0080..U+009F: CSI is U+009B. */
			fprintf(out, "\\u%04x", s[i + 1]);
		} else if (n > 1) {
			fwrite(s + i, 1, (size_t)n, out);
		} else {
			fprintf(out, "\\x%02x", s[i]);
			n = 1;
		}
		i += (size_t)n;
	}
}

char *report_utf8_valid(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text), i = 0, o = 0;
	char *out = malloc(4 * len + 1);

	if (!out)
		return NULL;
	while (i < len) {
		int n = utf8_len(s + i, len - i);

		if (n) {
			memcpy(out + o, s + i, (size_t)n);
			o += (size_t)n;
			i += (size_t)n;
		} else {
			o += (size_t)sprintf(out + o, "\\x%02x", s[i++]);
		}
	}
	out[o] = '\0';
	return out;
}
