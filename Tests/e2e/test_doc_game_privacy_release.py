"""docs/game-privacy.md on a public site built from JSON Lines telemetry: the keyed
generator, the release id, the counts part, the rows as shown, privacy.json and the
configuration. The key file is written by the test so every number is fixed."""
import hashlib
import json
import math
import os
import pathlib
import re
import shutil
import stat
import subprocess
from fractions import Fraction

import pytest

import test_doc_game_privacy_impl as dp

KEY = hashlib.sha256(b"doc-game-privacy-release").digest()


def make_project(root, players=60, seed=3, extra="", key=KEY, files=None):
    root.mkdir(parents=True, exist_ok=True)
    (root / "data").mkdir(exist_ok=True)
    names = files or ["cohort.jsonl"]
    if files is None:
        subprocess.run([dp.BIN, "game", "simulate", "--players", str(players), "--seed", str(seed), "--output",
                        str(root / "data/cohort.jsonl"), "-q"], check=True)
    tel = f"data/{names[0]}" if len(names) == 1 else "[" + ", ".join(f"data/{n}" for n in names) + "]"
    (root / "dossier.yml").write_text(f'title: "t"\ngame:\n  telemetry: {tel}\n{extra}', encoding="utf-8")
    if key is not None:
        (root / ".dossier").mkdir(exist_ok=True)
        (root / ".dossier/privacy.key").write_text(key.hex() + "\n")
    return root


def build(root, check=True):
    p = subprocess.run([dp.BIN, "build", str(root), "-q"], capture_output=True, text=True, timeout=300)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def records(path):
    return [json.loads(l) for l in pathlib.Path(path).read_text(encoding="utf-8").splitlines() if l.strip()]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("rel") / "p")
    build(root)
    return root


def expected_digest(root, salt=None, names=("cohort.jsonl",)):
    return dp.digest_files(salt or dp.unit_salt(), [(f"data/{n}", (root / "data" / n).read_bytes()) for n in names])


def test_release_id_is_the_keyed_hmac_of_the_inputs_digest(site):
    pj = json.loads((site / "_site/game/privacy.json").read_text())
    assert pj["release"] == dp.release_id(KEY, expected_digest(site))


def test_privacy_json_without_a_database_has_no_seal_and_the_24ths_split(site):
    pj = json.loads((site / "_site/game/privacy.json").read_text())
    assert sorted(pj) == ["delta", "epsilon", "lifetimeEpsilon", "release", "section", "spends"]
    assert (pj["epsilon"], pj["delta"], pj["lifetimeEpsilon"], pj["section"]) == ("6", "0", "18", "game")
    assert [(s["part"], Fraction(s["epsilon"])) for s in pj["spends"]] == [(p, Fraction(6 * n, 24)) for p, n in dp.SHARES]
    assert sum(Fraction(s["epsilon"]) for s in pj["spends"]) == 6
    assert re.fullmatch(r"[0-9a-f]{16}", pj["release"])


def test_counts_are_exact_counts_plus_the_keyed_discrete_laplace(site):
    pj = json.loads((site / "_site/game/privacy.json").read_text())
    cells = dp.cohort_cells(records(site / "data/cohort.jsonl"))
    exact = {}
    for c in cells.values():
        exact[c] = exact.get(c, 0) + 1
    rows = dp.read_csv(site / "_site/game/group-counts.csv")
    assert [(r["group"], r["age_band"], r["gender"]) for r in rows] == \
        [(g, b, s) for g in dp.GROUPS for b in dp.BANDS for s in dp.GENDERS]
    assert list(rows[0]) == ["group", "age_band", "gender", "n_noisy"]
    noise = dp.Noise(dp.part_stream(KEY, pj["release"], "counts", expected_digest(site)))
    want = [exact.get((r["group"], r["age_band"], r["gender"]), 0) + noise.laplace(Fraction(4)) for r in rows]
    assert [int(r["n_noisy"]) for r in rows] == want


def group_totals(cells):
    return {g: max(0, sum(v for (gg, _, _), v in cells.items() if gg == g)) for g in dp.GROUPS}


def test_rows_as_shown_are_the_documented_rescaling_of_the_signed_cells(site):
    cells = dp.noisy_cells(site / "_site")
    tables = dp.page_tables((site / "_site/game/cohort/index.html").read_text(encoding="utf-8"))
    T = group_totals(cells)
    labels = ["No diagnosis", "ADHD, unmedicated", "ADHD, medicated", "Survey incomplete"]
    for title, cols, key in (("Group sizes by age band", dp.BANDS, 1), ("Group sizes by gender", dp.GENDERS, 2)):
        rows = tables[title]
        assert rows[0] == ["Group", *cols, "All"]
        shown = []
        for label, g in zip(labels, dp.GROUPS):
            r = [sum(v for c, v in cells.items() if c[0] == g and c[key] == col) for col in cols]
            row = dp.shown_row(r, T[g])
            assert sum(row) == T[g]
            shown.append(row)
            assert next(x for x in rows if x[0] == label) == [label, *map(str, row), str(T[g])], title
        assert rows[-1] == ["All players", *[str(sum(col)) for col in zip(*shown)], str(sum(T.values()))]


def test_players_by_group_and_the_headline_are_the_noisy_sums(site):
    T = group_totals(dp.noisy_cells(site / "_site"))
    html = (site / "_site/game/cohort/index.html").read_text(encoding="utf-8")
    by_group = dp.page_tables(html)["Players by group"]
    assert [r[1] for r in by_group[1:]] == [str(T[g]) for g in dp.GROUPS]
    m = re.search(r"About (\d+) players", html)
    assert m and int(m.group(1)) == sum(T.values())


def test_page_states_the_noise_sd_of_a_cell_a_group_and_all_players(site):
    html = (site / "_site/game/cohort/index.html").read_text(encoding="utf-8")
    s = dp.laplace_sd(Fraction(4))
    for text in (f"{s:.1f}", str(round(s * math.sqrt(24))), str(round(s * math.sqrt(96)))):
        assert re.search(rf"± {text}\b", html), text


def test_no_file_of_the_site_holds_the_exact_number_of_players(site):
    exact = len(dp.cohort_cells(records(site / "data/cohort.jsonl")))
    T = sum(group_totals(dp.noisy_cells(site / "_site")).values())
    assert T != exact  # with this key (fixed) the noisy total differs, so a leak would show
    for f in [*(site / "_site").rglob("*"), site / "_site.manifest.json"]:
        if f.is_file() and f.suffix in (".html", ".csv", ".json", ".xml"):
            text = f.read_text(encoding="utf-8")
            assert not re.search(rf"\b{exact}\b[^0-9]{{0,40}}players", text), f
            assert not re.search(rf"players\W{{0,10}}\b{exact}\b", text), f


def test_same_key_and_inputs_give_byte_identical_game_files(site, tmp_path):
    other = make_project(tmp_path / "copy", files=["cohort.jsonl"])
    shutil.copy(site / "data/cohort.jsonl", other / "data/cohort.jsonl")
    build(other)
    for f in sorted((site / "_site/game").rglob("*")):
        if f.is_file():
            assert (other / "_site/game" / f.relative_to(site / "_site/game")).read_bytes() == f.read_bytes(), f


def test_key_file_made_by_build_with_mode_0600_never_by_check(tmp_path):
    root = make_project(tmp_path / "p", players=12, key=None)
    p = subprocess.run([dp.BIN, "check", str(root)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert not (root / ".dossier/privacy.key").exists()
    build(root)
    kf = root / ".dossier/privacy.key"
    assert stat.S_IMODE(kf.stat().st_mode) == 0o600
    first = kf.read_text().splitlines()[0]
    assert re.fullmatch(r"[0-9a-fA-F]{64}", first)
    pj = json.loads((root / "_site/game/privacy.json").read_text())
    assert pj["release"] == dp.release_id(bytes.fromhex(first), expected_digest(root))
    before = {f: f.read_bytes() for f in (root / "_site/game").rglob("*") if f.is_file()}
    build(root)
    assert {f: f.read_bytes() for f in (root / "_site/game").rglob("*") if f.is_file()} == before


def test_epsilon_2_4_scales_every_part_and_the_salt(tmp_path):
    root = make_project(tmp_path / "p", players=30, seed=4,
                        extra="  privacy:\n    epsilon: 2.4\n    lifetime_epsilon: 7.5\n")
    build(root)
    pj = json.loads((root / "_site/game/privacy.json").read_text())
    assert (pj["epsilon"], pj["lifetimeEpsilon"]) == ("2.4", "7.5")
    assert [Fraction(s["epsilon"]) for s in pj["spends"]] == [Fraction(24 * n, 240) for _, n in dp.SHARES]
    digest = expected_digest(root, dp.unit_salt(2400, "0", 7500))
    assert pj["release"] == dp.release_id(KEY, digest)
    noise = dp.Noise(dp.part_stream(KEY, pj["release"], "counts", digest))
    cells = dp.cohort_cells(records(root / "data/cohort.jsonl"))
    rows = dp.read_csv(root / "_site/game/group-counts.csv")
    exact = [sum(1 for c in cells.values() if c == (r["group"], r["age_band"], r["gender"])) for r in rows]
    assert [int(r["n_noisy"]) for r in rows] == [e + noise.laplace(Fraction(10)) for e in exact]


def test_simulated_flag_and_two_input_files_enter_the_digest(tmp_path):
    root = make_project(tmp_path / "p", files=["a.jsonl", "b.jsonl"], extra="  simulated: true\n")
    cohort = subprocess.run([dp.BIN, "game", "simulate", "--players", "20", "--seed", "8"], capture_output=True,
                            check=True).stdout.splitlines(keepends=True)
    half = len(cohort) // 2
    while json.loads(cohort[half])["type"] != "survey":
        half += 1
    (root / "data/a.jsonl").write_bytes(b"".join(cohort[:half]))
    (root / "data/b.jsonl").write_bytes(b"".join(cohort[half:]))
    build(root)
    pj = json.loads((root / "_site/game/privacy.json").read_text())
    digest = expected_digest(root, dp.unit_salt(sim=True), names=("a.jsonl", "b.jsonl"))
    assert pj["release"] == dp.release_id(KEY, digest)


@pytest.mark.parametrize("block, ok", [
    ("epsilon: 0", False), ("epsilon: 100", True), ("epsilon: 100.001", False), ("epsilon: 1.2345", False),
    ("epsilon: 1.234", True), ("epsilon: -1", False),
    ("{epsilon: 6, lifetime_epsilon: 5.999}", False), ("{epsilon: 6, lifetime_epsilon: 6}", True),
])
def test_privacy_settings_are_checked_with_dossier_yml_and_line(tmp_path, block, ok):
    body = f"  privacy: {block}\n" if block.startswith("{") else f"  privacy:\n    {block}\n"
    root = make_project(tmp_path / "p", players=8, extra=body)
    p = subprocess.run([dp.BIN, "check", str(root)], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode == 1, p.stdout
        assert re.search(r"dossier\.yml:[4-6]\b", p.stderr), p.stderr


ELEVEN = bytes(i % 11 for i in range(32)).hex()
TWELVE = bytes(i % 12 for i in range(32)).hex()


@pytest.mark.parametrize("content, ok", [("00" * 32, False), (ELEVEN, False), ("zz" * 32, False), ("ab" * 31, False),
                                         (TWELVE, True)])
def test_a_weak_or_malformed_key_file_is_refused(tmp_path, content, ok):
    root = make_project(tmp_path / "p", players=8, key=None)
    (root / ".dossier").mkdir()
    (root / ".dossier/privacy.key").write_text(content + "\n")
    p = build(root, check=False)
    assert p.returncode == (0 if ok else 1), p.stderr
    assert content not in p.stderr + p.stdout


def test_the_build_that_makes_the_key_is_reused_by_the_next_one(tmp_path):
    """game-privacy.md, "The keyed generator": with telemetry files the build that creates
    the key stores the unit under the salt naming it, so the next build reuses it."""
    root = make_project(tmp_path / "p", players=10, key=None)
    outs = []
    for _ in range(3):
        p = subprocess.run([dp.BIN, "build", str(root)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        outs.append(({f: f.read_bytes() for f in (root / "_site/game").rglob("*") if f.is_file()},
                     int(re.search(r"(\d+) pages? rendered", p.stdout + p.stderr).group(1))))
    assert outs[0][0] == outs[1][0] == outs[2][0]
    assert outs[0][1] > 0 and outs[1][1] == 0 and outs[2][1] == 0


def test_key_file_setting_names_where_the_key_is_made(tmp_path):
    root = make_project(tmp_path / "p", players=10, key=None, extra="  privacy:\n    key_file: secret/k.hex\n")
    (root / "secret").mkdir()
    build(root)
    kf = root / "secret/k.hex"
    assert stat.S_IMODE(kf.stat().st_mode) == 0o600 and not (root / ".dossier/privacy.key").exists()
    key = bytes.fromhex(kf.read_text().splitlines()[0])
    pj = json.loads((root / "_site/game/privacy.json").read_text())
    assert pj["release"] == dp.release_id(key, expected_digest(root))


def test_a_telemetry_site_says_nothing_about_result_files(site):
    assert not (site / "_site/game/results").exists()
    html = (site / "_site/game/index.html").read_text(encoding="utf-8").lower()
    assert "decoy" not in html and "encrypted" not in html


def test_the_public_json_files_are_written_as_the_doc_says(site):
    # game-privacy.md: "written by Foundation's JSONEncoder with sorted keys and pretty printing: two-space
    # indent, "key" : value …, no final newline, numbers in shortest round-trip form"
    for name in ("privacy.json",):
        raw = (site / "_site/game" / name).read_text(encoding="utf-8")
        assert_encoder_json(raw, name)


def assert_encoder_json(raw, name):
    assert not raw.endswith("\n"), f"{name}: a final newline"
    assert raw == json.dumps(json.loads(raw), indent=2, sort_keys=True, ensure_ascii=False,
                             separators=(",", " : ")), name
    for number in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?(?![\w.])", raw):
        assert number == repr(float(number)), f"{name}: {number} is not in shortest round-trip form"


def test_the_section_index_gives_only_the_noisy_total_of_players(site):
    # "the section index shows only the same noisy total of players as the page"
    text = re.sub(r"<[^>]+>", "", (site / "_site/game/index.html").read_text(encoding="utf-8"))
    found = re.findall(r"\b(\d+)\s+players\b", text)
    T = sum(group_totals(dp.noisy_cells(site / "_site")).values())
    assert all(int(n) == T for n in found), (found, T)