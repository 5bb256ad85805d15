"""doc_page.py — write a generated documentation page, or check that it is current.

Shared by the scripts that put generated text into docs/ (gen_tools_doc.py,
gen_coll_table.py): with --check they print a diff and the command that
regenerates the page, and return 1 when it is stale.
"""

import difflib
import sys
from pathlib import Path


def write_or_check(page: Path, name: str, text: str, check: bool, regenerate: str) -> int:
    """Write `text` to `page` (shown as `name`), or with `check` compare it."""
    if not check:
        page.write_text(text)
        return 0
    old = page.read_text() if page.exists() else ""
    if old == text:
        return 0
    sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), name, "generated"))
    print(f"{name} is stale: run {regenerate}")
    return 1
