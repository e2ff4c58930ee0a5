"""Issue #40's smaller game items outside the page: `Examples/game-private` builds from a
plain `cp -r` copy (no link out of the folder); the documented simulated-cohort recipe
(`dossier game simulate --help`, docs/manifest.md, the `dossier new` skeleton) yields the
model it promises, and a cohort too small for it says how many players it would take; a
player's result without a model explains it in plain words with the rule that decides
who counts (docs/game-measures.md, "The model")."""
import json
import pathlib
import re
import shlex
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_examples_game_private_builds_from_a_plain_copy(tmp_path, run_dossier):
    subprocess.run(["cp", "-r", str(REPO / "Examples" / "game-private"), str(tmp_path / "gp")], check=True)
    assert not [p for p in (tmp_path / "gp").rglob("*") if p.is_symlink()]
    for leftover in ("_site", ".dossier"):
        subprocess.run(["rm", "-rf", str(tmp_path / "gp" / leftover)], check=True)
    run_dossier("build", tmp_path / "gp", "-q")
    assert (tmp_path / "gp" / "_site" / "game" / "cohort" / "index.html").exists()
    assert list((tmp_path / "gp" / "_site" / "game" / "players").glob("*/index.html"))


def documented_recipe(run_dossier):
    """The example of `dossier game simulate --help`, which the docs repeat word for word."""
    help_text = run_dossier("game", "simulate", "--help").stdout
    (line,) = [l.strip() for l in help_text.splitlines() if "dossier game simulate --players" in l]
    cmd = line[line.index("dossier game simulate"):]
    manifest = (REPO / "docs" / "manifest.md").read_text(encoding="utf-8")
    skeleton = (REPO / "Sources" / "DossierKit" / "Project" / "SkeletonManifest.swift").read_text(encoding="utf-8")
    players = re.search(r"--players (\d+)", cmd).group(1)
    for where, text in (("docs/manifest.md", manifest), ("the dossier new skeleton", skeleton)):
        assert re.findall(r"game simulate --players (\d+)", text) == [players], f"{where} gives another recipe"
    return shlex.split(cmd)[1:]


def test_the_documented_recipe_yields_the_model(run_dossier, tmp_path):
    args = documented_recipe(run_dossier)
    out = tmp_path / "cohort.jsonl"
    args[args.index("--output") + 1] = str(out)
    run_dossier(*args)
    analysis = json.loads(run_dossier("game", "analyze", "--json", out).stdout)
    assert analysis.get("model") is not None, analysis.get("modelUnavailable")


def test_a_cohort_too_small_for_the_model_says_how_many_players_it_takes(run_dossier, tmp_path):
    out = tmp_path / "small.jsonl"
    run_dossier("game", "simulate", "--players", "220", "--seed", "1", "--output", out)
    a = json.loads(run_dossier("game", "analyze", "--json", out).stdout)
    assert a.get("model") is None
    m = re.search(r"that takes about (\d+) players in all \(it has 220\)", a["modelUnavailable"])
    assert m, a["modelUnavailable"]
    assert 400 <= int(m.group(1)) <= 700
    # A player's own result: plain words and the rule that decides who counts, no jargon.
    texts = {p["likelihood"]["unavailable"] for p in a["players"] if p["group"] in ("control", "adhd")}
    assert texts, "no player in the model's groups"
    for t in texts:
        assert "predictor" not in t and "events per" not in t, t
        assert "completed the survey, take no ADHD medicine and met at least 30 obstacles" in t, t
        assert re.search(r"needs at least \d+ such players and has fewer\.", t), t
        assert not re.search(r"has \d|\d+ with and \d+ without", t), "a player's result holds no count of players"


def test_a_player_not_counted_yet_is_told_why(run_dossier, tmp_path):
    out = tmp_path / "short.jsonl"
    run_dossier("game", "simulate", "--players", "40", "--seed", "3", "--obstacles", "8", "--output", out)
    a = json.loads(run_dossier("game", "analyze", "--json", out).stdout)
    short = [p for p in a["players"] if p["group"] in ("control", "adhd") and p["measures"]["encounters"] < 30]
    assert short, "every player met 30 obstacles"
    for p in short:
        assert p["likelihood"]["unavailable"].endswith("Your games count once you have met 30 obstacles."), p["likelihood"]
