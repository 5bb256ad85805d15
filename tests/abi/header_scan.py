"""header_scan.py — what an mpi.h defines: macros, enum constants, typedefs, prototypes.

Shared by check_constants.py and check_prototypes.py.  The header is run
through the C preprocessor (so #if and #undef are honoured, and comments are
gone), and only text from the header's own directories is read, so names
that <stdint.h> brings in are never mistaken for the header's.
"""

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# The names the MPI standard (and implementations' extensions) own.
MPI_NAME = re.compile(r"^(?:P?MPIX?|QMPI|UZURA)_\w+$")
IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Header:
    """One mpi.h as a compiler sees it."""
    label: str                 # "Uzura", "MPICH"
    include: str               # what to #include, e.g. "mpi.h"
    include_dirs: list
    cc: str = "cc"
    macros: dict = field(default_factory=dict)       # name -> replacement text
    fn_macros: set = field(default_factory=set)      # function-like macros
    enums: set = field(default_factory=set)          # enumerator names
    typedefs: dict = field(default_factory=dict)     # name -> statement text
    prototypes: dict = field(default_factory=dict)   # name -> (return, [param types])

    def constants(self):
        """Every name with a value: object-like macros and enumerators."""
        return set(self.macros) | self.enums

    def scan(self):
        self._scan_macros()
        own = self._own_text()
        self._scan_enums(own)
        for stmt in _statements(own):
            if stmt.startswith("typedef"):
                name = _typedef_name(stmt)
                if name and MPI_NAME.match(name):
                    self.typedefs[name] = stmt
            else:
                proto = _prototype(stmt)
                if proto and MPI_NAME.match(proto[0]):
                    self.prototypes[proto[0]] = proto[1:]
        return self

    # -------------------------------------------------------------- helpers

    def _cpp(self, *flags):
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp, "scan.c")
            src.write_text(f"#include <{self.include}>\n")
            cmd = [self.cc, "-E", *flags] + [f"-I{d}" for d in self.include_dirs] + [str(src)]
            res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"{self.label}: preprocessing {self.include} failed:\n{res.stderr}")
        return res.stdout

    def _scan_macros(self):
        for line in self._cpp("-dM").splitlines():
            m = re.match(r"#define (\w+)(\(?)\s*(.*)$", line)
            if not m or not MPI_NAME.match(m.group(1)):
                continue
            name, paren, value = m.groups()
            if paren:
                self.fn_macros.add(name)
            elif value.strip():            # empty ones are include guards
                self.macros[name] = value.strip()

    def _own_text(self):
        """The preprocessed text that came from the header's own directories."""
        dirs = [os.path.realpath(d) + os.sep for d in self.include_dirs]
        keep, out = False, []
        for line in self._cpp().splitlines():
            if line.startswith("# "):
                m = re.match(r'# \d+ "([^"]+)"', line)
                if m:
                    path = os.path.realpath(m.group(1))
                    keep = any(path.startswith(d) for d in dirs)
                continue
            if keep:
                out.append(line)
        return "\n".join(out)

    def _scan_enums(self, text):
        for body in re.findall(r"\benum\b\s*\w*\s*\{(.*?)\}", text, re.S):
            for item in body.split(","):
                m = IDENT.match(item.strip())
                if m and MPI_NAME.match(m.group(0)):
                    self.enums.add(m.group(0))


def _statements(text):
    """Top-level declarations: split on ';' outside braces, whitespace folded."""
    depth, cur, out = 0, [], []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == ";" and depth == 0:
            out.append(" ".join("".join(cur).split()))
            cur = []
        else:
            cur.append(ch)
    return [s for s in out if s]


def _typedef_name(stmt):
    """`typedef int (MPI_X)(...)`, `typedef struct {..} MPI_X`, `typedef A *MPI_X`."""
    m = re.match(r"typedef [^(]*\(\s*\*?\s*(\w+)\s*\)\s*\(", stmt)
    if m:
        return m.group(1)
    names = IDENT.findall(re.sub(r"\{.*\}", " ", stmt, flags=re.S))
    return names[-1] if names else None


def _prototype(stmt):
    """(name, return type, [parameter types]) of a function declaration, or None."""
    stmt = re.sub(r"^extern\s+", "", stmt)
    stmt = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", stmt)
    m = re.match(r"^(.+?)\b(\w+)\s*\((.*)\)\s*$", stmt, re.S)
    if not m or "(" in m.group(1):
        return None
    ret, name, params = m.groups()
    types = [normalize_param(p) for p in _split_params(params)]
    if types == ["void"]:
        types = []
    return name, normalize_type(ret), types


def _split_params(params):
    depth, cur, out = 0, "", []
    for ch in params:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


# Words that are part of a type, never a parameter's name.
TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed",
              "unsigned", "_Bool", "struct", "enum", "union", "const", "volatile"}


def normalize_type(t):
    """Drop qualifiers and spacing; a parameter's `T[]` or `T[n]` becomes `T*`
    (what the callee receives), so `int ranges[][3]` is `int*[3]`."""
    t = re.sub(r"\b(const|volatile|restrict|__restrict)\b", " ", t)
    t = re.sub(r"\[[^\]]*\]", "*", t, count=1)
    t = re.sub(r"\s*([*\[\]()])\s*", r"\1", " ".join(t.split()))
    return t.strip()


def normalize_param(p):
    """A parameter's type without its name: `const int recvcounts[]` -> `int*`."""
    p = " ".join(p.split())
    if p == "...":
        return p
    # The name is the last identifier before any array brackets, unless it is a
    # type word or the parameter is a bare type name (one identifier).
    m = re.match(r"^(.*?)(\w+)\s*((?:\[[^\]]*\]\s*)*)$", p)
    if m:
        head, last, arrays = m.groups()
        if last not in TYPE_WORDS and IDENT.search(re.sub(r"\b(const|volatile)\b", "", head)):
            p = head + arrays
    return normalize_type(p)
