#!/usr/bin/env python3
"""Bits a position of two WLD table sets, per material and per piece count.

Usage: scripts/bits-per-position.py BEFORE_DIR AFTER_DIR [--rules R] [--dtb PATH]

Reads `dtb info --json` of each folder (the tables of one rule set) and
prints, for every material in either, the bytes of its table and the bits a
position (bytes * 8 / positions) before and after, then the same summed per
piece count and over the whole set, so that a smaller set's figures stand
beside the plain set's. A material missing from one folder shows "-" there and is
left out of both sums, so the sums compare like with like.
"""

import argparse
import json
import subprocess
import sys
from collections import defaultdict


def tables(dtb, folder, rules):
    """Material name -> (bytes, positions) of the WLD tables in `folder`."""
    run = subprocess.run(
        [dtb, "info", "--dir", folder, "--rules", rules, "--json"],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.exit(f"dtb info --dir {folder}: {run.stderr.strip()}")
    out = {}
    for t in json.loads(run.stdout):
        m = t["material"]
        white = "K" * m["white_kings"] + "M" * m["white_men"]
        black = "K" * m["black_kings"] + "M" * m["black_men"]
        out[f"{white}-{black}"] = (t["bytes"], t["positions"])
    return out


def pieces(name):
    return len(name) - 1


def bits(size, positions):
    return size * 8 / positions if positions else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rules", default="fmjd")
    parser.add_argument("--dtb", default="target/release/dtb")
    args = parser.parse_args()
    before = tables(args.dtb, args.before, args.rules)
    after = tables(args.dtb, args.after, args.rules)
    print(f"{'material':<10} {'bytes before':>14} {'bits/pos':>9} {'bytes after':>14} {'bits/pos':>9} {'ratio':>7}")
    sums = defaultdict(lambda: [0, 0, 0])
    for name in sorted(set(before) | set(after), key=lambda n: (pieces(n), n)):
        b, a = before.get(name), after.get(name)
        cells = []
        for t in (b, a):
            cells += [f"{t[0]:>14,}", f"{bits(*t):>9.4f}"] if t else [f"{'-':>14}", f"{'-':>9}"]
        ratio = f"{a[0] / b[0]:>7.3f}" if a and b and b[0] else f"{'-':>7}"
        print(f"{name:<10} {' '.join(cells)} {ratio}")
        if a and b:
            for key in (pieces(name), "all"):
                s = sums[key]
                s[0] += b[0]
                s[1] += a[0]
                s[2] += b[1]
    print()
    print(f"{'pieces':<10} {'bytes before':>14} {'bits/pos':>9} {'bytes after':>14} {'bits/pos':>9} {'ratio':>7}")
    for key in sorted((k for k in sums if k != "all")) + ["all"]:
        b, a, n = sums[key]
        print(f"{key!s:<10} {b:>14,} {bits(b, n):>9.4f} {a:>14,} {bits(a, n):>9.4f} {a / b if b else 0:>7.3f}")


if __name__ == "__main__":
    main()
