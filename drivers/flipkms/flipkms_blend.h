/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * One line of a composed frame: the pixel arithmetic of the composer, on
 * its own so that the KUnit suite can hold it against a reference model.
 */

#ifndef _FLIPKMS_BLEND_H
#define _FLIPKMS_BLEND_H

#include <linux/types.h>

struct flipkms_frame;
struct flipkms_frame_plane;

/*
 * One composed pixel; its layout is ARGB16161616's, which the CRC covers,
 * and it is aligned as a u64 for the composer's whole-pixel stores.
 */
struct flipkms_pixel {
	u16 b, g, r, a;
} __aligned(8);

void flipkms_compose_line(const struct flipkms_frame *frame, int y,
			  struct flipkms_pixel *line);

/* flipkms_formats.c: the formats the fast paths leave to it */
bool flipkms_format_fetchable(u32 format);
void flipkms_format_fetch(const struct flipkms_frame_plane *fp, int sx, int sy,
			  int n, struct flipkms_pixel *dst);
bool flipkms_format_store(u32 format, const struct flipkms_pixel *line, int n,
			  u8 *dst);

#endif /* _FLIPKMS_BLEND_H */
