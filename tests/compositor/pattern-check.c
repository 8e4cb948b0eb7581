// SPDX-License-Identifier: MIT
/*
 * pattern-check: whether a binary PPM (a flipkms frame.ppm) is, pixel for
 * pixel, one frame of presentlat's pattern, written out here again rather
 * than taken from presentlat: frame F's pixel (x, y) has red (x + F) & 0xff,
 * green y & 0xff and blue (x ^ y) & 0xff. F is read off the red of the
 * pixel at (0, 0) (so modulo 256).
 *
 * usage: pattern-check FILE.ppm
 * Prints "WxH frame F: N pixels differ (first at X,Y)"; exit 0 if none
 * differ, 1 if some do, 2 if the file is not a PPM it can read.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned int w, h, max, x, y, frame = 0, fx = 0, fy = 0;
	unsigned long differ = 0;
	unsigned char rgb[3];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.ppm\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fscanf(f, "P6 %u %u %u", &w, &h, &max) != 3 || max != 255 || fgetc(f) == EOF ||
	    !w || !h) {
		fprintf(stderr, "pattern-check: %s is not a binary PPM with 8-bit samples\n", argv[1]);
		return 2;
	}
	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			if (fread(rgb, 1, 3, f) != 3) {
				fprintf(stderr, "pattern-check: %s ends at pixel %u,%u\n", argv[1], x, y);
				return 2;
			}
			if (!x && !y)
				frame = rgb[0];
			if (rgb[0] == ((x + frame) & 0xff) && rgb[1] == (y & 0xff) &&
			    rgb[2] == ((x ^ y) & 0xff))
				continue;
			if (!differ++) {
				fx = x;
				fy = y;
			}
		}
	}
	printf("%ux%u frame %u: %lu pixels differ", w, h, frame, differ);
	if (differ)
		printf(" (first at %u,%u)", fx, fy);
	putchar('\n');
	return differ ? 1 : 0;
}
