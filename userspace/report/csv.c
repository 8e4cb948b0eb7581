// SPDX-License-Identifier: MIT
/*
 * CSV: a header, then one line of integer cells per row; a cell the row did
 * not observe is empty.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "report.h"

int rp_csv_write(FILE *f, const char *header, size_t ncols, size_t nrows,
		 rp_csv_row_fn *row, void *ctx)
{
	int64_t *cells = calloc(ncols ? ncols : 1, sizeof(*cells));
	bool *present = calloc(ncols ? ncols : 1, sizeof(*present));
	size_t i, c;

	if (!cells || !present) {
		free(cells);
		free(present);
		return -1;
	}
	fprintf(f, "%s\n", header);
	for (i = 0; i < nrows; i++) {
		for (c = 0; c < ncols; c++) {
			cells[c] = 0;
			present[c] = false;
		}
		row(ctx, i, cells, present);
		for (c = 0; c < ncols; c++) {
			if (c)
				fputc(',', f);
			if (present[c])
				fprintf(f, "%" PRId64, cells[c]);
		}
		fputc('\n', f);
	}
	free(cells);
	free(present);
	return rp_finish(f);
}
