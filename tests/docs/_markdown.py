"""What the docs tests read from the markdown pages: fenced code blocks (with the
``<!-- test: ... -->`` mark before each), links, and headings' GitHub-style anchors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """README.md, CONTRIBUTING.md and every page of the site."""
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    mark: str | None  # the text of a "<!-- test: ... -->" comment right before the block


_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\S*)")
_MARK = re.compile(r"^<!--\s*test:\s*(.*?)\s*-->\s*$")


def blocks(path: Path) -> list[Block]:
    out: list[Block] = []
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        prev = i - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        mark = _MARK.match(lines[prev]) if prev >= 0 else None
        out.append(Block(path, i + 1, lang, "\n".join(lines[i + 1 : j]) + "\n", mark.group(1) if mark else None))
        i = j + 1
    return out


def prose(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of every line outside fenced blocks."""
    out, fence = [], None
    for n, line in enumerate(path.read_text().split("\n"), 1):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and line.startswith(fence):
            fence = None
        elif fence is None:
            out.append((n, line))
    return out


def github_slug(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", title.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, line in prose(path):
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = github_slug(m.group(2))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


# [text](target) and [text](target "title"); images too. Inline code spans are
# blanked first, so that `a[i](x)` in code is not a link.
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every link outside fenced blocks (a link's text may wrap lines)."""
    text = ["" for _ in path.read_text().split("\n")]
    for n, line in prose(path):
        text[n - 1] = re.sub(r"`[^`\n]*`", "``", line)
    joined = "\n".join(text)
    return [(joined.count("\n", 0, m.start()) + 1, m.group(1)) for m in _LINK.finditer(joined)]
