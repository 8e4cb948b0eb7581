// SPDX-License-Identifier: GPL-2.0+
/*
 * A generated EDID 1.4 base block per connector, so that monitor
 * configuration code sees distinct monitors: manufacturer "FFK", product
 * 0x0001, a serial number and monitor name distinct on every connector of
 * every device (flipkms_output.c chooses them), the preferred mode as the
 * first detailed timing, and the common small modes as established and
 * standard timings, and the monitor's refresh range in a range limits
 * descriptor, as an adaptive-sync monitor advertises it. The physical
 * size is the monitor's, or 96 dpi of the preferred mode.
 */

#include <linux/string.h>

#include <drm/drm_edid.h>
#include <drm/drm_modes.h>

#include "flipkms_drv.h"

#define EDID_DESC_SERIAL	0xff
#define EDID_DESC_NAME		0xfc
#define EDID_DESC_RANGE		0xfd

/* Range limits descriptor: offsets, which limits the rates are, padding. */
#define EDID_RANGE_MAX_H_PLUS_255	0x08
#define EDID_RANGE_LIMITS_ONLY		0x01

/* Size in mm of @pixels at 96 dpi. */
static unsigned int flipkms_mm(unsigned int pixels)
{
	return pixels * 254 / 960;
}

/* A display descriptor holding up to 13 bytes of text, as EDID pads it. */
static void flipkms_edid_text(u8 *d, u8 tag, const char *text)
{
	size_t len = min_t(size_t, strlen(text), 13);

	memset(d, 0, 18);
	d[3] = tag;
	memset(d + 5, ' ', 13);
	memcpy(d + 5, text, len);
	if (len < 13)
		d[5 + len] = '\n';
}

/*
 * A detailed timing descriptor for @mode, which must fit its fields, on a
 * monitor @hmm by @vmm in size.
 */
static void flipkms_edid_dtd(u8 *d, const struct drm_display_mode *mode,
			     unsigned int hmm, unsigned int vmm)
{
	unsigned int hblank = mode->htotal - mode->hdisplay;
	unsigned int vblank = mode->vtotal - mode->vdisplay;
	unsigned int hso = mode->hsync_start - mode->hdisplay;
	unsigned int hsw = mode->hsync_end - mode->hsync_start;
	unsigned int vso = mode->vsync_start - mode->vdisplay;
	unsigned int vsw = mode->vsync_end - mode->vsync_start;
	unsigned int clock = mode->clock / 10;

	d[0] = clock & 0xff;
	d[1] = clock >> 8;
	d[2] = mode->hdisplay & 0xff;
	d[3] = hblank & 0xff;
	d[4] = (mode->hdisplay >> 8) << 4 | hblank >> 8;
	d[5] = mode->vdisplay & 0xff;
	d[6] = vblank & 0xff;
	d[7] = (mode->vdisplay >> 8) << 4 | vblank >> 8;
	d[8] = hso & 0xff;
	d[9] = hsw & 0xff;
	d[10] = (vso & 0xf) << 4 | (vsw & 0xf);
	d[11] = (hso >> 8) << 6 | (hsw >> 8) << 4 | (vso >> 4) << 2 | vsw >> 4;
	d[12] = hmm & 0xff;
	d[13] = vmm & 0xff;
	d[14] = (hmm >> 8) << 4 | vmm >> 8;
	d[15] = 0;
	d[16] = 0;
	/* Digital separate sync, with the mode's polarities. */
	d[17] = 0x18 | (mode->flags & DRM_MODE_FLAG_PVSYNC ? 0x04 : 0) |
		(mode->flags & DRM_MODE_FLAG_PHSYNC ? 0x02 : 0);
}

/*
 * The range limits of every mode the connector offers: vertical from the
 * refresh range, horizontal 30 to 510 kHz, pixel clock up to 660 MHz.
 * "Range limits only" (EDID 1.4) names no timing formula. The feature
 * byte claims continuous frequency, as adaptive-sync monitors do: 6.12's
 * core reads the range into display_info.monitor_range only then (6.1's
 * always), and both add the DMT modes that fit the range (and are no
 * larger than a mode the EDID lists).
 */
static void flipkms_edid_range(u8 *d, u32 vrr_range)
{
	memset(d, 0, 18);
	d[3] = EDID_DESC_RANGE;
	d[4] = EDID_RANGE_MAX_H_PLUS_255;
	d[5] = flipkms_vrr_min_hz(vrr_range);
	d[6] = flipkms_vrr_max_hz(vrr_range);
	d[7] = 30;
	d[8] = 255;
	d[9] = 66;
	d[10] = EDID_RANGE_LIMITS_ONLY;
	d[11] = '\n';
	memset(d + 12, ' ', 6);
}

/**
 * flipkms_edid_fits() - whether a mode can be an EDID's detailed timing
 * @mode: the mode
 *
 * A detailed timing holds a pixel clock below 655.36 MHz and 12-bit active
 * and blanking sizes.
 *
 * Return: true if @mode fits one.
 */
bool flipkms_edid_fits(const struct drm_display_mode *mode)
{
	return mode->clock / 10 <= 0xffff && mode->hdisplay < 4096 &&
	       mode->vdisplay < 4096 && mode->htotal - mode->hdisplay < 4096 &&
	       mode->vtotal - mode->vdisplay < 4096 &&
	       mode->hsync_start - mode->hdisplay < 1024 &&
	       mode->hsync_end - mode->hsync_start < 1024 &&
	       mode->vsync_start - mode->vdisplay < 64 &&
	       mode->vsync_end - mode->vsync_start < 64;
}

/**
 * flipkms_edid_build() - the EDID of an output
 * @edid:	EDID_LENGTH bytes to fill in
 * @serial:	its serial number, also in the serial string "FFK%08u"
 * @name:	its monitor name, up to 13 characters
 * @preferred:	its preferred mode, for which flipkms_edid_fits() holds
 * @vrr_range:	its refresh range, flipkms_vrr_pack()ed
 * @width_mm:	its physical width, up to 2550 mm; 0: @preferred at 96 dpi
 * @height_mm:	its physical height, likewise
 */
void flipkms_edid_build(u8 *edid, u32 serial, const char *name,
			const struct drm_display_mode *preferred, u32 vrr_range,
			unsigned int width_mm, unsigned int height_mm)
{
	static const u8 header[] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
	/* sRGB primaries and white point, as EDID encodes them. */
	static const u8 srgb[] = { 0xee, 0x91, 0xa3, 0x54, 0x4c, 0x99, 0x26, 0x0f, 0x50, 0x54 };
	/* 1280x720, 1280x1024, 1600x900 and 1920x1080, all at 60 Hz. */
	static const u8 standard[] = { 0x81, 0xc0, 0x81, 0x80, 0xa9, 0xc0, 0xd1, 0xc0 };
	unsigned int hmm = width_mm ?: flipkms_mm(preferred->hdisplay);
	unsigned int vmm = height_mm ?: flipkms_mm(preferred->vdisplay);
	char text[14];
	u8 sum = 0;
	int i;

	memset(edid, 0, EDID_LENGTH);
	memcpy(edid, header, sizeof(header));
	/* "FFK": three 5-bit letters, 'A' = 1, big endian. */
	edid[8] = ('F' - '@') << 2 | ('F' - '@') >> 3;
	edid[9] = (('F' - '@') & 0x7) << 5 | ('K' - '@');
	edid[10] = 0x01;			/* product code, little endian */
	edid[12] = serial & 0xff;
	edid[13] = (serial >> 8) & 0xff;
	edid[14] = (serial >> 16) & 0xff;
	edid[15] = serial >> 24;
	edid[17] = 2026 - 1990;			/* model year, week 0 */
	edid[18] = 1;
	edid[19] = 4;
	edid[20] = 0xa0;			/* digital, 8 bits a colour */
	edid[21] = DIV_ROUND_CLOSEST(hmm, 10);
	edid[22] = DIV_ROUND_CLOSEST(vmm, 10);
	edid[23] = 220 - 100;			/* gamma 2.2 */
	/* sRGB, preferred timing is native, continuous frequency (VRR). */
	edid[24] = 0x07;
	memcpy(edid + 25, srgb, sizeof(srgb));
	edid[35] = 0x21;			/* 640x480@60, 800x600@60 */
	edid[36] = 0x08;			/* 1024x768@60 */
	memcpy(edid + 38, standard, sizeof(standard));
	memset(edid + 38 + sizeof(standard), 0x01, 16 - sizeof(standard));

	flipkms_edid_dtd(edid + 54, preferred, hmm, vmm);
	flipkms_edid_text(edid + 72, EDID_DESC_NAME, name);
	snprintf(text, sizeof(text), "FFK%08u", serial);
	flipkms_edid_text(edid + 90, EDID_DESC_SERIAL, text);
	flipkms_edid_range(edid + 108, vrr_range);

	for (i = 0; i < EDID_LENGTH - 1; i++)
		sum += edid[i];
	edid[EDID_LENGTH - 1] = 0x100 - sum;
}
