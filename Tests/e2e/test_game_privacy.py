"""The default game site is differentially private (docs/game-privacy.md); a private site
(per-player pages) is refused by `dossier publish` unless forced."""
import csv
import json



def _project(root, block):
    root.mkdir(parents=True, exist_ok=True)
    (root / "dossier.yml").write_text("title: Game\noutput: _site\ngame:\n" + block)
    return root


def _counts(site):
    with open(site / "game" / "group-counts.csv", newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def _tree(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_default_site_is_differentially_private_and_deterministic(run_dossier, tmp_path):
    data = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "45", "--seed", "7", "--out", data)
    proj = _project(tmp_path / "p", f"  telemetry: {data}\n")
    run_dossier("check", proj)
    assert not (proj / ".dossier").exists(), "dossier check wrote the key"
    out = run_dossier("build", proj)
    site = proj / "_site"
    game = site / "game"
    assert not (game / "players").exists()
    assert not (game / "players.csv").exists() and not (game / "players.json").exists()
    assert not (site / "PRIVATE-SITE.txt").exists()
    # The key was created, readable by its owner only, and appears nowhere.
    key_file = proj / ".dossier" / "privacy.key"
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    key = key_file.read_text().strip()
    assert len(key) == 64
    assert key not in out.stdout + out.stderr
    analysis = json.loads(run_dossier("game", "analyze", "--json", data).stdout)
    ids = [p["id"] for p in analysis["players"]]
    for f in site.rglob("*"):
        if f.is_file():
            body = f.read_bytes()
            assert not any(i.encode() in body for i in ids), f
            assert key.encode() not in body and bytes.fromhex(key) not in body, f
    # Every count is a whole (noisy) number: nothing suppressed, nothing "<5".
    rows = _counts(site)
    assert len(rows) == 4 * 6 * 4 and all(int(r["n_noisy"]) == int(r["n_noisy"]) for r in rows)
    release = json.loads((game / "privacy.json").read_text())
    assert release["epsilon"] == "6" and release["delta"] == "0" and release["lifetimeEpsilon"] == "18"
    assert [s["part"] for s in release["spends"]] == ["counts", "comparisons", "tau", "model-fit", "model-n", "model-auc", "model"]
    html = (game / "cohort" / "index.html").read_text()
    assert "How these numbers were protected" in html and "ε = 6" in html
    assert "The cohort is simulated" not in html
    # A total is labelled with its own error: √k cells' noise (24 a group, 96 in all).
    import math, re
    eps = float(next(s["epsilon"] for s in release["spends"] if s["part"] == "counts"))
    q = math.exp(-eps)
    cell = math.sqrt(2 * q) / (1 - q)
    said = re.search(r"off by about ± ([\d.]+) players each.*?sum of its 24 counts\) is off by about\s+± (\d+) players"
                     r" and the number of players by about ± (\d+)", " ".join(html.split()))
    assert said, "the page does not give the totals' error"
    assert said.groups() == (f"{cell:.1f}", f"{cell * math.sqrt(24):.0f}", f"{cell * math.sqrt(96):.0f}")
    # A group shows statistics only when its noisy count less 3 noise scales (ε 1.5/7 each:
    # ⌈14⌉) is at least 20 (docs/game-privacy.md, "Minimum group size"); hidden ones show none.
    with open(game / "comparisons.csv", newline="", encoding="utf-8-sig") as f:
        for r in csv.DictReader(f):
            for side in ("a", "b"):
                if r[f"n_{side}"] != "not shown":
                    assert int(r[f"n_{side}"]) - 14 >= 20, r
                else:
                    assert r[f"mean_{side}"] == "" and r["g_low"] == "", r
    # Same inputs, same key: byte-identical (a clean rebuild draws the same noise).
    before = _tree(site)
    run_dossier("build", proj, "--clean")
    assert _tree(site) == before
    # Another key: other noise, another release.
    key_file.write_text("ab12cd34ef5678907a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f" + "\n")
    run_dossier("build", proj)
    assert _counts(site) != rows
    assert json.loads((game / "privacy.json").read_text())["release"] != release["release"]


def test_bad_privacy_settings_name_file_and_line(run_dossier, tmp_path):
    data = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "20", "--seed", "9", "--out", data)
    for block, needle in ((f"  telemetry: {data}\n  privacy:\n    epsilon: -1\n", "dossier.yml:6:"),
                          (f"  telemetry: {data}\n  privacy:\n    epsilon: 2\n    lifetime_epsilon: 1\n", "dossier.yml:7:"),
                          (f"  telemetry: {data}\n  privacy:\n    epsilom: 2\n", "dossier.yml:6:")):
        proj = _project(tmp_path / f"p{block.count(chr(10))}{len(block)}", block)
        proc = run_dossier("build", proj, check=False)
        assert proc.returncode == 1, block
        assert needle in proc.stderr and "game.privacy" in proc.stderr, proc.stderr
        assert not (proj / "_site").exists()
    # A release ε above the default lifetime, with no lifetime given: three releases' worth.
    proj = _project(tmp_path / "big", f"  telemetry: {data}\n  privacy:\n    epsilon: 20\n")
    run_dossier("build", proj)
    release = json.loads((proj / "_site" / "game" / "privacy.json").read_text())
    assert (release["epsilon"], release["lifetimeEpsilon"]) == ("20", "60")
    proj = _project(tmp_path / "badkey", f"  telemetry: {data}\n  privacy:\n    key_file: k.txt\n")
    (proj / "k.txt").write_text("not a key\n")
    proc = run_dossier("build", proj, check=False)
    assert proc.returncode == 1 and "k.txt:1:" in proc.stderr and "64 hexadecimal" in proc.stderr


def test_private_site_has_player_pages_and_publish_refuses_it(run_dossier, tmp_path):
    data = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "20", "--seed", "9", "--out", data)
    proj = _project(tmp_path / "p", f"  telemetry: {data}\n  private_site: true\n")
    run_dossier("build", proj)
    site = proj / "_site"
    assert len(list((site / "game" / "players").iterdir())) == 20
    assert (site / "game" / "players.csv").exists()
    assert (site / "PRIVATE-SITE.txt").exists()
    proc = run_dossier("publish", proj, "--to", "http://127.0.0.1:9/site/", check=False,
                       env={"DOSSIER_WEBDAV_USER": "u", "DOSSIER_WEBDAV_PASSWORD": "p"})
    assert proc.returncode == 1
    assert "private site" in proc.stderr and "--force-private" in proc.stderr
    forced = run_dossier("publish", proj, "--to", "http://127.0.0.1:9/site/", "--force-private", check=False,
                         env={"DOSSIER_WEBDAV_USER": "u", "DOSSIER_WEBDAV_PASSWORD": "p"})
    assert "private site" not in forced.stderr   # it got past the check (and then found no server)


def test_publish_keeps_a_ledger_and_refuses_to_exceed_the_lifetime_budget(run_dossier, tmp_path):
    from webdav_server import WebDAVServer, env
    data = tmp_path / "cohort.jsonl"
    proj = _project(tmp_path / "p", f"  telemetry: {data}\n  privacy:\n    epsilon: 4\n    lifetime_epsilon: 10\n")
    ledger = proj / "privacy-ledger.txt"

    def release(seed):
        run_dossier("game", "simulate", "--players", "30", "--seed", str(seed), "--out", data, "--force")
        run_dossier("build", proj)
        return json.loads((proj / "_site" / "game" / "privacy.json").read_text())["release"]

    def lines():
        return [l for l in ledger.read_text().splitlines() if l and not l.startswith("#")]

    with WebDAVServer(tmp_path / "srv") as dav:
        url = dav.url + "site/"
        publish = lambda *extra: run_dossier("publish", proj, "--to", url, *extra, env=env(), check=False)
        first = release(1)
        out = publish()
        assert out.returncode == 0, out.stderr
        assert lines() == [l for l in lines() if l.startswith(f"release={first} epsilon=4 delta=0 section=game published=")]
        assert len(lines()) == 1 and "recorded release" in out.stdout
        # The same site again, and a clean rebuild of the same data: no new spend.
        assert "already in the ledger" in publish().stdout
        run_dossier("build", proj, "--clean")
        assert "already in the ledger" in publish().stdout and len(lines()) == 1
        # New data: a new release, ε 4 more (total 8 of 10).
        second = release(2)
        assert second != first and publish().returncode == 0 and len(lines()) == 2
        # A third would reach 12 > 10: refused, nothing sent, the ledger unchanged.
        before = ledger.read_text()
        third = release(3)
        refused = publish()
        assert refused.returncode == 1
        assert "lifetime budget" in refused.stderr and "--exceed-privacy-budget" in refused.stderr and "privacy-ledger.txt" in refused.stderr
        assert ledger.read_text() == before
        served = json.loads((tmp_path / "srv" / "site" / "game" / "privacy.json").read_text())
        assert served["release"] == second
        forced = publish("--exceed-privacy-budget")
        assert forced.returncode == 0 and len(lines()) == 3 and lines()[-1].startswith(f"release={third} epsilon=4 ")
        # A malformed ledger line stops the publish with the file and line.
        ledger.write_text(before + "release=zz epsilon=lots delta=0 section=game published=x\n")
        bad = publish()
        assert bad.returncode == 1 and "privacy-ledger.txt:5:" in bad.stderr and "epsilon" in bad.stderr
        # A ledger that cannot be read as text is not an empty ledger (which would let the
        # third release through: 4 of 10): the publish is refused, naming it, nothing sent.
        ledger.write_bytes(before.encode() + b"# caf\xe9\n")
        unread = publish()
        assert unread.returncode == 1, unread.stdout
        assert "privacy-ledger.txt" in unread.stderr and "not UTF-8" in unread.stderr
        ledger.unlink()
        ledger.mkdir()
        folder = publish()
        assert folder.returncode == 1 and "privacy-ledger.txt" in folder.stderr and "folder" in folder.stderr
        assert json.loads((tmp_path / "srv" / "site" / "game" / "privacy.json").read_text())["release"] == third
