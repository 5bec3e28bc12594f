#!/usr/bin/env python3
"""Finds the NVIDIA CUDA ELF images (cubins) in a file and reports them.

usage: cuda_elf.py FILE [--extract PREFIX]

Scans FILE (a cubin, a fat binary or a model object embedding one) for ELF
headers with e_machine = EM_CUDA (190) and prints one line per image:
`sm_NN <size> bytes` (the SM number is bits 8-15 of e_flags in the ELF ABI
that CUDA 12+ ptxas writes). With --extract, image i is written to
PREFIX.i.cubin. Exit 1 when there is no CUDA ELF in the file.
"""
import struct
import sys


def images(data):
    pos = 0
    while True:
        pos = data.find(b"\x7fELF\x02\x01", pos)
        if pos < 0:
            return
        hdr = data[pos:pos + 64]
        if len(hdr) == 64:
            machine = struct.unpack_from("<H", hdr, 18)[0]
            if machine == 190:
                flags = struct.unpack_from("<I", hdr, 48)[0]
                phoff, shoff = struct.unpack_from("<QQ", hdr, 32)
                phentsize, phnum, shentsize, shnum = struct.unpack_from(
                    "<HHHH", hdr, 54)
                # The image ends with the section or program header table.
                size = max(shoff + shentsize * shnum, phoff + phentsize * phnum)
                if 0 < size <= len(data) - pos:
                    yield pos, size, flags
        pos += 4


def main():
    data = open(sys.argv[1], "rb").read()
    prefix = None
    if len(sys.argv) == 4 and sys.argv[2] == "--extract":
        prefix = sys.argv[3]
    found = 0
    for i, (pos, size, flags) in enumerate(images(data)):
        print("sm_%d %d bytes" % ((flags >> 8) & 0xFF, size))
        if prefix:
            with open("%s.%d.cubin" % (prefix, i), "wb") as f:
                f.write(data[pos:pos + size])
        found += 1
    if not found:
        print("no CUDA ELF image in %s" % sys.argv[1])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
