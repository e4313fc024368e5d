"""Framing of a ``.ckpt`` file that makes every truncation and corruption detectable.

A MindSpore ``.ckpt`` is a bare protobuf ``Checkpoint`` message, and a
protobuf message cut at the end of one of its entries is still a valid,
shorter message: on its own the format cannot tell a truncated file from a
smaller checkpoint. So mscustom writes, before the entries, one field that
MindSpore's parser skips as unknown (field ``HEADER_FIELD``, length-delimited)::

    b"mscustom" | version (1 byte) | flags (1 byte: 1 = MindSpore's crc_num trailer follows)
               | entries' length (uint64 LE) | entries' CRC32 (uint32 LE)

On load a file with this header must hold exactly that many bytes of entries
with that CRC32, and the trailer when the flags say so, so any cut (the
header's own included) and any changed byte raises. MindSpore 2.10 loads
these files unchanged.

MindSpore's own integrity record is read and written too: with
``crc_check=True`` MindSpore appends ``b"crc_num"`` and the CRC32 of
everything before it as 10 big-endian bytes. mscustom strips that trailer
when present and checks it on every load (MindSpore checks it only when
asked with ``crc_check=True``).

Files without the header (MindSpore's own) are walked field by field: a cut
inside an entry or a byte that breaks the wire format raises, but a cut
exactly between two entries, or a changed byte inside a tensor's data, cannot
be seen there - MindSpore 2.10 loads such a file as it is.
"""

import struct
import zlib

__all__ = ["frame", "unframe", "HEADER_FIELD"]

HEADER_FIELD = 4000                       # far above the fields of MindSpore's Checkpoint message (1, 2)
_MAGIC = b"mscustom"
_VERSION = 1
_LAYOUT = struct.Struct("<BQI")           # flags, entries' length, entries' CRC32
_HAS_TRAILER = 1
_PAYLOAD_SIZE = len(_MAGIC) + 1 + _LAYOUT.size
_TRAILER_MARK = b"crc_num"                # MindSpore's crc_check trailer: mark + 10-byte big-endian CRC32
_TRAILER_SIZE = len(_TRAILER_MARK) + 10
_WIRE_LEN = 2                             # protobuf wire type of length-delimited fields
_KNOWN_FIELDS = {1: "value", 2: "model_type"}


class CorruptCheckpoint(ValueError):
    """A .ckpt file that is truncated or corrupted; the message says where and why (without the file name,
    which the caller adds)."""


def _varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(buf, i):
    """(value, next index) of the varint at ``buf[i]``; CorruptCheckpoint when the bytes end inside it."""
    value = shift = 0
    start = i
    while i < len(buf):
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise CorruptCheckpoint(f"a field key or length at byte {start} runs over 10 bytes")
    raise CorruptCheckpoint(f"the file ends inside a field key or length at byte {start}")


_HEADER_KEY = _varint(HEADER_FIELD << 3 | _WIRE_LEN)


def frame(body, crc_trailer=False):
    """The bytes of a .ckpt file holding the serialized ``Checkpoint`` ``body``: the header, the body and,
    with ``crc_trailer``, MindSpore's crc_num trailer over both."""
    flags = _HAS_TRAILER if crc_trailer else 0
    payload = _MAGIC + bytes([_VERSION]) + _LAYOUT.pack(flags, len(body), zlib.crc32(body))
    blob = _HEADER_KEY + _varint(len(payload)) + payload + body
    if crc_trailer:
        blob += _TRAILER_MARK + zlib.crc32(blob).to_bytes(10, "big")
    return blob


def unframe(raw):
    """(body, has_crc): the serialized ``Checkpoint`` inside a .ckpt file's bytes (a memoryview of them,
    not a copy), and whether the file carried a checksum (the header or MindSpore's trailer).
    CorruptCheckpoint when the bytes are truncated or corrupted as far as the file's own records can tell."""
    if not raw:
        raise CorruptCheckpoint("the file is empty (0 bytes)")
    raw = memoryview(raw)
    has_crc = has_trailer = False
    if len(raw) >= _TRAILER_SIZE and raw[-_TRAILER_SIZE:-10] == _TRAILER_MARK:
        stored = int.from_bytes(raw[-10:], "big")
        raw = raw[:-_TRAILER_SIZE]
        if zlib.crc32(raw) != stored:
            raise CorruptCheckpoint(f"the CRC32 of its content is {zlib.crc32(raw)} but its crc_num trailer "
                                    f"records {stored}")
        has_crc = has_trailer = True
    if raw[:len(_HEADER_KEY)] == _HEADER_KEY:
        return _check_header(raw, has_trailer), True
    _walk(raw)
    return raw, has_crc


def _check_header(raw, has_trailer):
    """The entries after mscustom's header, once their length and CRC32, and whether a crc_num trailer
    followed them, match what it records."""
    size, start = _read_varint(raw, len(_HEADER_KEY))
    if size != _PAYLOAD_SIZE:
        raise CorruptCheckpoint(f"its mscustom header declares {size} bytes, expected {_PAYLOAD_SIZE}")
    payload = raw[start:start + size]
    if len(payload) < size:
        raise CorruptCheckpoint(f"the file ends inside its mscustom header ({len(payload)} of {size} bytes)")
    if payload[:len(_MAGIC)] != _MAGIC or payload[len(_MAGIC)] != _VERSION:
        raise CorruptCheckpoint(f"its mscustom header starts with {bytes(payload[:len(_MAGIC) + 1])!r}, expected "
                                f"{_MAGIC + bytes([_VERSION])!r}")
    flags, length, crc = _LAYOUT.unpack(payload[len(_MAGIC) + 1:])
    if flags & ~_HAS_TRAILER:
        raise CorruptCheckpoint(f"its mscustom header has unknown flags {flags:#x}")
    if flags & _HAS_TRAILER and not has_trailer:
        raise CorruptCheckpoint("its header says a crc_num trailer follows the entries but the file ends "
                                "without one (truncated)")
    if has_trailer and not flags & _HAS_TRAILER:
        raise CorruptCheckpoint("it ends with a crc_num trailer that its header does not record")
    body = raw[start + size:]
    if len(body) != length:
        raise CorruptCheckpoint(f"its header records {length} bytes of entries but {len(body)} follow "
                                f"({'truncated' if len(body) < length else 'bytes added'})")
    if zlib.crc32(body) != crc:
        raise CorruptCheckpoint(f"the CRC32 of its entries is {zlib.crc32(body)} but its header records {crc}")
    return body


def _walk(raw):
    """Check the top-level fields of a header-less file: each a known, length-delimited field that ends
    inside the file."""
    i = 0
    while i < len(raw):
        at = i
        key, i = _read_varint(raw, i)
        field, wire = key >> 3, key & 7
        if field not in _KNOWN_FIELDS or wire != _WIRE_LEN:
            raise CorruptCheckpoint(f"byte {at} holds field {field} of wire type {wire}, which a Checkpoint "
                                    f"message does not have (expected 'value' = 1 or 'model_type' = 2, "
                                    f"length-delimited)")
        size, i = _read_varint(raw, i)
        if i + size > len(raw):
            raise CorruptCheckpoint(f"the '{_KNOWN_FIELDS[field]}' field at byte {at} declares {size} bytes "
                                    f"but {len(raw) - i} remain (truncated)")
        i += size
