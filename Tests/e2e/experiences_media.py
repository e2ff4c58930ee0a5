"""Generated media for the experience checks tests: WAV files in every encoding, PNG and JPEG headers of a given size."""
import math
import struct


def wav(samples, bits=16, fmt=1, channels=1, rate=8000, extensible=False, extra_chunk=False, truncate=0):
    """A RIFF/WAVE file holding `samples` (floats in -1…1, interleaved) in the given encoding."""
    if fmt == 3:
        data = b"".join(struct.pack("<f" if bits == 32 else "<d", s) for s in samples)
    elif bits == 8:
        data = bytes(max(0, min(255, int(round(s * 128)) + 128)) for s in samples)
    else:
        full = 2 ** (bits - 1)
        vals = [max(-full, min(full - 1, int(round(s * full)))) for s in samples]
        if bits == 24:
            data = b"".join(struct.pack("<i", v)[:3] for v in vals)
        else:
            data = b"".join(struct.pack("<h" if bits == 16 else "<i", v) for v in vals)
    block = channels * bits // 8
    if extensible:
        fmt_body = struct.pack("<HHIIHH", 0xFFFE, channels, rate, rate * block, block, bits)
        fmt_body += struct.pack("<HHI", 22, bits, 0) + struct.pack("<H", fmt) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
    else:
        fmt_body = struct.pack("<HHIIHH", fmt, channels, rate, rate * block, block, bits)
    chunks = b"fmt " + struct.pack("<I", len(fmt_body)) + fmt_body
    if extra_chunk:   # an odd-sized chunk before the data: its pad byte must be skipped
        chunks += b"LIST" + struct.pack("<I", 5) + b"abcde" + b"\x00"
    chunks += b"data" + struct.pack("<I", len(data)) + data
    out = b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks
    return out[:len(out) - truncate] if truncate else out


def tone(amplitude, n=4000, rate=8000, freq=440.0, channels=1):
    return [amplitude * math.sin(2 * math.pi * freq * (i // channels) / rate + 0.3 * (i % channels)) for i in range(n * channels)]


def png(width, height):
    """A PNG signature and IHDR chunk: enough for the size checks (which read only the header)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0"


def jpeg(width, height):
    """SOI, an APP0 segment, then SOF0 with the size."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"
