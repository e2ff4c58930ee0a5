"""The recall test kit of a study with several string sets (docs/recall-kit.md, "Several
string sets"), in real headless Chromium: the administrator page chooses the set new
sessions use, a session keeps its set through a reload and a later change of the choice,
the exported log names its set and carries that set's strings, and Dossier files the
participant under that set's summary.
"""
import csv
import json
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from selenium.webdriver.support.ui import Select  # noqa: E402

from recall_kit_driver import Player, export_log, play_whole_session, start_browser  # noqa: E402

WAVE1 = ["ab1", "Qz2", "k9w", "m3p", "x7yv", "p4d", "c8n", "t5e", "w2r", "h6gj"]
WAVE2 = ["zz9", "Hq4", "r2d", "b7u", "y3kx", "f8s", "n1v", "g6o", "e4l", "j5mc"]


def two_set_project(root: pathlib.Path, run_dossier):
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "w1.txt").write_text("\n".join(WAVE1) + "\n", encoding="utf-8")
    (root / "data" / "w2.txt").write_text("\n".join(WAVE2) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text(
        "title: Kit sets\nrecall:\n  strings: {wave1: data/w1.txt, wave2: data/w2.txt}\n  logs: data/logs\n  kit: true\n",
        encoding="utf-8")
    run_dossier("build", root)
    return root / "_site" / "recall" / "kit"


def choose(d, admin_url, name):
    d.get(admin_url)
    Select(d.find_element("id", "set-choice")).select_by_value(name)
    assert "use string set " + name in d.find_element("id", "status").text


def target_text(d):
    return d.find_element("id", "target").text


def test_the_administrator_chooses_the_set_and_each_session_keeps_its_own(tmp_path, run_dossier):
    kit = two_set_project(tmp_path / "study", run_dossier)
    admin, test = (kit / "admin.html").as_uri(), (kit / "index.html").as_uri()
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    d = start_browser(downloads, False)
    try:
        d.get(admin)
        options = [(o.get_attribute("value"), o.text) for o in Select(d.find_element("id", "set-choice")).options]
        assert options == [("wave1", "wave1 (default)"), ("wave2", "wave2")]
        assert Select(d.find_element("id", "set-choice")).first_selected_option.get_attribute("value") == "wave1"

        # A whole session of wave 2: Verify only says OK for wave 2's strings.
        choose(d, admin, "wave2")
        d.get(test)
        p = Player(d, False, "W2-01", WAVE2)
        play_whole_session(p, practice=False)
        assert d.find_element("css selector", 'section[data-page="thankyou"]').is_displayed()
        exported = export_log(d, admin, downloads)
        cells = [c.text for c in d.find_elements("css selector", "#sessions tr td")]
        assert "wave2" in cells, cells

        # The next participant under wave 1; switching the choice mid-session does not move it.
        choose(d, admin, "wave1")
        d.find_element("id", "next-participant").click()
        d.get(test)
        q = Player(d, False, "W1-01", WAVE1)
        q.begin()
        assert target_text(d) == WAVE1[0]
        choose(d, admin, "wave2")
        d.get(test)                                # resumes the wave 1 session
        assert d.find_element("css selector", 'section[data-page="memorize"]').is_displayed()
        assert target_text(d) == WAVE1[0]
        d.get(admin)
        rows = [[c.text for c in r.find_elements("css selector", "th, td")] for r in d.find_elements("css selector", "#sessions tr")]
        assert [r[:2] for r in rows] == [["W2-01", "wave2"], ["W1-01", "wave1"]], rows
        # the choice and the new column keep the page accessible (axe-core, both schemes)
        try:
            from page_checks import axe_source, run_axe
            source = axe_source()
        except pytest.skip.Exception:
            source = None
        if source:
            for scheme in ("light", "dark"):
                d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                d.get(admin)
                d.execute_script(source)
                assert run_axe(d) == [], scheme
    finally:
        d.quit()

    header = json.loads(exported.read_text(encoding="utf-8").splitlines()[0])
    assert header["set"] == "wave2" and header["strings"] == WAVE2

    # Dossier files the exported session under wave 2, compared with wave 2's strings.
    study = tmp_path / "study"
    shutil.copy(exported, study / "data" / "logs" / "w2-01.jsonl")
    build = run_dossier("build", study)
    assert "warning" not in build.stderr.lower(), build.stderr
    with open(study / "_site" / "recall" / "sets.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert [(r["string_set"], r["participant"], r["complete"]) for r in rows] == [("wave2", "W2-01", "True")]
    # every set's summary links the kit
    for name in ("wave1", "wave2"):
        page = (study / "_site" / "recall" / "sets" / name / "index.html").read_text(encoding="utf-8")
        assert 'href="../../kit/admin.html"' in page, name


def test_one_set_kit_has_no_choice(tmp_path, run_dossier):
    root = tmp_path / "one"
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(WAVE1) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("title: One\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n  kit: true\n",
                                      encoding="utf-8")
    run_dossier("build", root)
    admin = (root / "_site" / "recall" / "kit" / "admin.html").read_text(encoding="utf-8")
    assert "<select id=\"set-choice\"" not in admin and "string set</th>" not in admin
    assert '"sets"' not in admin
