"""Every page type with tables or drawings, on a 390 × 844 phone in real headless
Chromium from file:// (docs/design-system.md, "Tables at 390 px"):

- the page itself never scrolls sideways;
- a table wider than its container sits in a scrolling region (`.table-scroll`, overflow
  auto), so nothing is cut off, and every region is named after what it holds (not the
  fallback "Table");
- no cell wraps to more than 4 lines, except prose cells (`cell-prose`: a reason, a note,
  a meaning), which are short paragraphs: at least 12 characters a line, never a word
  per line;
- no text of a drawing (charts, the experience graph) renders below 11 px: font size ×
  the drawing's scale on screen (`getScreenCTM`).

Screenshots of each page (light and dark) go to $DOSSIER_SHOTS when it is set.
"""
import os
import pathlib

import pytest

selenium = pytest.importorskip("selenium")

from test_experiences_editor import make_driver  # noqa: E402
from test_page_numbers import build_examples  # noqa: E402

PAGES = [
    ("demo", "recall/index.html"),
    ("demo", "recall/participants/S001/index.html"),
    ("demo", "recall/participants/desktop-p2/index.html"),
    ("demo", "recall/kit/admin.html"),
    ("demo", "game/cohort/index.html"),
    ("demo", "vault/index.html"),
    ("demo", "sms/index.html"),
    ("demo", "protocol/index.html"),
    ("demo", "experiences/dentist/overview/index.html"),
    ("demo", "experiences/park-walk/overview/index.html"),
    ("game-private", "game/index.html"),
    ("game-private", "game/cohort/index.html"),
    ("game-private", "game/players/*/index.html"),
]

MEASURE = r"""
function lines(el) {
  var r = document.createRange(); r.selectNodeContents(el);
  var tops = [];
  Array.prototype.forEach.call(r.getClientRects(), function (q) {
    if (q.width < 1 || q.height < 1) return;
    if (!tops.some(function (u) { return Math.abs(u - q.top) < q.height / 2; })) tops.push(q.top);
  });
  return tops.length;
}
var out = {pageWidth: document.documentElement.scrollWidth, viewport: innerWidth, tables: [], cells: [], texts: []};
document.querySelectorAll('table').forEach(function (t) {
  if (!t.getClientRects().length) return;
  var box = t.closest('.table-scroll');
  var scrolls = !!box && /auto|scroll/.test(getComputedStyle(box).overflowX);
  var container = scrolls ? box : t.parentElement;
  out.tables.push({label: box ? box.getAttribute('aria-label') : '', width: t.scrollWidth,
                   room: container.clientWidth, scrolls: scrolls});
  t.querySelectorAll('td, th').forEach(function (c) {
    if (!c.getClientRects().length) return;
    var text = c.textContent.replace(/\s+/g, ' ').trim();
    out.cells.push({text: text.slice(0, 50), chars: text.length, lines: lines(c),
                    prose: c.classList.contains('cell-prose')});
  });
});
document.querySelectorAll('svg text').forEach(function (t) {
  if (!t.getClientRects().length || !t.textContent.trim()) return;
  var m = t.getScreenCTM();
  var px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
  out.texts.push({text: t.textContent.trim().slice(0, 30), px: px});
});
return out;
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory, dossier_bin):
    demo, private = build_examples(tmp_path_factory.mktemp("narrow"), dossier_bin)
    return {"demo": demo, "game-private": private}


def page_path(site, pattern):
    if "*" not in pattern:
        return site / pattern
    return sorted(site.glob(pattern))[0]


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    drv = make_driver(tmp_path_factory.mktemp("narrow-dl"))
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    yield drv
    drv.quit()


@pytest.mark.parametrize("site_name,page", PAGES, ids=[p[1].replace("/index.html", "").replace("*", "one") for p in PAGES])
def test_page_reads_on_a_390_px_phone(sites, phone, site_name, page):
    path = page_path(sites[site_name], page)
    phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    phone.get(path.as_uri())
    m = phone.execute_script(MEASURE)
    assert m["viewport"] == 390
    assert m["pageWidth"] <= 390, m["pageWidth"]
    assert m["tables"] or m["texts"], "nothing measured"
    for t in m["tables"]:
        assert t["scrolls"] or t["width"] <= t["room"] + 1, t
        assert t["label"] not in ("", "Table"), t      # a region named after what it holds
    tall = [c for c in m["cells"] if not c["prose"] and c["lines"] > 4]
    assert not tall, tall
    narrow_prose = [c for c in m["cells"] if c["prose"] and c["lines"] > 1 and c["chars"] / c["lines"] < 12]
    assert not narrow_prose, narrow_prose
    small = [t for t in m["texts"] if t["px"] < 11 - 1e-6]
    assert not small, small[:5]
    # Numbers line up: every cell marked as a number is right-aligned, whatever a
    # section's own stylesheet sets for its tables.
    left = phone.execute_script(
        "return [...document.querySelectorAll('td.num, th.num')].filter(c => getComputedStyle(c).textAlign !== 'right')"
        ".map(c => c.textContent.trim()).slice(0, 5)")
    assert not left, left

    shots = os.environ.get("DOSSIER_SHOTS")
    if shots:
        name = f"{site_name}-{page.replace('/index.html', '').replace('/', '-').replace('*', 'one').replace('.html', '')}"
        for scheme in ("light", "dark"):
            phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            pathlib.Path(shots).mkdir(parents=True, exist_ok=True)
            phone.save_screenshot(str(pathlib.Path(shots) / f"narrow-{name}-390-{scheme}.png"))


def _luminance(rgb):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(float(v)) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b):
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_experience_graph_doors_keep_their_size_and_contrast(sites, phone, scheme):
    """The doors of the experience graph: arrowheads of one size whatever the line's width
    (a door on the shortest path is drawn thicker), and lines and heads at least 3:1 against
    the graph's background in both colour schemes (WCAG 1.4.11, graphical objects)."""
    phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    phone.get((sites["demo"] / "experiences/dentist/overview/index.html").as_uri())
    m = phone.execute_script("""
        const rgb = s => s.match(/[0-9.]+/g).slice(0, 3).map(Number);
        const svg = document.querySelector('svg.experience-graph');
        const marker = svg.querySelector('marker');
        return {units: marker.getAttribute('markerUnits'), widths: [...svg.querySelectorAll('path.door')].map(p => p.getAttribute('stroke-width')),
                paper: rgb(getComputedStyle(svg.closest('.xp-graph')).backgroundColor),
                doors: [...svg.querySelectorAll('path.door')].map(p => rgb(getComputedStyle(p).stroke)),
                head: rgb(getComputedStyle(marker.querySelector('path')).fill)};""")
    assert m["units"] == "userSpaceOnUse"
    assert len(set(m["widths"])) == 2, m["widths"]          # both kinds of door are on this graph
    for colour in m["doors"] + [m["head"]]:
        assert _contrast(colour, m["paper"]) >= 3, (colour, m["paper"])
