"""A rendered figure (Agg's RGBA pixels) as a deterministic 256-color palette PNG.

The figures are flat fills and dark text on an opaque white sheet: 256 colors keep them
pixel-faithful to the eye at about a third of the size of RGBA (a figure is a document: the
gallery stays light). The palette holds the most frequent colors exactly (the sheet, the fills,
the text, the grid) and a median cut of the rest (anti-aliased edges); every pixel then takes its
nearest palette color, without dithering, so the file is the same on every run.

A big page (``--detail all`` of a whole tile: 60 million pixels) is sampled every few rows for
the palette and mapped in strips, so it costs a fraction of a second and little memory beyond
Agg's own buffer; median cut over all of it took seconds and a second copy of the page.
"""

from __future__ import annotations

import io

SAMPLE_PIXELS = 4_000_000
"""The palette is computed from at most about this many pixels (every k-th row of a bigger page)."""
EXACT = 128
"""Colors kept exactly, the most frequent first; median cut picks the other 256 - EXACT."""
STRIP_ROWS = 512


def png_palette(rgba: memoryview, out: io.BytesIO) -> None:
    """Write Agg's RGBA buffer ``rgba`` (height x width x 4) to ``out`` as a palette PNG."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(rgba)
    height, width = pixels.shape[:2]
    step = -(-width * height // SAMPLE_PIXELS)
    sample = pixels[::step, :, :3]
    # A page no bigger than the sample is the sample: its colors are counted once, for both uses.
    counted = _counted(sample)
    colors = palette_of(sample, counted)
    table = np.array(colors, dtype=np.int32)
    image = Image.fromarray(_mapped(pixels, table, counted if step == 1 else None), "P")
    image.putpalette([v for c in colors for v in c])
    image.save(out, format="png", compress_level=6)


def _nearest(found, table):  # type: ignore[no-untyped-def]
    """For each 0xRRGGBB of ``found``, the index of its nearest color (RGB distance) in ``table``."""
    import numpy as np

    rgb = np.stack([found >> 16, (found >> 8) & 255, found & 255], axis=1).astype(np.int32)
    near = np.empty(len(found), dtype=np.uint8)
    for i in range(0, len(found), 4096):
        near[i : i + 4096] = (
            ((rgb[i : i + 4096, None, :] - table[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        )
    return near


def _mapped(pixels, table, counted=None):  # type: ignore[no-untyped-def]
    """The page's palette indices, strip by strip (no second copy of a big page); ``counted``: the
    page's colors as :func:`_counted` gives them, when already counted."""
    import numpy as np
    from PIL import Image

    height, width = pixels.shape[:2]
    page = np.ascontiguousarray(pixels)  # Agg's buffer already is: no copy
    # Every color of the page (Pillow counts them without a copy), then each one's nearest entry.
    if counted is None:
        image = Image.frombuffer("RGBA", (width, height), page, "raw", "RGBA", 0, 1)
        found = np.array(
            sorted({r << 16 | g << 8 | b for _, (r, g, b, _) in image.getcolors(width * height)})
        )
    else:
        found = np.array(sorted(r << 16 | g << 8 | b for _, (r, g, b) in counted))
    # The table is looked up by each pixel's four bytes read as one little-endian word, alpha masked
    # off (0xBBGGRR): one operation per pixel instead of widening and shifting every channel.
    lut = np.zeros(1 << 24, dtype=np.uint8)
    lut[(found & 0xFF) << 16 | (found & 0xFF00) | found >> 16] = _nearest(found, table)
    words = page.view("<u4").reshape(height, width)
    index = np.empty((height, width), dtype=np.uint8)
    for top in range(0, height, STRIP_ROWS):
        index[top : top + STRIP_ROWS] = lut[words[top : top + STRIP_ROWS] & 0xFFFFFF]
    return index


def _packed(pixels):  # type: ignore[no-untyped-def]
    """RGB of an (..., 3 or 4) uint8 array as one integer each: 0xRRGGBB."""
    import numpy as np

    p = pixels.astype(np.uint32)
    return (p[..., 0] << 16) | (p[..., 1] << 8) | p[..., 2]


def _counted(sample):  # type: ignore[no-untyped-def]
    """(count, (r, g, b)) of every color of the (h, w, 3) uint8 ``sample``, the most frequent first."""
    import numpy as np
    from PIL import Image

    image = Image.fromarray(np.ascontiguousarray(sample), "RGB")
    return sorted(image.getcolors(image.width * image.height), key=lambda c: (-c[0], c[1]))


def palette_of(sample, counted=None) -> list[tuple[int, int, int]]:  # type: ignore[no-untyped-def]
    """At most 256 colors for the (h, w, 3) uint8 ``sample``: all of them when there are no more, else
    the :data:`EXACT` most frequent and a median cut of the pixels they leave (anti-aliased edges).
    ``counted``: the sample's colors as :func:`_counted` gives them, when already counted."""
    import numpy as np
    from PIL import Image

    counted = _counted(sample) if counted is None else counted
    colors = [tuple(c) for _, c in counted]
    if len(colors) <= 256:
        return colors
    kept = colors[:EXACT]
    common = np.zeros(1 << 24, dtype=bool)
    common[[r << 16 | g << 8 | b for r, g, b in kept]] = True
    rest = sample[~common[_packed(sample)]]
    row = Image.fromarray(np.ascontiguousarray(rest.reshape(1, -1, 3)), "RGB")
    cut = row.quantize(colors=256 - EXACT, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    flat = cut.getpalette() or []
    extra = [tuple(flat[i : i + 3]) for i in range(0, 3 * (256 - EXACT), 3)]
    return kept + [c for c in dict.fromkeys(extra) if c not in kept]
