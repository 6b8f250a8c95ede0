#!/usr/bin/env python3
"""Import circles between the files of a crate.

    scripts/import-circles.py CRATE_DIR...

Every .rs file under a crate's src/ is a module (`lib.rs` the root, a
`mod.rs` its folder's module). A file depends on another when its code,
outside comments and test modules, names an item of it by path:
`crate::a::b`, `super::x`, `self::x`, or `child::x` for a module it
declares (grouped imports `crate::{a, b::c}` count each path). A path
names the deepest module it reaches, so `crate::solvers::slice::Slice`
depends on the slice solver's file, not on the folder's `mod.rs`, and a
name a module imports or re-exports (`use`, `pub use`) leads on to the
file that defines it; a `mod` declaration alone is not a dependency. Macros are not
followed (`crate::name!` names no module's item here; a macro exported to
the crate root is defined where its file says, which this script does not
read). Prints every circle (a
strongly connected group of two or more files) and exits 1 if there is
one: dependencies between files should point one way, as they do between
crates.
"""
import os
import re
import sys


def modules_of(crate):
    """Module path (tuple) -> file, for every .rs file under src/."""
    src = os.path.join(crate, "src")
    found = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            parts = os.path.relpath(path, src)[:-3].split(os.sep)
            if parts[-1] in ("lib", "main", "mod"):
                parts = parts[:-1]
            found[tuple(parts)] = path
    return found


def closing_brace(code, start):
    """The index of the brace that closes the one at `code[start]` (the
    end of the code if none does)."""
    depth = 0
    for j in range(start, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code)


def code_of(path):
    """The code of a file without its comments and its test modules
    (`#[cfg(test)] mod name { ... }`; other items under `#[cfg(test)]`
    count, to be safe)."""
    with open(path, encoding="utf-8") as f:
        code = f.read()
    code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
    code = "\n".join(line.split("//")[0] for line in code.split("\n"))
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*mod\s+[a-z_][a-z0-9_]*\s*\{", code)
        if not m:
            return code
        code = code[:m.start()] + code[closing_brace(code, m.end() - 1) + 1:]


def expand(text, i, with_alias=False):
    """The paths of a use tree starting at text[i] (after a `::`), with
    their aliases (`as name`) if `with_alias`."""
    found = expand_aliased(text, i)
    return found if with_alias else [p for p, _ in found]


def expand_aliased(text, i):
    if text[i] == "{":
        depth, start, items = 0, i + 1, []
        for j in range(i, len(text)):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    items.append(text[start:j])
                    break
            elif text[j] == "," and depth == 1:
                items.append(text[start:j])
                start = j + 1
        out = []
        for item in items:
            item = item.strip()
            if item:
                out.extend(expand_aliased(item + " ", 0))
        return out
    m = re.match(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*", text[i:])
    if not m or text[i + m.end():i + m.end() + 1] == "!":
        return []  # nothing, or a macro (see the module's comment)
    path = m.group(0).split("::")
    rest = i + m.end()
    if text[rest:rest + 3] == "::{":
        return [(path + sub, alias) for sub, alias in expand_aliased(text, rest + 2)]
    alias = re.match(r"\s+as\s+([A-Za-z_][A-Za-z0-9_]*)", text[rest:])
    return [(path, alias.group(1) if alias else None)]


def resolve(modules, base, path, reexports=None, seen=()):
    """The deepest module `base + path` reaches, if any; a name that
    module imports or re-exports (`use`) leads on to where it is defined."""
    full = list(base)
    for segment in path:
        if segment == "super":
            full = full[:-1]
        elif segment != "self":
            full.append(segment)
    for n in range(len(full), -1, -1):
        module = tuple(full[:n])
        if module in modules:
            if reexports and n < len(full) and (module, full[n]) not in seen:
                target = reexports.get(module, {}).get(full[n])
                if target is False:
                    return None
                if target is not None:
                    return resolve(modules, target[0], target[1], reexports, seen + ((module, full[n]),))
            return module
    return None


def inline_modules(code):
    """The spans of the inline modules (`mod name { ... }`) of `code`."""
    spans = []
    for m in re.finditer(r"\bmod\s+[a-z_][a-z0-9_]*\s*\{", code):
        spans.append((m.end(), closing_brace(code, m.end() - 1)))
    return spans


def heads(module, children):
    """The bases the paths of `module` may start from, by their head."""
    def base(head):
        if head == "crate":
            return ()
        if head == "super":
            return module[:-1]
        if head == "self":
            return module
        if head in children:
            return module + (head,)
        return None
    return base


def reexports_of(modules):
    """Module -> {name it imports or re-exports: (base, path), or False
    for another crate's}."""
    out = {}
    for module, path in modules.items():
        children = {m[-1] for m in modules if len(m) == len(module) + 1 and m[:-1] == module}
        base_of = heads(module, children)
        # Any `use` makes a name of the module (a child module sees the
        # private ones too).
        code = code_of(path)
        inline = inline_modules(code)
        for m in re.finditer(r"(?<![A-Za-z0-9_])use\s+([a-z_][a-z0-9_]*)::", code):
            if any(a <= m.start() < b for a, b in inline):
                continue  # a name of the inline module, not of this one
            base = base_of(m.group(1))
            for sub, alias in expand(code, m.end(), with_alias=True):
                # Another crate's item (base None) leads out of this one.
                out.setdefault(module, {})[alias or sub[-1]] = base is not None and (base, sub)
    return out


def module_edges(crate):
    modules = modules_of(crate)
    reexports = reexports_of(modules)
    edges = {}
    for module, path in modules.items():
        code = code_of(path)
        children = {m[-1] for m in modules if len(m) == len(module) + 1 and m[:-1] == module}
        base_of = heads(module, children)
        inline = inline_modules(code)
        targets = set()
        for m in re.finditer(r"(?<![A-Za-z0-9_:])(crate|super|self|[a-z_][a-z0-9_]*)::", code):
            if any(a <= m.start() < b for a, b in inline):
                # Inside an inline module (a platform's code): `super` is
                # this file's module, `self` the inline one.
                if m.group(1) in ("self", "super"):
                    continue
            base = base_of(m.group(1))
            if base is None:
                continue
            for sub in expand(code, m.end()):
                target = resolve(modules, base, sub, reexports)
                if target is not None:
                    targets.add(target)
        targets.discard(module)
        edges[module] = targets
    return {name(m): {name(t) for t in ts} for m, ts in edges.items()}


def name(module):
    return "::".join(module) or "lib"


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
