"""Issue #35, game site: every measure is defined on game/methods.html and linked from where
it is shown; the model card states the "every feature defined" training rule; a site built
from telemetry files says nothing of encrypted results (docs/game-measures.md)."""
import html
import re

import pytest


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    import subprocess
    root = tmp_path_factory.mktemp("methods")
    data = root / "data"
    data.mkdir()
    subprocess.run([dossier_bin, "game", "simulate", "--players", "500", "--seed", "7", "--obstacles", "40",
                    "--out", data / "cohort.jsonl"], check=True, capture_output=True)
    (root / "dossier.yml").write_text("title: Game\ngame:\n  telemetry: data/cohort.jsonl\n  simulated: true\n  private_site: true\n")
    r = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    return root / "_site"


def anchors(page):
    return set(re.findall(r'\sid="([^"]+)"', page.read_text(encoding="utf-8")))


def methods_links(page):
    """(label, anchor) of every link into the methods page."""
    text = page.read_text(encoding="utf-8")
    return [(html.unescape(re.sub("<[^>]+>", "", label)), a)
            for a, label in re.findall(r'<a href="[./]*game/methods\.html#([^"]+)">(.*?)</a>', text)]


def test_every_shown_measure_links_to_its_definition(site):
    methods = site / "game" / "methods.html"
    defined = anchors(methods)
    for must in ["response-window", "anticipatory", "commission", "censored-tau", "commissionRate", "dPrime", "tau"]:
        assert must in defined, must
    cohort = site / "game" / "cohort" / "index.html"
    links = methods_links(cohort)
    labels = {l for l, _ in links}
    assert {"Commissions per minute", "Detectability d′", "Ex-Gaussian τ", "censored τ"} <= labels, labels
    player = next((site / "game" / "players").glob("*/index.html"))
    links += methods_links(player)
    assert len(methods_links(player)) >= 12
    for label, anchor in links:
        assert anchor in defined, (label, anchor)
    # Every label in the comparison tables is a link (no measure shown undefined).
    text = cohort.read_text(encoding="utf-8")
    assert not re.search(r'<th scope="row">(Hit RT mean|Omission rate|Commissions per minute)</th>', text)
    assert 'game/methods.html">methods page</a>' in text
    assert "game/methods.html" in (site / "game" / "index.html").read_text(encoding="utf-8")


def test_the_model_card_states_the_every_feature_defined_rule(site):
    text = (site / "game" / "cohort" / "index.html").read_text(encoding="utf-8")
    assert "every model feature defined" in text
    assert "every one of these features defined" in (site / "game" / "methods.html").read_text(encoding="utf-8")


def test_a_site_from_telemetry_files_says_nothing_of_encrypted_results(dossier_bin, tmp_path):
    import subprocess
    data = tmp_path / "data"
    data.mkdir()
    subprocess.run([dossier_bin, "game", "simulate", "--players", "40", "--seed", "3", "--obstacles", "20",
                    "--out", data / "cohort.jsonl"], check=True, capture_output=True)
    (tmp_path / "dossier.yml").write_text("title: Game\ngame:\n  telemetry: data/cohort.jsonl\n")   # aggregate-only
    r = subprocess.run([dossier_bin, "build", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "_site" / "game" / "index.html").read_text(encoding="utf-8")
    assert "aggregate-only" in text
    assert "own results are" not in text
    assert not re.search(r"\b0 players", text)
