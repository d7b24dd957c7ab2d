"""The Markdown sections that measuring scripts own in docs pages: written in place, read back whole."""

from __future__ import annotations

from pathlib import Path

from sam_env.evaluation.report import read_section, write_section


def test_a_section_is_appended_then_replaced_in_place_and_read_back(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nprose before\n", encoding="utf-8")
    assert read_section(str(page), "table") is None

    write_section(str(page), "table", "| a |\n| 1 |")
    page.write_text(page.read_text(encoding="utf-8") + "\nprose after\n", encoding="utf-8")
    write_section(str(page), "table", "| a |\n| 2 |")

    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nprose before\n")
    assert text.endswith("\nprose after\n")
    assert text.count("<!-- table:start -->") == 1
    assert read_section(str(page), "table") == "| a |\n| 2 |"


def test_a_missing_page_or_another_scripts_section_reads_as_none(tmp_path: Path) -> None:
    assert read_section(str(tmp_path / "absent.md"), "table") is None
    page = tmp_path / "page.md"
    write_section(str(page), "other", "body")
    assert read_section(str(page), "table") is None
    assert read_section(str(page), "other") == "body"
