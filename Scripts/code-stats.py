#!/usr/bin/env python3
"""Counts what makes a Swift code base hard to live in, for before/after comparisons.

    Scripts/code-stats.py [--list] [DIR ...]      (default: Sources)

Prints: Swift files, lines, `public` declarations (`public` and `open` as access modifiers;
`package` counted apart), functions (func, init, subscript, computed accessors are not split
out) longer than 80 lines, and files longer than 500 lines. With --list, names them.
A function's length runs from its declaration line to its closing brace, found by counting
braces outside string literals and comments (good enough for this code base's style).
"""

import os
import re
import sys

DECL = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:nonisolated|final|static|class|override|"
                  r"mutating|nonmutating|convenience|required|indirect|fileprivate|private|"
                  r"internal|package|public|open|lazy|weak|unowned)(?:\([^)]*\))?\s+)*"
                  r"(?:func|init|subscript|deinit)\b")
ACCESS = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:\w+\s+)*?(public|open|package)(?:\([^)]*\))?\s+"
                    r"(?:\w+\s+)*(?:func|init|subscript|var|let|struct|class|enum|protocol|"
                    r"typealias|actor|extension|case|static|final|mutating|nonisolated|"
                    r"convenience|required|indirect|override|lazy|subscript)\b")


def strip(line, state):
    """Removes string literals and comments from one line; state carries block comments and
    multi-line strings across lines."""
    out = []
    i = 0
    while i < len(line):
        if state["block"]:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out)
            state["block"] = False
            i = j + 2
            continue
        if state["multi"]:
            j = line.find('"""', i)
            if j < 0:
                return "".join(out)
            state["multi"] = False
            i = j + 3
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        if line.startswith('"""', i):
            state["multi"] = True
            i += 3
            continue
        if c == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def scan(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    state = {"block": False, "multi": False}
    code = [strip(l, state) for l in lines]
    public = package = 0
    long_functions = []
    for n, text in enumerate(code):
        m = ACCESS.match(text)
        if m:
            if m.group(1) == "package":
                package += 1
            else:
                public += 1
        if DECL.match(text):
            depth = 0
            opened = False
            for k in range(n, len(code)):
                for ch in code[k]:
                    if ch == "{":
                        depth += 1
                        opened = True
                    elif ch == "}":
                        depth -= 1
                if opened and depth <= 0:
                    break
                if not opened and k > n + 20:
                    break  # a protocol requirement: no body
            if opened:
                length = k - n + 1
                if length > 80:
                    name = re.sub(r"\s+", " ", lines[n].strip())[:90]
                    long_functions.append((length, f"{path}:{n + 1}", name))
    return len(lines), public, package, long_functions


def main():
    args = [a for a in sys.argv[1:] if a != "--list"]
    listing = "--list" in sys.argv[1:]
    roots = args or ["Sources"]
    files = []
    for root in roots:
        for d, _, names in os.walk(root):
            files += [os.path.join(d, n) for n in names if n.endswith(".swift")]
    files.sort()
    total = public = package = 0
    long_functions = []
    long_files = []
    for path in files:
        n, p, k, fs = scan(path)
        total += n
        public += p
        package += k
        long_functions += fs
        if n > 500:
            long_files.append((n, path))
    print(f"swift files: {len(files)}")
    print(f"lines: {total}")
    print(f"public declarations: {public}")
    print(f"package declarations: {package}")
    print(f"functions over 80 lines: {len(long_functions)}")
    print(f"files over 500 lines: {len(long_files)}")
    if listing:
        for length, where, name in sorted(long_functions, reverse=True):
            print(f"  {length:5d}  {where}  {name}")
        for n, path in sorted(long_files, reverse=True):
            print(f"  {n:5d}  {path}")


if __name__ == "__main__":
    main()
