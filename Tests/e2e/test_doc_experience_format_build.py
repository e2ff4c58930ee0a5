"""Oracle for docs/experience-format.md: the build (slugs, refusals) and the import of tours.

Expected values from docs/experience-format.md alone: the slug rule of *Where the files
are* (Unicode lower case, then every run of other characters one `-`), "a build stops on
any error (exit status 1, nothing written)", and the import tables (angles wrapped and
clamped, Marzipano's pitch turned upward, shortened labels, remote images refused).
"""
import json
import math
import os
import shutil
import subprocess

import pytest

from conftest import dossier_path
from test_doc_experience_format import validate, write_media
from test_doc_experience_format_more import exp_text, write


def run(*args, cwd):
    return subprocess.run([dossier_path(), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.fixture
def folder(tmp_path):
    write_media(tmp_path)
    return tmp_path


# MARK: - The build: slugs, refusals


def project(tmp_path):
    proc = run("new", "p", "--with", "experiences", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    xp = tmp_path / "p" / "data" / "experiences"
    write_media(xp)
    return tmp_path / "p", xp


SLUGS = {"My Visit!.json": "my-visit", "Zahnärztin.json": "zahn-rztin", "---.json": "experience",
         "\u212a.json": "k", "\u0130x.json": "i-x", "A__B 9.json": "a-b-9", "-x-.json": "x"}


def test_slugs_name_the_site_folders(tmp_path):
    root, xp = project(tmp_path)
    for i, name in enumerate(SLUGS):
        write(xp, name, exp_text(f"Title {i:02}"))
    (xp / "sources").mkdir()
    write(xp / "sources", "tour.json", "not an experience")
    proc = run("build", root, "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for slug in SLUGS.values():
        assert (root / "_site" / "experiences" / slug).is_dir(), slug


def test_a_name_of_only_other_characters_gets_the_slug_experience(tmp_path):
    root, xp = project(tmp_path)
    write(xp, "ü.json", exp_text("Umlaut"))
    assert run("build", root, "-q", cwd=tmp_path).returncode == 0
    assert (root / "_site" / "experiences" / "experience").is_dir()


def snapshot(root):
    """Every file but the build's lock (`._site.lock`, which holds the builder's process id)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(".lock")}


@pytest.mark.parametrize("bad", ["slug", "rule"])
def test_a_refused_build_writes_nothing(tmp_path, bad):
    root, xp = project(tmp_path)
    write(xp, "good.json", exp_text("Good one"))
    assert run("build", root, "-q", cwd=tmp_path).returncode == 0
    before = snapshot(root)
    if bad == "slug":
        write(xp, "GOOD.json", exp_text("Other one"))
        where = "data/experiences/"
    else:
        write(xp, "z.json", '{"title": "Zzzz",\n "panoramas": [{"title": "Hall", "image": "media/a.jpg",\n'
                            ' "triggers": [{"kind": "door", "yaw": 0, "pitch": 0, "label": "In",'
                            ' "target": "nowhere"}]}]}')
        where = ('data/experiences/z.json:3: door "In" leads to panorama "nowhere", '
                 'which is not in this experience')
    added = snapshot(root)
    proc = run("build", root, "-q", cwd=tmp_path)
    assert proc.returncode == 1 and where in proc.stderr, proc.stderr
    assert snapshot(root) == added, "a refused build changed the project"
    assert set(added) - set(before) == {str(p.relative_to(root)) for p in xp.glob("*.json")} - set(before)
    shutil.rmtree(root / "_site")
    assert run("build", root, "-q", cwd=tmp_path).returncode == 1
    assert not (root / "_site").exists()


# MARK: - Importing tours


def shorten(s):
    """format.md *Shortened labels*."""
    if len(s) <= 40:
        return s
    cut = [k for k in range(1, 40) if s[k] == " " and s[:k].strip(" ")]
    return (s[:max(cut)].rstrip(" ") if cut else s[:39]) + "…"


def wrap(d):
    d = math.fmod(d + 180, 360)
    return (d + 360 if d < 0 else d) - 180


def test_pannellum_import_converts_as_the_table_says(folder):
    text = "Go to the big pond where the ducks swim every day"
    nospace = "x" * 45
    tour = {"default": {"firstScene": "pond", "basePath": "media"},
            "scenes": {"lobby": {"title": "Lobby", "panorama": "a.jpg", "yaw": 190, "pitch": -100, "hotSpots": [
                {"type": "scene", "sceneId": "pond", "pitch": 100, "yaw": " 100 ", "text": text},
                {"type": "scene", "sceneId": "pond", "pitch": "abc", "yaw": 370, "text": nospace},
                {"type": "info", "pitch": 1, "yaw": -190, "text": "Wait here with me"},
                {"type": "scene", "sceneId": "ghost", "pitch": 1, "yaw": 2}]},
                "pond": {"title": "Pond", "panorama": "a.jpg", "hotSpots": [
                    {"type": "scene", "sceneId": "lobby", "pitch": 0, "yaw": 0, "targetYaw": 200}]}}}
    (folder / "tour.json").write_text(json.dumps(tour, indent=1))
    proc = run("experiences", "import", "pannellum", "tour.json", "--title", "Park walk", "--output", "out.json",
               cwd=folder)
    assert proc.returncode == 0, proc.stderr
    got = json.loads((folder / "out.json").read_text())
    assert got["title"] == "Park walk" and got["firstPanorama"] == "pond"
    lobby, pond = got["panoramas"]
    assert (lobby["id"], lobby["image"], pond["image"]) == ("lobby", "media/a.jpg", "media/a.jpg")
    assert lobby["startYaw"] == pytest.approx(wrap(190)) and lobby["startPitch"] == -90
    t = lobby["triggers"]
    assert [x["kind"] for x in t] == ["door", "door", "note"]
    assert (t[0]["label"], t[0]["yaw"], t[0]["pitch"]) == (shorten(text), 100, 90)
    assert (t[1]["label"], t[1]["yaw"], t[1]["pitch"]) == (shorten(nospace), wrap(370), 0)
    assert (t[2]["label"], t[2]["text"], t[2]["yaw"]) == ("Wait here with me", "Wait here with me", wrap(-190))
    assert pond["triggers"][0]["targetYaw"] == pytest.approx(wrap(200))
    assert 'hot spot 2 of scene "lobby": pitch is "abc", not a number; 0 was used' in proc.stderr
    assert "ghost" in proc.stderr and ": warning: " in proc.stderr
    assert validate("out.json", cwd=folder).returncode == 0


def test_marzipano_pitch_is_turned_upward_and_rounded(folder):
    data = {"scenes": [
        {"id": "0-gate", "name": "Gate", "initialViewParameters": {"yaw": 0.5, "pitch": -0.1},
         "linkHotspots": [{"yaw": 3.3, "pitch": 0.26, "rotation": 0, "target": "1-pond"}],
         "infoHotspots": [{"yaw": -0.2, "pitch": -0.5, "title": "Hi", "text": "Look at the ducks"}]},
        {"id": "1-pond", "name": "Pond", "linkHotspots": [{"yaw": 0, "pitch": 0, "target": "0-gate"}]}],
        "name": "Park"}
    (folder / "data.js").write_text("var APP_DATA = " + json.dumps(data, indent=1) + ";\n")
    proc = run("experiences", "import", "marzipano", "data.js", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    gate = got["panoramas"][0]
    deg = 180 / math.pi
    assert gate["startYaw"] == round(0.5 * deg, 2) and gate["startPitch"] == round(0.1 * deg, 2)
    door, note = gate["triggers"]
    assert (door["kind"], door["target"], door["label"]) == ("door", "1-pond", "Go to Pond")
    assert door["yaw"] == round(wrap(3.3 * deg), 2) and door["pitch"] == round(-0.26 * deg, 2)
    assert (note["kind"], note["label"], note["text"], note["pitch"]) == ("note", "Hi", "Look at the ducks",
                                                                        round(0.5 * deg, 2))


def test_a_remote_image_stops_the_import_and_writes_nothing(folder):
    tour = {"default": {"basePath": "//cdn.example.org/p"}, "scenes": {"a": {"title": "Aaaa", "panorama": "a.jpg"}}}
    (folder / "tour.json").write_text(json.dumps(tour))
    proc = run("experiences", "import", "pannellum", "tour.json", "--output", "out.json", cwd=folder)
    assert proc.returncode == 1 and "tour.json" in proc.stderr
    assert not (folder / "out.json").exists() and not [p for p in os.listdir(folder) if p.startswith("out.json")]


# "1." is left out: "digits with an optional `.` and fraction" can be read either way (the import takes it as 1)
NOT_DECIMAL = ["0x10", "inf", "1e400", "e2", "1e", "- 5", "nan"]
DECIMAL = {"100": 100, " -2.5 ": -2.5, "+5": 5, ".5": 0.5, "1e2": 100, "1E+1": 10}


@pytest.mark.parametrize("text", NOT_DECIMAL)
def test_text_that_is_not_a_decimal_number_is_0_with_a_warning(folder, text):
    """format.md Importing tours: a number written as a string is a decimal number ('0x10',
    'inf', '1e400' are not numbers); not a number, the yaw is 0 with a warning."""
    tour = {"scenes": {"a": {"title": "Aaaa", "panorama": "a.jpg", "hotSpots": [
        {"type": "scene", "sceneId": "a", "pitch": 0, "yaw": text}]}}}
    (folder / "tour.json").write_text(json.dumps(tour))
    proc = run("experiences", "import", "pannellum", "tour.json", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["panoramas"][0]["triggers"][0]["yaw"] == 0
    assert f'yaw is "{text}", not a number; 0 was used' in proc.stderr


@pytest.mark.parametrize("text", sorted(DECIMAL))
def test_decimal_text_is_read_as_its_number(folder, text):
    tour = {"scenes": {"a": {"title": "Aaaa", "panorama": "a.jpg", "hotSpots": [
        {"type": "scene", "sceneId": "a", "pitch": 0, "yaw": text}]}}}
    (folder / "tour.json").write_text(json.dumps(tour))
    proc = run("experiences", "import", "pannellum", "tour.json", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["panoramas"][0]["triggers"][0]["yaw"] == DECIMAL[text]
    assert "not a number" not in proc.stderr
