#!/usr/bin/env python3
"""Import circles between the files of a crate.

    scripts/import-circles.py CRATE_DIR...

For each crate, the top-level modules of src/ (a file, or a folder with its
files) and which others each names as `crate::module` outside comments and
test modules; prints every circle (a strongly connected group of two or
more modules) and exits 1 if there is one. Dependencies between files
should point one way, as they do between crates.
"""
import os
import re
import sys


def module_edges(crate):
    src = os.path.join(crate, "src")
    edges = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            module = os.path.relpath(path, src)[:-3].split(os.sep)[0]
            with open(path, encoding="utf-8") as f:
                code = "\n".join(l for l in f if not l.lstrip().startswith("//"))
            code = code.split("#[cfg(test)]")[0]
            edges.setdefault(module, set()).update(re.findall(r"crate::([a-z_][a-z0-9_]*)", code))
    return {m: {t for t in targets if t in edges and t != m} for m, targets in edges.items()}


def circles(edges):
    """Tarjan's strongly connected components of two or more modules."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    bad = False
    for crate in sys.argv[1:]:
        for group in circles(module_edges(crate)):
            bad = True
            print(f"{crate}: import circle between {', '.join(group)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
