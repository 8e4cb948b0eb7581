/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * One line of a composed frame: the pixel arithmetic of the composer, on
 * its own so that the KUnit suite can hold it against a reference model.
 */

#ifndef _FLIPKMS_BLEND_H
#define _FLIPKMS_BLEND_H

#include <linux/types.h>

struct flipkms_frame;

/*
 * One composed pixel; its layout is ARGB16161616's, which the CRC covers,
 * and it is aligned as a u64 for the composer's whole-pixel stores.
 */
struct flipkms_pixel {
	u16 b, g, r, a;
} __aligned(8);

void flipkms_compose_line(const struct flipkms_frame *frame, int y,
			  struct flipkms_pixel *line);

#endif /* _FLIPKMS_BLEND_H */
