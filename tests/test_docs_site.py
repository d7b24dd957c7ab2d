"""The docs site builds in strict mode: a broken link, a missing page or a bad cross-reference fails.

``mkdocs build --strict`` (``mkdocs.yml``) turns every warning into an error: a link or an anchor between
pages that leads nowhere, a page in ``docs/`` that the nav leaves out, a nav entry without a page, a
cross-reference from a page or a docstring that resolves to nothing, a docstring mkdocstrings cannot
parse. The API reference is generated from the docstrings in the same build, offline (no plugin fetches
anything). The other tests here check that the strict build does refuse each kind of fault, on a small
site that inherits the project's configuration.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``config`` into ``site``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )


def test_the_docs_site_builds_strict(tmp_path: Path) -> None:
    done = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    site = tmp_path / "site"
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    assert {"index.html", "rules.html", "api/core.html", "api/training.html"} <= pages  # pages are files
    api = (site / "api" / "core.html").read_text(encoding="utf-8")
    assert 'id="sam_env.core.rules.RuleConfig"' in api  # the reference is generated from the code
    agents = (site / "api" / "agents.html").read_text(encoding="utf-8")
    assert 'href="env.html#sam_env.bot.Bot"' in agents  # a docstring's :class:`Bot` became a link
    assert not links_that_do_not_open_from_a_file(site)


def links_that_do_not_open_from_a_file(site: Path) -> dict[str, list[str]]:
    """The site's relative links that lead to a folder or to nothing: opened from a file:// path (no web
    server to serve a folder's index.html), they show a listing or fail. 404.html is a web server's page."""
    found: dict[str, list[str]] = {}
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":
            continue
        for href in re.findall(r'href="([^"#]*)', page.read_text(encoding="utf-8")):
            if href and not re.match(r"[a-z][a-z0-9+.-]*:|//", href) and not (page.parent / href).is_file():
                found.setdefault(page.relative_to(site).as_posix(), []).append(href)
    return found


def test_a_link_to_a_folder_is_caught(tmp_path: Path) -> None:
    """What use_directory_urls: true (mkdocs' default) writes: rules/ for rules/index.html."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "index.html").write_text('<a href="../index.html#top">home</a>', encoding="utf-8")
    links = '<a href="rules/">rules</a> <a href="rules/index.html">ok</a> <a href="https://x.org/">ok</a>'
    (tmp_path / "index.html").write_text(links + ' <a href="gone.html">', encoding="utf-8")
    assert links_that_do_not_open_from_a_file(tmp_path) == {"index.html": ["rules/", "gone.html"]}


SMALL_SITE = """\
INHERIT: {root}/mkdocs.yml
docs_dir: docs
nav:
  - index.md
plugins:
  - search
  - mkdocstrings:
      handlers:
        python:
          paths: [code, {root}]
          options:
            extensions: [docs/_ext/sphinx_roles.py:SphinxRoles]
"""
API = "\n\n::: apps\n"
"""Renders the small site's package ``apps``, so that a cross-reference to ``apps.Game`` resolves."""


def small_site(folder: Path, pages: dict[str, str], docstring: str = "The apps.") -> Path:
    """A site of ``pages`` in ``folder`` with the project's configuration, its nav only ``index.md``; in
    its code folder, first on the API reference's path, a package ``apps`` with ``docstring``."""
    (folder / "code" / "apps").mkdir(parents=True)
    (folder / "code" / "apps" / "__init__.py").write_text(f'"""{docstring}"""\n\nclass Game:\n    """A game."""\n')
    shutil.copytree(ROOT / "docs" / "_ext", folder / "docs" / "_ext")
    for name, text in pages.items():
        (folder / "docs" / name).write_text(text, encoding="utf-8")
    config = folder / "mkdocs.yml"
    config.write_text(SMALL_SITE.format(root=ROOT.as_posix()), encoding="utf-8")
    return config


def test_a_sound_small_site_builds(tmp_path: Path) -> None:
    """The faults below are what fails their builds, not the small site itself."""
    pages = {"index.md": "# Home\n\n[Up](#home), [`Game`][apps.Game]." + API}
    config = small_site(tmp_path, pages, docstring="See :class:`Game`, :class:`~apps.Game` and :class:`numpy.ndarray`.")
    done = build(config, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert html.count('href="#apps.Game"') >= 3 and "numpy.ndarray" in html  # the roles: two links, one code


@pytest.mark.parametrize(
    ("pages", "message"),
    [
        ({"index.md": "# Home\n\n[the rules](rules.md)\n"}, "rules.md"),
        ({"index.md": "# Home\n\n[a section](#no-such-section)\n"}, "no-such-section"),
        ({"index.md": "# Home\n", "orphan.md": "# Not in the nav\n"}, "orphan.md"),
        ({"index.md": "# Home\n\nSee [`Game`][apps.NoSuchGame]." + API}, "apps.NoSuchGame"),
    ],
    ids=["broken link", "broken anchor", "page not in the nav", "bad cross-reference"],
)
def test_the_strict_build_refuses_what_leads_nowhere(tmp_path: Path, pages: dict[str, str], message: str) -> None:
    done = build(small_site(tmp_path, pages), tmp_path / "site")
    assert done.returncode != 0 and message in done.stderr, done.stdout + done.stderr


def test_the_strict_build_refuses_a_docstring_role_that_resolves_nowhere(tmp_path: Path) -> None:
    """The docstrings' Sphinx roles (docs/_ext/sphinx_roles.py) are checked too, not left as dead text."""
    config = small_site(tmp_path, {"index.md": "# Home" + API}, docstring="See :class:`NoSuchGame`.")
    done = build(config, tmp_path / "site")
    assert done.returncode != 0 and "cannot resolve the cross-reference :class:`NoSuchGame`" in done.stderr, (
        done.stdout + done.stderr
    )
