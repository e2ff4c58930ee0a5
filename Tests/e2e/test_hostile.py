"""Hostile input against the real binary (issues #14 "Hostile input" and #21): the output
folder never swallows a user's folder, no page links to script, YAML alias bombs are
refused fast, side outputs escape what they carry, killed builds leave no debris."""
import csv
import html.parser
import io
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import REPO
from hostile_helpers import limited, new_project, run, snapshot  # noqa: F401
from hostile_strings import HOSTILE, HOSTILE_IDS
from test_foundation import stop

DEMO = REPO / "Examples" / "demo"


# MARK: - 1. The output folder


@pytest.mark.parametrize("value,why", [
    ("/tmp/dossier-hostile-abs", "not a relative path"),
    ("../elsewhere", "leaves the project"),
    ("out/../..", "leaves the project"),
    ("data", "input folder"),
    ("content", "input folder"),
    ("templates/site", "input folder"),
    (".", "leaves the project"),
    ("~/Documents", "not a relative path"),
])
def test_output_outside_the_project_or_on_an_input_folder_is_refused(dossier_bin, tmp_path, value, why):
    proj = new_project(dossier_bin, tmp_path / "p")
    (proj / "data").mkdir(exist_ok=True)
    keep = proj / "data" / "precious.txt"
    keep.write_text("do not delete")
    before = snapshot(proj)
    (proj / "dossier.yml").write_text(f"title: x\n\noutput: {json.dumps(value)}\n")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1, r.stderr
    assert re.search(r"dossier\.yml:3: output: .*" + why, r.stderr), r.stderr
    after = snapshot(proj)
    after.pop("dossier.yml"); before.pop("dossier.yml")
    assert after == before
    assert not pathlib.Path("/tmp/dossier-hostile-abs").exists()


def test_output_overlapping_a_section_input_is_refused(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p")
    (proj / "logs").mkdir()
    (proj / "dossier.yml").write_text("title: x\noutput: logs\nrecall:\n  strings: logs/strings.txt\n  logs: logs\n")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1
    assert "dossier.yml:2: output: the folder overlaps the section input 'logs/strings.txt'" in r.stderr, r.stderr


def test_an_existing_folder_dossier_did_not_make_is_never_replaced(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p", "title: x\noutput: Documents\n")
    (proj / "Documents").mkdir()
    (proj / "Documents" / "thesis.tex").write_text("years of work")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1
    assert "dossier.yml:2: output: this folder exists and was not made by Dossier" in r.stderr, r.stderr
    assert (proj / "Documents" / "thesis.tex").read_text() == "years of work"
    assert sorted(p.name for p in (proj / "Documents").iterdir()) == ["thesis.tex"]
    # An empty folder, or one a build made, is fine: build twice.
    shutil.rmtree(proj / "Documents")
    (proj / "Documents").mkdir()
    assert run(dossier_bin, "build", proj).returncode == 0
    assert run(dossier_bin, "build", proj, "--clean").returncode == 0
    assert (proj / "Documents" / "index.html").exists()


# MARK: - 2. Links and base_url


def test_a_content_file_named_like_a_script_url_is_refused(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p")
    (proj / "content" / "javascript:alert(document.domain).md").write_text("# Click me\n")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1
    assert "content/javascript:alert(document.domain).md: content file names may not contain ':'" in r.stderr, r.stderr
    assert not (proj / "_site").exists()


def demo_without_slow_sections(folder: pathlib.Path) -> pathlib.Path:
    """The demo with its content, experiences and recall blocks (game, vault and sms
    take a minute and more in a debug build; their suites check their own pages)."""
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    yml = (folder / "dossier.yml").read_text()
    kept = re.split(r"(?m)^(?=game:|vault:|sms:|# RocketMouse|# Vault health|# SecureSMS)", yml)[0]
    (folder / "dossier.yml").write_text(kept)
    return folder


def test_generated_hrefs_are_relative_or_http(dossier_bin, tmp_path):
    """Every href/src on every page is a relative path or an http(s) URL."""
    proj = demo_without_slow_sections(tmp_path / "demo")
    (proj / "content" / "odd name (1).md").write_text("# Odd\n\n[home](index.md)\n")
    r = run(dossier_bin, "build", proj, "-q", timeout=600)
    assert r.returncode == 0, r.stderr
    bad = []
    for page in (proj / "_site").rglob("*.html"):
        for m in re.finditer(r"""\s(?:href|src)\s*=\s*["']([^"']*)["']""", page.read_text(errors="replace")):
            v = m.group(1).strip()
            scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):", v)
            if scheme and scheme.group(1).lower() not in ("http", "https", "mailto", "data"):
                bad.append((page.name, v))
            if scheme and scheme.group(1).lower() == "data" and "href" in m.group(0):
                bad.append((page.name, v))
    assert bad == []


@pytest.mark.parametrize("value", ["javascript:alert(1)//", "file:///etc/", "example.org/site", "data:text/html,x", "https://u:pw@example.org/"])
def test_base_url_must_be_http(dossier_bin, tmp_path, value):
    proj = new_project(dossier_bin, tmp_path / "p", f"title: x\nbase_url: {json.dumps(value)}\n")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1
    assert re.search(r"dossier\.yml:2: base_url must", r.stderr), r.stderr
    assert "pw" not in r.stderr


# MARK: - 3. YAML alias bombs

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))


def test_alias_bomb_in_the_manifest_is_refused_fast(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p", "title: x\nrecall:\n  " + BOMB.replace("\n", "\n  ").rstrip() + "\n")
    began = time.monotonic()
    r = run(dossier_bin, "check", proj, timeout=60)
    assert time.monotonic() - began < 20
    assert r.returncode == 1, r.stderr
    assert re.search(r"dossier\.yml:\d+: YAML aliases expand to more than 100000 values", r.stderr), r.stderr


def test_alias_bomb_in_front_matter_is_refused_fast(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p")
    (proj / "content" / "bomb.md").write_text("---\n" + BOMB + "---\n# Bomb\n")
    began = time.monotonic()
    r = run(dossier_bin, "build", proj, timeout=60)
    assert time.monotonic() - began < 20
    assert r.returncode == 1
    assert re.search(r"content/bomb\.md:\d+: YAML aliases expand", r.stderr), r.stderr


def test_a_few_aliases_still_work(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p", "title: &t Aliased\ndescription: *t\n")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 0, r.stderr
    assert "Aliased" in (proj / "_site" / "index.html").read_text()


# MARK: - 4. Side outputs


def recall_project(dossier_bin, folder: pathlib.Path, ids: list[str], extra: str = "",
                   recalled: list[str] | None = None) -> pathlib.Path:
    """A recall study whose participant ids are `ids` (one demo log each); the texts of
    `recalled` are typed into the recall fields, ten per log."""
    proj = new_project(dossier_bin, folder)
    data = proj / "data"
    (data / "logs").mkdir(parents=True)
    shutil.copy(DEMO / "data" / "recall" / "strings.txt", data / "strings.txt")
    shutil.copy(DEMO / "data" / "recall" / "nist-desktop-2011.csv", data / "cohort.csv")
    source = sorted((DEMO / "data" / "recall" / "logs").glob("*.jsonl"))[0].read_text().splitlines()
    last_fields = max(i for i, line in enumerate(source) if '"type":"fields"' in line)
    for i, pid in enumerate(ids):
        lines = list(source)
        head = json.loads(lines[0])
        head["participant"] = pid
        lines[0] = json.dumps(head)
        texts = (recalled or [])[i * 10:(i + 1) * 10]
        if texts:
            event = json.loads(lines[last_fields])
            event["values"] = (texts + [""] * 10)[:10]
            lines[last_fields] = json.dumps(event)
        (data / "logs" / f"P{i:03d}.jsonl").write_text("\n".join(lines) + "\n")
    (proj / "dossier.yml").write_text("title: hostile\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n"
                                      "  desktop_cohorts: data/cohort.csv\n" + extra)
    return proj


class Text(html.parser.HTMLParser):
    """Collects text and the tags/attributes a renderer produced."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def render_unsafe(md: str) -> Text:
    """The Markdown as a forge that passes raw HTML through would render it."""
    out = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", "-e", "strikethrough", "-e", "autolink"],
                         input=md, capture_output=True, text=True, check=True).stdout
    t = Text()
    t.feed(out)
    return t


@pytest.fixture(scope="module")
def hostile_site(dossier_bin, tmp_path_factory):
    proj = recall_project(dossier_bin, tmp_path_factory.mktemp("hostile") / "p", HOSTILE_IDS, recalled=HOSTILE)
    r = run(dossier_bin, "build", proj, "-q", timeout=600)
    assert r.returncode == 0, r.stderr
    return proj / "_site"


@pytest.mark.skipif(shutil.which("cmark-gfm") is None, reason="cmark-gfm (scripts/deps) renders the side outputs")
def test_markdown_side_outputs_show_hostile_text_as_text(hostile_site):
    mds = sorted(hostile_site.rglob("*.md"))
    assert len(mds) >= len(HOSTILE_IDS) + 1       # one report.md per participant and summary.md
    seen = set()
    for md in mds:
        t = render_unsafe(md.read_text())
        allowed = {"h1", "h2", "h3", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "code", "strong", "a"}
        assert {tag for tag, _ in t.tags} <= allowed, (md, t.tags)
        # GFM's autolink extension may link a bare https:// URL (same text, http only).
        assert not [a for tag, a in t.tags if tag != "a" and a and set(a) - {"align"}], md
        assert all(a.get("href", "").startswith("https://") for tag, a in t.tags if tag == "a"), md
        text = " ".join(" ".join(t.text).split())
        for s in HOSTILE + HOSTILE_IDS:
            if " ".join(s.split()) in text:
                seen.add(s)
    assert seen == set(HOSTILE + HOSTILE_IDS)


def test_every_csv_neutralises_formulas_and_starts_with_a_bom(hostile_site):
    csvs = sorted(hostile_site.rglob("*.csv"))
    assert len(csvs) >= 2 * len(HOSTILE_IDS) + 2
    number = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
    for f in csvs:
        raw = f.read_bytes()
        assert raw.startswith(b"\xef\xbb\xbf"), f
        for row in csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")):
            for cell in row:
                assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", cell), (f, cell)
                if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                    assert number.match(cell), (f, cell)
    participants = (hostile_site / "recall" / "participants.csv").read_text(encoding="utf-8-sig")
    assert "'=HYPERLINK" in participants and "'-nan(SUM)" in participants and "'@SUM(A1)" in participants


def test_csv_bom_can_be_turned_off(dossier_bin, tmp_path):
    proj = recall_project(dossier_bin, tmp_path / "p", ["S1"], extra="csv:\n  bom: false\n")
    assert run(dossier_bin, "build", proj, "-q").returncode == 0
    csvs = sorted((proj / "_site").rglob("*.csv"))
    assert csvs and not [f for f in csvs if f.read_bytes().startswith(b"\xef\xbb\xbf")]
    (proj / "dossier.yml").write_text((proj / "dossier.yml").read_text().replace("bom: false", "bom: true"))
    assert run(dossier_bin, "build", proj, "-q").returncode == 0
    assert all(f.read_bytes().startswith(b"\xef\xbb\xbf") for f in (proj / "_site").rglob("*.csv"))
    (proj / "dossier.yml").write_text((proj / "dossier.yml").read_text().replace("bom: true", "bom: maybe"))
    r = run(dossier_bin, "build", proj, "-q")
    assert r.returncode == 1 and re.search(r"dossier\.yml:\d+: csv\.bom: expected true or false", r.stderr), r.stderr


@pytest.mark.parametrize("bad", ["S\x00001", "S\x07", "S\x1b[31m", "S\u0085"])
def test_control_characters_in_a_participant_id_are_refused(dossier_bin, tmp_path, bad):
    proj = recall_project(dossier_bin, tmp_path / "p", ["ok", bad])
    r = run(dossier_bin, "build", proj, "-q")
    assert r.returncode == 1
    assert re.search(r"data/logs/P001\.jsonl:1: participant id '.*' holds a control character \(U\+00", r.stderr), r.stderr
    assert "\x07" not in r.stderr and "\x1b" not in r.stderr


def test_control_characters_in_display_text_are_replaced(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p", "title: \"Study\\a\\x1b[2J\\u0085 2026\"\n")
    (proj / "content" / "page.md").write_text("---\ntitle: \"Bell\\a page\"\n---\nBody.\n")
    assert run(dossier_bin, "build", proj).returncode == 0
    for page in (proj / "_site").rglob("*.html"):
        assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", page.read_text()), page
    assert "Study\ufffd\ufffd[2J\ufffd 2026" in (proj / "_site" / "index.html").read_text()


# MARK: - Debris of killed builds


def test_killed_builds_leave_no_staging_folder_after_the_next_build(dossier_bin, tmp_path):
    proj = demo_without_slow_sections(tmp_path / "demo")
    kills = 0
    for _ in range(3):
        p = subprocess.Popen([dossier_bin, "build", str(proj), "--clean", "-q"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        staging = proj / f"._site.staging-{p.pid}"
        deadline = time.monotonic() + 300
        while p.poll() is None and time.monotonic() < deadline:
            if staging.exists() and any(staging.iterdir()):
                p.send_signal(signal.SIGKILL)
                kills += 1
                break
            time.sleep(0.01)   # polling for the folder to appear, not timing anything
        p.wait()
        # Each build removed the folders of the builds killed before it.
        assert len(list(proj.glob("._site.staging-*"))) <= 1
    assert kills >= 2
    assert len(list(proj.glob("._site.staging-*"))) == 1
    r = run(dossier_bin, "build", proj, "-q", timeout=600)
    assert r.returncode == 0, r.stderr
    # No debris; the site's lock file stays (docs/output-manifest.md, "One command at a time").
    assert [p.name for p in proj.glob("._site.*")] == ["._site.lock"]
    assert (proj / "_site" / "index.html").exists()


# MARK: - 5. Case, numbers, links, serve


def test_content_pages_differing_only_in_case_are_refused(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p")
    (proj / "content" / "Notes.md").write_text("# A\n")
    (proj / "content" / "notes.md").write_text("# B\n")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1
    assert "both become" in r.stderr and "differ only in case" in r.stderr, r.stderr


def test_outputs_differing_only_in_case_are_refused(dossier_bin, tmp_path):
    proj = recall_project(dossier_bin, tmp_path / "p", ["A", "B"])
    logs = proj / "data" / "logs"
    (logs / "P000.jsonl").rename(logs / "Alice.jsonl")
    (logs / "P001.jsonl").rename(logs / "alice.jsonl")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1
    assert "differ only in case" in r.stderr, r.stderr
    assert not (proj / "_site").exists()


def test_a_dangling_percent_encoded_link_is_reported_with_its_line(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p")
    (proj / "content" / "links.md").write_text("# Links\n\nFine.\n\n[gone](missing-ü\"{x}.html)\n")
    r = run(dossier_bin, "build", proj)
    assert r.returncode == 1
    # quoted as the page's author wrote it, not as cmark percent-encodes it (docs/manifest.md)
    assert "content/links.md:5: dangling link 'missing-ü\"{x}.html'" in r.stderr, r.stderr


def test_number_look_alikes_copied_from_a_cohort_are_neutralised(dossier_bin, tmp_path):
    """Swift's Double() reads `-nan(SUM)`, `-inf`, `-0x1p4`: copied cells are numbers
    only when plain decimals, so these are written as neutralised text."""
    proj = recall_project(dossier_bin, tmp_path / "p", ["S1"])
    cohort = proj / "data" / "cohort.csv"
    lines = cohort.read_text().split("\n")
    cells = lines[2].split(",")
    cells[1:4] = ["-nan(SUM)", "-inf", "-0x1p4"]
    lines[2] = ",".join(cells)
    cohort.write_text("\n".join(lines))
    r = run(dossier_bin, "build", proj, "-q")
    assert r.returncode == 0, r.stderr
    out = (proj / "_site" / "recall" / "cohorts" / "cohort.csv").read_text(encoding="utf-8-sig")
    row = next(r for r in csv.reader(io.StringIO(out, newline="")) if r and r[0] == "string")
    assert row[1:4] == ["'-nan(SUM)", "'-inf", "'-0x1p4"]
