#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print the YCbCr known answers of tests/kunit/flipkms_formats_kunit.c.

Exact rational arithmetic from the ITU-R definitions (BT.601, BT.709,
BT.2020 non-constant luminance), independent of the driver's fixed point:
limited range Y' = (Y - 16k) / 219k, C' = (C - 128k) / 224k with k = 2^(n-8);
full range Y' = Y / (2^n - 1), C' = (C - 2^(n-1)) / (2^n - 1); then
R = Y' + 2(1 - Kr)Cr', B = Y' + 2(1 - Kb)Cb', G = (Y' - Kr R - Kb B) / Kg,
clamped to [0, 1], times 0xffff, rounded to nearest. A vector whose exact
value lies within 1/1000 of a rounding tie is reported: pick another.
"""
from fractions import Fraction as F
import math

K = {'BT601': (F(2990, 10000), F(1140, 10000)),
     'BT709': (F(2126, 10000), F(722, 10000)),
     'BT2020': (F(2627, 10000), F(593, 10000))}


def convert(enc, rng, n, Y, Cb, Cr):
    kr, kb = K[enc]
    kg = 1 - kr - kb
    if rng == 'LIMITED':
        yo, ys, co, cs = 16 << (n - 8), 219 << (n - 8), 128 << (n - 8), 224 << (n - 8)
    else:
        yo, ys, co, cs = 0, 2**n - 1, 2**(n - 1), 2**n - 1
    y, u, v = F(Y - yo, ys), F(Cb - co, cs), F(Cr - co, cs)
    R = y + 2 * (1 - kr) * v
    B = y + 2 * (1 - kb) * u
    G = (y - kr * R - kb * B) / kg
    out = []
    for c in (R, G, B):
        x = min(max(c, 0), 1) * 65535
        if abs(x - math.floor(x) - F(1, 2)) < F(1, 1000):
            print(f"/* NEAR A TIE: {enc} {rng} {n} bits {Y} {Cb} {Cr} */")
        out.append(math.floor(x + F(1, 2)))
    return out


for enc in K:
    for rng in ('LIMITED', 'FULL'):
        for t in [(235, 128, 128), (16, 128, 128), (100, 141, 111), (180, 110, 150),
                  (81, 90, 240)]:
            r = convert(enc, rng, 8, *t)
            print(f"\t{{ {enc}, {rng}, {{ {t[0]}, {t[1]}, {t[2]} }}, "
                  f"{{ 0x{r[0]:04x}, 0x{r[1]:04x}, 0x{r[2]:04x} }} }},")
for fmt, n, enc, rng, t in [('P010', 10, 'BT2020', 'LIMITED', (940, 512, 512)),
                            ('P010', 10, 'BT2020', 'LIMITED', (502, 400, 700)),
                            ('P010', 10, 'BT709', 'FULL', (1023, 512, 512)),
                            ('P010', 10, 'BT709', 'FULL', (300, 800, 100)),
                            ('P012', 12, 'BT709', 'LIMITED', (2000, 1500, 2500)),
                            ('P016', 16, 'BT601', 'FULL', (40000, 20000, 50000))]:
    print(fmt, enc, rng, t, convert(enc, rng, n, *t))
