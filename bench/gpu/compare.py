#!/usr/bin/env python3
"""Max abs difference of two raw little-endian float32 files (no numpy).

usage: compare.py GOT.raw REF.raw TOLERANCE
Prints `max_abs_diff N count C` and exits 0 when N <= TOLERANCE (and both
files have the same number of values, none NaN), 1 otherwise.
"""
import array
import math
import sys


def load(path):
    a = array.array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return a


def main():
    got, ref, tol = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
    if len(got) != len(ref):
        print("size mismatch: %d vs %d values" % (len(got), len(ref)))
        return 1
    worst = 0.0
    for g, r in zip(got, ref):
        d = abs(g - r)
        if math.isnan(d):
            print("NaN in output")
            return 1
        worst = max(worst, d)
    print("max_abs_diff %.3g count %d" % (worst, len(got)))
    return 0 if worst <= tol else 1


if __name__ == "__main__":
    sys.exit(main())
