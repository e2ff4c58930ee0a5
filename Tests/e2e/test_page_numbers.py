"""Numbers as pages show them (docs/design-system.md, "Values for people"; docs/charts.md):

- negative numbers shown to readers use U+2212 MINUS SIGN; CSV and JSON side outputs
  keep the ASCII hyphen-minus;
- one number of decimals per table column (`num` columns of every page, the numeric
  columns of every Markdown report table) and per heatmap (its cell labels).

Builds the demo and the private game site (whose player pages show z-scores, slopes and
model coefficients below zero) and reads every text node of every HTML page with
html.parser — SVG `<title>`/`<desc>` and tooltips included, `<code>`, `<pre>`, scripts
and styles left out — and every Markdown report outside its code spans.
"""
import pathlib
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from conftest import REPO

# A hyphen-minus that begins a number: not inside a word, a date (2026-01-01), an id
# (S-01), a range (1-5) or a path.
HYPHEN_NUMBER = re.compile(r"(?<![\w\-–—/.:#])-(?=\d)")
MINUS_NUMBER = re.compile(r"\u2212\d")
SKIPPED = {"script", "style", "code", "pre", "kbd", "samp"}


class Tables(HTMLParser):
    """Every table's body cells as (classes, text) rows, and every heatmap's cell labels."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.heatmaps = [], []
        self.stack, self.cell, self.in_body = [], None, []
        self.labels, self.label = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.stack.append([])
            self.in_body.append(False)
        elif tag == "tbody" and self.in_body:
            self.in_body[-1] = True
        elif tag == "tr" and self.stack and self.in_body[-1]:
            self.stack[-1].append([])
        elif tag in ("td", "th") and self.stack and self.in_body[-1] and self.stack[-1]:
            self.cell = [(a.get("class") or "").split(), ""]
        elif tag == "g" and "cell-labels" in (a.get("class") or "").split():
            self.labels = []
        elif tag == "text" and self.labels is not None:
            self.label = ""

    def handle_endtag(self, tag):
        if tag == "table" and self.stack:
            self.tables.append(self.stack.pop())
            self.in_body.pop()
        elif tag in ("td", "th") and self.cell is not None:
            self.stack[-1][-1].append((self.cell[0], self.cell[1].strip()))
            self.cell = None
        elif tag == "text" and self.label is not None:
            self.labels.append(self.label.strip())
            self.label = None
        elif tag == "g" and self.labels is not None:
            self.heatmaps.append(self.labels)
            self.labels = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
        if self.label is not None:
            self.label += data


NUMBER = re.compile(r"^[-+−]?\d[\d,]*(?:\.(\d+))?(?: ?%| s)?$")


def decimals(text):
    m = NUMBER.match(text)
    return None if m is None else len(m.group(1) or "")


def markdown_tables(md):
    """The body rows of each GFM table of `md`, as (no classes, cell text) rows."""
    tables, lines = [], md.splitlines() + [""]
    block = []
    for line in lines:
        if line.startswith("|"):
            block.append(line)
            continue
        if len(block) > 2:
            tables.append([[([], c.strip()) for c in row.strip().strip("|").split("|")] for row in block[2:]])
        block = []
    return tables


def mixed_columns(rows, numeric_only):
    """The columns (index, decimals seen, sample) of `rows` whose numbers do not share one
    number of decimals. With numeric_only, a column counts only when every non-empty cell
    is a number; otherwise only columns marked `num` count, and in them the cells that are
    numbers (a duration column mixes `42.5 s` and `19 min 04 s` by design and is left out)."""
    out = []
    width = max((len(r) for r in rows), default=0)
    for c in range(width):
        cells = [r[c] for r in rows if len(r) == width]
        texts = [t for cls, t in cells if t not in ("", "—", "–", "-")]
        if not texts:
            continue
        if numeric_only:
            if any(decimals(t) is None for t in texts):
                continue
        else:
            if not all("num" in cls for cls, t in cells) or any(re.search(r"\d (min|h) ", t) for t in texts):
                continue
        seen = {decimals(t) for t in texts} - {None}     # words in a number column ("suppressed", "<5") aside
        if len(seen) > 1:
            out.append((c, seen, texts[:6]))
    return out


class TextNodes(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.texts = []

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in SKIPPED and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.texts.append(data)


def hyphen_numbers(texts):
    return [t[max(0, m.start() - 40):m.end() + 20] for t in texts for m in HYPHEN_NUMBER.finditer(t)]


def markdown_prose(md):
    """The text of a Markdown report outside code spans and fenced blocks."""
    md = re.sub(r"```.*?```", " ", md, flags=re.S)
    return [re.sub(r"`[^`]*`", " ", line) for line in md.splitlines()]


def build_examples(root, dossier_bin):
    """Examples/demo and Examples/game-private built in copies under `root`; their sites."""
    shutil.copytree(REPO / "Examples" / "demo", root / "demo", ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    # A plain copy (links kept as links): the private game site holds its own cohort file.
    shutil.copytree(REPO / "Examples" / "game-private", root / "game-private", symlinks=True,
                    ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    out = []
    for name in ("demo", "game-private"):
        proc = subprocess.run([dossier_bin, "build", str(root / name), "-q"], capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out.append(root / name / "_site")
    return out


@pytest.fixture(scope="module")
def sites(tmp_path_factory, dossier_bin):
    return build_examples(tmp_path_factory.mktemp("numbers"), dossier_bin)


def test_pages_and_reports_show_negative_numbers_with_the_minus_sign(sites):
    bad, minus_pages = {}, 0
    for site in sites:
        for page in sorted(site.rglob("*.html")):
            parser = TextNodes()
            parser.feed(page.read_text(encoding="utf-8"))
            hits = hyphen_numbers(parser.texts)
            if hits:
                bad[str(page.relative_to(site.parent))] = hits[:3]
            minus_pages += any(MINUS_NUMBER.search(t) for t in parser.texts)
        for report in sorted(site.rglob("*.md")):
            hits = hyphen_numbers(markdown_prose(report.read_text(encoding="utf-8")))
            if hits:
                bad[str(report.relative_to(site.parent))] = hits[:3]
    assert not bad, bad
    # The check saw negative numbers at all: the demo's cohort comparisons, the experience
    # levels in dBFS, the players' z-scores.
    assert minus_pages >= 10, minus_pages


def test_one_number_of_decimals_per_column_and_per_heatmap(sites):
    bad, columns, heatmaps, md_columns = {}, 0, 0, 0
    for site in sites:
        for page in sorted(site.rglob("*.html")):
            parser = Tables()
            parser.feed(page.read_text(encoding="utf-8"))
            name = str(page.relative_to(site.parent))
            for t in parser.tables:
                columns += sum(1 for r in t[:1] for cls, _ in r if "num" in cls)
                if mixed := mixed_columns(t, numeric_only=False):
                    bad.setdefault(name, []).append(mixed)
            for labels in parser.heatmaps:
                numbers = [decimals(l) for l in labels if decimals(l) is not None]
                heatmaps += bool(numbers)
                if len(set(numbers)) > 1:
                    bad.setdefault(name, []).append(("heatmap", sorted(set(numbers)), labels[:6]))
        for report in sorted(site.rglob("*.md")):
            for rows in markdown_tables(report.read_text(encoding="utf-8")):
                md_columns += len(rows[0]) if rows else 0
                if mixed := mixed_columns(rows, numeric_only=True):
                    bad.setdefault(str(report.relative_to(site.parent)), []).append(mixed)
    assert not bad, bad
    assert columns > 50 and heatmaps >= 2 and md_columns > 50, (columns, heatmaps, md_columns)   # the check saw them


def test_side_outputs_keep_the_ascii_hyphen_minus(sites):
    negatives = 0
    for site in sites:
        for f in sorted(list(site.rglob("*.csv")) + list(site.rglob("*.json"))):
            if "assets" in f.relative_to(site).parts:
                continue
            text = f.read_text(encoding="utf-8-sig")
            assert "\u2212" not in text, f
            negatives += len(re.findall(r"(?<![\w.])-\d", text))
    assert negatives > 0   # there were negative numbers to keep
