"""The documentation site builds without a warning, and every internal link resolves.

The build is ``sphinx-build -W --keep-going -n``: warnings are errors (a broken
cross-reference, a page missing from the toctree or one the toctree names that does
not exist, an autodoc target that does not import). The link check needs no network:
it reads README.md, CONTRIBUTING.md and docs/*.md and checks that every relative link
names an existing file and, with ``#anchor``, a heading of that page (GitHub's
anchors, which docs/conf.py makes MyST generate too).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from _markdown import DOCS, ROOT, anchors, github_slug, links, pages


def test_github_slug() -> None:
    assert github_slug("Differences from EnvPool 1.2") == "differences-from-envpool-12"
    assert github_slug("JAX: `xla()`") == "jax-xla"
    assert github_slug("dm_env / Acme-style loops") == "dm_env--acme-style-loops"


def _broken_links() -> list[str]:
    broken = []
    for page in pages():
        for line, target in links(page):
            if "://" in target or target.startswith("mailto:"):
                continue  # external: not checked (no network)
            where = f"{page.relative_to(ROOT)}:{line}: {target}"
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{where} (no heading #{anchor} in {dest.relative_to(ROOT)})")
            elif anchor and dest.suffix != ".md":
                broken.append(f"{where} (an anchor into a file that is not a page)")
    return broken


def test_internal_links_resolve() -> None:
    assert len(pages()) > 10
    assert sum(len(links(p)) for p in pages()) > 30  # the check sees the links
    assert _broken_links() == []


def test_link_check_catches_broken_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A section\n")
    page.write_text(
        "# Page\n\n[ok](other.md#a-section) [ok](#page) [bad file](missing.md)\n"
        "[bad anchor](other.md#nowhere) [wrapped\ntext](#nope)\n\n```\n[in code](missing2.md)\n```\n"
    )
    import _markdown

    monkeypatch.setattr(_markdown, "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "pages", lambda: [page])
    assert _broken_links() == [
        "page.md:3: missing.md (no such file)",
        "page.md:4: other.md#nowhere (no heading #nowhere in other.md)",
        "page.md:4: #nope (no heading #nope in page.md)",
    ]


def _build(src: Path, out: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html", str(src), str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=out.parent)


@pytest.mark.slow
def test_site_builds_without_warnings(tmp_path: Path) -> None:
    proc = _build(DOCS, tmp_path / "html")
    assert proc.returncode == 0, proc.stderr[-6000:]
    # stderr may hold what imported packages print (gym's notice); no warning of Sphinx's
    problems = [line for line in proc.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    assert problems == [], proc.stderr[-6000:]
    html = tmp_path / "html"
    for page in DOCS.glob("*.md"):
        assert (html / f"{page.stem}.html").exists(), page.name
    api = (html / "api.html").read_text()
    for name in ("envpool.make", "envpool.make_spec", "envpool.register", "envpool.list_all_envs", "envpool.ray.make"):
        assert f'id="{name}"' in api, name  # autodoc found it


@pytest.mark.slow
def test_build_fails_on_orphan_page_and_broken_reference(tmp_path: Path) -> None:
    """The build's settings (docs/conf.py with -W -n) turn these into failures."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text((DOCS / "conf.py").read_text().replace('html_static_path = ["_static"]', ""))
    (src / "index.md").write_text("# Index\n\n[gone](gone.md)\n\n```{toctree}\nmissing_page\n```\n")
    (src / "stray.md").write_text("# Stray\n\n{py:func}`envpool.no_such_function`\n")
    proc = _build(src, tmp_path / "html")
    assert proc.returncode != 0
    assert "isn't included in any toctree" in proc.stderr
    assert "missing_page" in proc.stderr
    assert "gone.md" in proc.stderr
    assert "envpool.no_such_function" in proc.stderr


def test_the_test_command_is_the_same_in_readme_install_and_ci() -> None:
    """README.md and docs/install.md say their test command is what .ci/run does."""

    def command(path: Path) -> list[str]:
        return [line.strip() for line in path.read_text().splitlines() if "tools/test_wheel.sh" in line]

    ci = [line for line in command(ROOT / ".ci" / "run") if not line.startswith("#")]
    assert len(ci) == 1 and "-n 2" in ci[0]
    # the suite runs against the wheel the script installed
    assert "ENVPOOL_TEST_INSTALLED=.venv .venv/bin/python -m pytest" in ci[0]
    assert ci[0] in command(ROOT / "README.md")
    assert ci[0] in command(DOCS / "install.md")


def test_tasks_page_names_every_listed_task_of_the_small_families() -> None:
    """docs/tasks.md names each classic-control, Box2D and toy-text id (Atari, MuJoCo and
    dm_control are described by pattern)."""
    from _registry import builtin_tasks

    ids = builtin_tasks("classic_control", "box2d", "toy_text")
    text = (DOCS / "tasks.md").read_text()
    assert len(ids) > 25
    assert [t for t in ids if f"`{t}`" not in text] == []


def test_tasks_page_examples_are_registered() -> None:
    """Every id docs/tasks.md writes out in full (not a pattern) is one make() takes, and each
    family's row is there."""
    import envpool

    text = (DOCS / "tasks.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    named = {t for t in re.findall(r"`([^`]+)`", "\n".join(rows)) if re.fullmatch(r"[\w/.-]+-v\d+", t)}
    assert len(named) > 50
    assert sorted(named - set(envpool.list_all_envs())) == []
    kinds = {line.split("|")[1].strip() for line in rows}
    for kind in ("BabyAI", "MiniGrid", "Procgen", "Gymnasium-Robotics", "Meta-World", "Atari", "Box2D"):
        assert kind in kinds


def _layout_block() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    return text.split("## Layout", 1)[1].split("```", 2)[1]


def _unlisted(block: str, parent: str) -> list[str]:
    """The folders of ``parent`` that the layout names neither as ``parent/<name>/`` nor as an
    indented ``<name>/`` entry."""
    folders = sorted(p.name for p in (ROOT / parent).iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    return [
        f
        for f in folders
        if f"{parent}/{f}/" not in block and not re.search(rf"^ +{re.escape(f)}/ ", block, re.MULTILINE)
    ]


def test_contributing_layout_names_every_folder() -> None:
    """CONTRIBUTING.md's layout names every folder of cpp/ and of the envpool package, so a
    family or subpackage added later cannot be left out of the newcomer's map."""
    block = _layout_block()
    assert "cpp/core/" in block
    assert _unlisted(block, "cpp") == []
    assert _unlisted(block, "src/envpool") == []
    # the check itself: a folder the layout does not name is found
    assert _unlisted(block.replace("toy_text/", "toy-text"), "cpp") == ["toy_text"]
