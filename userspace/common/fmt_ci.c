// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdio.h>

#include "fmt_ci.h"

const char *fmt_ci(char *buf, size_t len, const double ci[2], int decimals,
		   bool sign)
{
	if (isnan(ci[0]) || isnan(ci[1]))
		snprintf(buf, len, "[unbounded]");
	else if (sign)
		snprintf(buf, len, "[%+.*f, %+.*f]", decimals, ci[0], decimals,
			 ci[1]);
	else
		snprintf(buf, len, "[%.*f, %.*f]", decimals, ci[0], decimals,
			 ci[1]);
	return buf;
}
