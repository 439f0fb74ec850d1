#!/usr/bin/env python3
# make.py - regenerate the hostile .vxt files of this directory from base-sound
# (a clean 600-event simulated capture: vxrecord --source sim --seed 5 -c 600
# --rate 200). Each file changes a few fields and, unless the point is a bad
# CRC, recomputes every CRC, so the reader's limits are what gets tested.
# The expected answers are in ../../cli/hostile_vxt.sh and tests/README.md.
# lost-before-objects is not made here: the writer wrote it (one lost event,
# an empty object table).
import struct, os

def crc32c(data, crc=0):
    crc ^= 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xffffffff

SKIP = 0x184D2A50
here = os.path.dirname(os.path.abspath(__file__))
base = open(os.path.join(here, 'base-sound'), 'rb').read()

def units(buf):
    """[(offset, kind, size)] of the skippable units; chunk data is skipped."""
    out, off = [], 0
    while off + 8 <= len(buf):
        magic, size = struct.unpack_from('<II', buf, off)
        if magic & ~0xF != SKIP:
            break
        kind = magic & 0xF
        out.append((off, kind, size))
        off += 8 + size
        if kind == 1:	# the chunk's zstd frame follows its entry
            off += struct.unpack_from('<I', buf, out[-1][0] + 8 + 48)[0]
        if kind == 3:
            break
    return out

def fix(buf, data_crc=True):
    """Recompute unit CRCs (and chunk data CRCs) in place; footer copies too."""
    for off, kind, size in units(buf):
        if kind == 1 and data_crc:
            dsize = struct.unpack_from('<I', buf, off + 8 + 48)[0]
            d = off + 8 + size
            if d + dsize <= len(buf):
                struct.pack_into('<I', buf, off + 8 + 52, crc32c(buf[d:d + dsize]))
        if kind == 2:
            p, end = off + 8 + 16, off + 8 + size - 4
            while p + 12 <= end:
                eoff, elen = struct.unpack_from('<QI', buf, p)
                p += 12
                if p + elen > end:
                    break
                # the copy mirrors the entry in the file
                if eoff + elen <= len(buf):
                    buf[p:p + elen] = buf[eoff:eoff + elen]
                p += elen
        if kind in (0, 1, 2):
            struct.pack_into('<I', buf, off + 8 + size - 4, crc32c(buf[off + 8:off + 8 + size - 4]))

def unit(buf, kind, n=0):
    return [u for u in units(buf) if u[1] == kind][n]

def chunk_field(buf, n, field_off, fmt, value):
    off = unit(buf, 1, n)[0]
    struct.pack_into(fmt, buf, off + 8 + field_off, value)

def write(name, buf):
    open(os.path.join(here, name), 'wb').write(bytes(buf))

def header_tables(buf):
    """offset of the object count in the header"""
    return 8 + 4 * 5 + 8 * 3 + 64 + 32 + 64 + 256

def nofooter(buf):
    f = unit(buf, 2)[0]
    return bytearray(buf[:f])

b = bytearray(base)
# header: object table of 2^32-1 entries
h = header_tables(b)
struct.pack_into('<I', b, h, 0xffffffff); fix(b); write('hdr-objects-4g', b)
# header: 70000 objects claimed (more than the 65536 allowed, fewer bytes there)
b = bytearray(base); struct.pack_into('<I', b, h, 70000); fix(b); write('hdr-objects-70000', b)
# header: string table of 2^32-1 entries
b = bytearray(base)
nobj = struct.unpack_from('<I', b, h)[0]
p = h + 4
for _ in range(nobj):
    p += 4 + 8 + 1
    p += 1 + b[p]
struct.pack_into('<I', b, p, 0xffffffff); fix(b); write('hdr-strings-4g', b)
# header: an object name longer than 31 bytes
b = bytearray(base); b[h + 4 + 13] = 200; fix(b); write('hdr-name-too-long', b)
# header unit claiming 4 GiB - 16
b = bytearray(base); struct.pack_into('<I', b, 4, 0xfffffff0); write('hdr-size-4g', b)
# header with a bad CRC
b = bytearray(base); b[40] ^= 0x55; write('hdr-bad-crc', b)
# an unknown incompat feature bit
b = bytearray(base); struct.pack_into('<I', b, 8 + 12, 0x80); fix(b); write('hdr-incompat', b)
# not a vxt file / empty / header cut
write('not-vxt', b'#!/bin/sh\necho this is not a trace\n' * 4)
write('empty', b'')
write('hdr-truncated', base[:200])
# a zstd frame that is not ours
write('zstd-only', bytes.fromhex('28b52ffd2400190000') + b'hello')

# chunk entries (chunk 0), file without footer so the scan reads them
nf = nofooter(base)
for name, fo, fmt, v in [
        ('chunk-data-4g', 48, '<I', 0xffffffff),
        ('chunk-data-60m', 48, '<I', 60 << 20),
        ('chunk-raw-4g', 44, '<I', 0xffffffff),
        ('chunk-raw-60m', 44, '<I', 60 << 20),
        ('chunk-nevents-4g', 28, '<I', 0xffffffff),
        ('chunk-nevents-1m', 28, '<I', 1 << 20),
        ('chunk-first-event', 4, '<Q', 12345),
        ('chunk-time-backwards', 12, '<Q', 0xffffffffffff)]:
    b = bytearray(nf); chunk_field(b, 0, fo, fmt, v); fix(b); write(name, b)
# chunk 1's entry claims 2^32-1 aggregates (it adds no objects or strings,
# so its count of aggregates sits after two zero counts)
b = bytearray(nf)
off, _, size = unit(b, 1, 1)
assert struct.unpack_from('<II', b, off + 8 + 56) == (0, 0)
struct.pack_into('<I', b, off + 8 + 64, 0xffffffff)
fix(b); write('chunk-objagg-4g', b)
# chunk 1's data fails its CRC (entry sound)
b = bytearray(nf); off, _, size = unit(b, 1, 1); b[off + 8 + size + 20] ^= 1; write('chunk-data-bad-crc', b)
# chunk 1's data is garbage with a right CRC: a zstd frame of junk columns
b = bytearray(nf); off, _, size = unit(b, 1, 1)
d = off + 8 + size; dsize = struct.unpack_from('<I', b, off + 8 + 48)[0]
for i in range(d + 12, d + dsize - 4):
    b[i] = (b[i] * 7 + 3) & 0xff
fix(b); write('chunk-data-junk', b)
# the file ends inside chunk 2's entry, and inside chunk 2's data
off2 = unit(nf, 1, 2)[0]
write('torn-entry', nf[:off2 + 20])
write('torn-data', nf[:off2 + 8 + unit(nf, 1, 2)[2] + 30])
# an unknown unit (kind 7) between chunks is skipped by length
b = bytearray(nf); off1 = unit(b, 1, 1)[0]
b[off1:off1] = struct.pack('<II', SKIP | 7, 12) + b'future unit!'
write('unknown-unit', b)
# garbage after the last chunk
write('tail-garbage', nf + b'\x00' * 100)

# footer and trailer
t = len(base) - 24
foff = unit(base, 2)[0]
b = bytearray(base); struct.pack_into('<I', b, foff + 8 + 4, 0xffffffff); fix(b); write('footer-nchunks-4g', b)
b = bytearray(base); struct.pack_into('<I', b, foff + 8 + 4, 1000); fix(b); write('footer-nchunks-1000', b)
b = bytearray(base); struct.pack_into('<Q', b, t + 8, 1 << 62); write('trailer-offset-huge', b)
b = bytearray(base); struct.pack_into('<I', b, t + 16, 0xffffffff); write('trailer-length-4g', b)
b = bytearray(base); struct.pack_into('<I', b, foff + 4, 0xfffffff0); write('footer-size-4g', b)
# the footer's copy of entry 0 points far away (offset wraps when sizes are added)
b = bytearray(base); fsize = unit(base, 2)[2]
struct.pack_into('<Q', b, foff + 8 + 16, 0xfffffffffffffff0)
struct.pack_into('<I', b, foff + 8 + fsize - 4, crc32c(b[foff + 8:foff + 8 + fsize - 4]))
write('footer-entry-wrap', b)

# ---- files whose columns are zstd frames of their own (incompat bit 0x1):
# base-columns is vxrecord --source sim --seed 5 -c 600 --rate 200 with that
# layout; base-sound above has the older single frame per chunk.
import subprocess, tempfile

cols = bytearray(open(os.path.join(here, 'base-columns'), 'rb').read())
cf = nofooter(cols)

def varint_len(buf, p):
    t = 0
    while t < 8 and buf[p] >> t & 1:
        t += 1
    return 9 if t == 8 else t + 1

def columns(raw, n):
    """split the concatenated columns of n events (11 of them)"""
    out, p = [], 0
    for _ in range(11):
        q = p
        for _ in range(n):
            q += varint_len(raw, q)
        out.append(raw[p:q]); p = q
    assert p == len(raw)
    return out

def zstd(data, decompress=False):
    with tempfile.NamedTemporaryFile() as f:
        f.write(data); f.flush()
        return subprocess.run(['zstd', '-q', '-c', '-d' if decompress else '-1', f.name],
                              check=True, stdout=subprocess.PIPE).stdout

# chunk 1's entry claims one byte less / more than its frames hold
for name, delta in (('cols-raw-short', -1), ('cols-raw-long', 1)):
    b = bytearray(cf); off = unit(b, 1, 1)[0]
    raw = struct.unpack_from('<I', b, off + 8 + 44)[0]
    chunk_field(b, 1, 44, '<I', raw + delta); fix(b); write(name, b)
# chunk 1's op column is sound zstd holding values no op has
b = bytearray(cf); off, _, size = unit(b, 1, 1)
n = struct.unpack_from('<I', b, off + 8 + 28)[0]
d = off + 8 + size; dsize = struct.unpack_from('<I', b, off + 8 + 48)[0]
col = columns(zstd(bytes(b[d:d + dsize]), decompress=True), n)
col[1] = b'\xfe' * n
data = b''.join(zstd(c) for c in col)
b[d:d + dsize] = data
chunk_field(b, 1, 48, '<I', len(data)); fix(b); write('cols-op-junk', b)
# chunk 1's last frame is cut short (the entry and CRC agree with the cut)
b = bytearray(cf); off, _, size = unit(b, 1, 1)
d = off + 8 + size; dsize = struct.unpack_from('<I', b, off + 8 + 48)[0]
del b[d + dsize - 3:d + dsize]
chunk_field(b, 1, 48, '<I', dsize - 3); fix(b); write('cols-frame-cut', b)

# every chunk claims the most the format allows (2^20 events, 64 MiB raw) with
# frames that hold what it claims: columns of zero bytes (2^20 events of
# value 0, 11 columns) and, for the rest of the 64 MiB, a padding column the
# decoder never needs; a small file that costs the decoder ~110 MB a chunk
b = bytearray(cf)
ev_max, raw_max = 1 << 20, 64 << 20
zero_col = zstd(b'\x00' * ev_max)
first = 0
for k in range(len([u for u in units(b) if u[1] == 1])):
    off, _, size = unit(b, 1, k)
    d = off + 8 + size; dsize = struct.unpack_from('<I', b, off + 8 + 48)[0]
    data = zero_col * 10 + zstd(b'\x00' * (raw_max - 10 * ev_max))
    b[d:d + dsize] = data
    chunk_field(b, k, 4, '<Q', first)
    chunk_field(b, k, 28, '<I', ev_max)
    chunk_field(b, k, 44, '<I', raw_max)
    chunk_field(b, k, 48, '<I', len(data))
    first += ev_max
fix(b); write('chunk-claims-max', b)
