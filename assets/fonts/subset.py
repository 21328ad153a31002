#!/usr/bin/env python3
"""Makes qscope-sans.ttf, the font qscope embeds to draw text in PNG figures.

A subset of DejaVu Sans (Debian's fonts-dejavu-core) with the characters figures use: Latin,
Greek, punctuation, arrows, mathematical operators and geometric shapes. The Bitstream Vera
licence (LICENSE-DejaVu.txt) allows modified copies under a name without "Bitstream" or
"Vera": the subset is renamed "qscope Sans". Needs fonttools (`pip install fonttools`).

    python3 assets/fonts/subset.py [/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf]
"""

import os
import sys

from fontTools import subset
from fontTools.ttLib import TTFont

SOURCE = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "qscope-sans.ttf")
UNICODES = (
    "U+0020-007E,U+00A0-00FF,U+0131,U+0152-0153,U+0370-03FF,U+2000-206F,U+2070-209F,"
    "U+2100-214F,U+2190-21FF,U+2200-22FF,U+2300-23FF,U+25A0-25FF"
)
FAMILY = "qscope Sans"

options = subset.Options()
options.layout_features = ["kern"]
options.hinting = False
options.desubroutinize = True
options.drop_tables += ["FFTM"]
font = TTFont(SOURCE)
subsetter = subset.Subsetter(options)
subsetter.populate(unicodes=subset.parse_unicodes(UNICODES))
subsetter.subset(font)

names = font["name"]
for record in list(names.names):
    if record.nameID in (1, 3, 4, 6, 16):
        value = {1: FAMILY, 3: FAMILY + " Book", 4: FAMILY, 6: "qscopeSans", 16: FAMILY}[record.nameID]
        names.setName(value, record.nameID, record.platformID, record.platEncID, record.langID)
font.save(TARGET)
print(f"{TARGET}: {os.path.getsize(TARGET)} bytes")
