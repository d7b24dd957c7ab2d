"""Every reference to a doc page or to a section of the rules leads somewhere.

- ``docs/<page>.md`` (or a figure, ``docs/<name>.png``), named anywhere in the code, tests, configs and
  docs, must exist; with an ``#anchor``, the page must have a heading with that anchor.
- ``§N`` names section N of docs/rules.md, the specification: the page must have a heading ``## N. …``
  (ranges such as ``§3–§5`` or ``§3–4`` need every section between). A file that cites a section must
  also name docs/rules.md (a docs page may link ``rules.md`` instead), so that its reader knows which
  page the number belongs to.
- A config named by its path in the repository (``configs/sb3.yaml``, ``configs/past_runs/ppo_v1.yaml``,
  ``apps/configs/exploit.yaml``, ``tests/training/configs/smoke.yaml``) must exist: configs move, and a
  command that names a moved one leads nowhere. CHANGELOG.md keeps the names of its time.
- The rule and style notes the project was started from are not in the repository, so nothing may cite
  them by their file names.

Links between the docs pages, and anchors in them, are checked by the strict build of the docs site
(``tests/test_docs_site.py``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".cff", ".js", ".html", ".css", ".txt", ".cfg", ".ini"}
SKIPPED_DIRS = {"runs", "results", "site", "build", "dist", "__pycache__", "node_modules"}
"""Run outputs, build outputs and caches: not the repository's own text (hidden folders are skipped too)."""

PAGE = re.compile(r"\bdocs/(?P<path>[A-Za-z0-9_./-]+?\.(?:md|png|svg|jpg))(?:#(?P<anchor>[A-Za-z0-9_-]+))?")
SECTION = re.compile(r"§\s*(?P<first>\d+)(?:\s*[–-]\s*§?\s*(?P<last>\d+))?")
CONFIG = re.compile(r"(?<![\w/.-])(?P<path>(?:apps/|tests/training/)?configs/[A-Za-z0-9_./-]+?\.ya?ml)\b")
"""A config named by its path from the repository root (not ``sam_env/configs/...`` inside an install)."""
GONE = re.compile(r"\b(?:RULES|STYLE)\.md\b")
"""The notes outside the repository: a citation of them leads nowhere a user can follow."""
NUMBERED = re.compile(r"^##\s+(\d+)\.\s", flags=re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", flags=re.M)


def text_files() -> list[Path]:
    """The repository's own text files (``.ci/run`` included)."""
    found = [ROOT / ".ci" / "run"]
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS and not d.endswith(".egg-info")
        )
        found += [Path(folder) / f for f in sorted(files) if Path(f).suffix in SUFFIXES]
    return found


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings, as the docs site builds them."""
    return {slugify(title, "-") for title in HEADING.findall(page.read_text(encoding="utf-8"))}


def rule_sections() -> set[int]:
    return {int(n) for n in NUMBERED.findall(RULES.read_text(encoding="utf-8"))}


def problems_in(text: str, where: Path, sections: set[int]) -> list[str]:
    """What in ``text`` (the contents of the file ``where``) leads nowhere, one message each."""
    found = []
    for match in PAGE.finditer(text):
        target = ROOT / "docs" / match["path"]
        line = text.count("\n", 0, match.start()) + 1
        if not target.is_file():
            found.append(f"line {line}: {match[0]} does not exist")
        elif match["anchor"] and match["anchor"] not in anchors(target):
            found.append(f"line {line}: {match[0]}: the page has no heading with the anchor #{match['anchor']}")
    cited = False
    for match in SECTION.finditer(text):
        cited = True
        first = int(match["first"])
        last = int(match["last"]) if match["last"] else first
        missing = [n for n in range(first, last + 1) if n not in sections]
        if missing or last < first:
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"line {line}: {match[0]} names a section docs/rules.md does not have")
    names_rules = "docs/rules.md" in text or (where.parent == ROOT / "docs" and "(rules.md" in text)
    if cited and not names_rules and where != RULES:
        found.append("cites a section (§) but never names docs/rules.md, the page its numbers belong to")
    if where.name != "CHANGELOG.md":
        for match in CONFIG.finditer(text):
            if not (ROOT / match["path"]).is_file():
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"line {line}: {match['path']} does not exist (the recipes are in configs/)")
    for match in GONE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append(f"line {line}: {match[0]} is not in the repository (the rules: docs/rules.md)")
    return found


def test_the_rules_page_numbers_its_sections_one_to_n() -> None:
    numbers = [int(n) for n in NUMBERED.findall(RULES.read_text(encoding="utf-8"))]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 13, numbers


def test_the_scan_sees_the_code_tests_configs_and_docs() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in text_files()}
    assert {"README.md", "docs/rules.md", "sam_env/core/game.py", "configs/default.yaml", ".ci/run"} <= names
    assert any(n.startswith("tests/scenarios/") for n in names)
    assert not any(n.startswith((".git/", ".venv/")) or "/__pycache__/" in n for n in names)


@pytest.mark.parametrize("path", text_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_reference_leads_somewhere(path: Path) -> None:
    if path == Path(__file__):
        return  # this checker names the notes it forbids; its own examples are tested below
    found = problems_in(path.read_text(encoding="utf-8"), path, rule_sections())
    assert not found, f"{path.relative_to(ROOT)}: " + "; ".join(found)


def test_the_checker_catches_what_leads_nowhere() -> None:
    """Each kind of broken reference is reported, and sound ones are not."""
    sections = rule_sections()
    code = ROOT / "sam_env" / "example.py"
    sound = "See docs/rules.md §7 and §3–§5, §3–4, docs/rules.md#12-summary-of-payments, docs/baselines.png."
    assert problems_in(sound, code, sections) == []
    assert problems_in("docs/nope.md", code, sections) == ["line 1: docs/nope.md does not exist"]
    assert problems_in("docs/rules.md#no-such-heading", code, sections) == [
        "line 1: docs/rules.md#no-such-heading: the page has no heading with the anchor #no-such-heading"
    ]
    beyond = max(sections) + 1
    assert problems_in(f"docs/rules.md\n§{beyond}", code, sections) == [
        f"line 2: §{beyond} names a section docs/rules.md does not have"
    ]
    assert problems_in(f"docs/rules.md §12–§{beyond}", code, sections) == [
        f"line 1: §12–§{beyond} names a section docs/rules.md does not have"
    ]
    assert problems_in("the upper seat (§7)", code, sections) == [
        "cites a section (§) but never names docs/rules.md, the page its numbers belong to"
    ]
    assert problems_in("[the rules](rules.md) §7", ROOT / "docs" / "baselines.md", sections) == []
    assert problems_in("python train.py --config configs/sb3.yaml; sam_env/configs/no.yaml", code, sections) == []
    assert problems_in("see tests/training/configs/smoke.yaml and apps/configs/exploit.yaml", code, sections) == []
    moved = "configs/" + "smoke.yaml"
    expected = [f"line 1: {moved} does not exist (the recipes are in configs/)"]
    assert problems_in(f"`{moved}`", code, sections) == expected
    gone = "RULES" + ".md"
    assert problems_in(gone, code, sections) == [f"line 1: {gone} is not in the repository (the rules: docs/rules.md)"]
