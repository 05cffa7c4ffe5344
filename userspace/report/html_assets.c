// SPDX-License-Identifier: MIT
/*
 * The style sheet and the chart code of report.html, kept as the files
 * they are (html.css, html_charts.js) and built into the program as
 * NUL-terminated strings: the page needs nothing at run time but Chart.js.
 */
#define ASSET(sym, file)                                                       \
	__asm__(".section .rodata\n"                                           \
		".global " #sym "\n"                                           \
		".type " #sym ", @object\n" #sym ":\n"                         \
		".incbin \"" file "\"\n"                                       \
		".byte 0\n"                                                    \
		".size " #sym ", . - " #sym "\n"                               \
		".previous\n")

ASSET(report_html_css, "userspace/report/html.css");
ASSET(report_html_js, "userspace/report/html_charts.js");
