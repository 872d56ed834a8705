"""A minimal PNG decoder (stdlib ``zlib`` only) for the WFC pattern images.

horizax's runtime needs only jax and numpy, so the few 8-bit images the WFC presets ship
are decoded here rather than with an imaging library. Supported: bit depth 8, colour types
2 (RGB) and 6 (RGBA), no interlacing, the five scanline filters; anything else raises.
Ancillary chunks (colour profiles, text) are skipped, as MiniGrid's ``imageio`` read does
not apply them either.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}  # colour type -> samples per pixel


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """``(type, body)`` of every chunk after the signature, CRCs checked."""
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG file")
    out, pos = [], len(_SIGNATURE)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"corrupt PNG chunk {kind!r}")
        out.append((kind, body))
        pos += 12 + length
    return out


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(raw: bytes, height: int, stride: int, bpp: int) -> np.ndarray:
    """u8[height, stride]: scanlines with their filter bytes removed and undone."""
    out = np.zeros((height, stride), np.uint8)
    prev = [0] * stride
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], list(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, up_left = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + _paeth(left, up, up_left)) & 0xFF
            elif kind != 0:
                raise ValueError(f"unknown PNG filter type {kind}")
        out[row] = line
        prev = line
    return out


def read_rgb(path: Path) -> np.ndarray:
    """u8[H, W, 3]: the RGB channels of an 8-bit RGB or RGBA PNG (alpha dropped, as
    MiniGrid's ``imread(...)[:, :, :3]``)."""
    chunks = _chunks(path.read_bytes())
    if not chunks or chunks[0][0] != b"IHDR":
        raise ValueError(f"{path}: no IHDR chunk")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth != 8 or colour not in _CHANNELS or interlace != 0:
        raise ValueError(
            f"{path}: unsupported PNG (bit depth {depth}, colour type {colour}, "
            f"interlace {interlace}); only 8-bit RGB/RGBA without interlacing"
        )
    channels = _CHANNELS[colour]
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    pixels = _unfilter(raw, height, width * channels, channels)
    return pixels.reshape(height, width, channels)[..., :3].copy()
