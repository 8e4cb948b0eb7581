// SPDX-License-Identifier: MIT
/*
 * CSV: a header, then one line of integer cells per row, both from one
 * table of columns; a cell the row did not observe is empty.
 */
#include <inttypes.h>

#include "report.h"

int rp_csv_write(FILE *f, const struct rp_csv_column *columns, size_t ncols, size_t nrows,
		 const void *ctx)
{
	int64_t value;
	size_t i, c;

	for (c = 0; c < ncols; c++)
		fprintf(f, "%s%s", c ? "," : "", columns[c].name);
	fputc('\n', f);
	for (i = 0; i < nrows; i++) {
		for (c = 0; c < ncols; c++) {
			if (c)
				fputc(',', f);
			value = 0;
			if (columns[c].cell(ctx, i, &value))
				fprintf(f, "%" PRId64, value);
		}
		fputc('\n', f);
	}
	return rp_finish(f);
}
