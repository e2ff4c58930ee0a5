"""Every page type of the demo in real headless Chromium (issue #13, "Accessibility").

One browser session visits each page type at 1280×900 and 390×844, in the light and
the dark scheme, and checks:
- axe-core (the `axe.min.js` of the axe-playwright-python wheel) reports no serious or
  critical violation;
- at 390 px the page does not scroll sideways as a whole;
- every visible chart's smallest text is at least 11 CSS px;
- every data table sits in a keyboard-reachable scroll region;
- every visible chart label (tick, title, legend, heatmap cell, timeline span) has at
  least 4.5:1 contrast against the mark or background under it, computed from the
  colours the browser draws in that scheme.
It saves a screenshot of each page/width/scheme into a folder it prints
(`$DOSSIER_SHOTS`, else a temporary folder).

Page types (issue #33): home, a content page, a page with a task list, the 404 page,
each section's index, a participant, a string set, the recall kit and its admin page, a
game player and the cohort, an experience viewer, its play mode, its overview and the
editor.
"""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

pytest.importorskip("selenium")

from conftest import REPO  # noqa: E402
from page_checks import (SIZES, axe_source, each_view, headless_chromium, look, set_scheme, set_size,  # noqa: E402
                         shots_folder)


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory, dossier_bin):
    if os.environ.get("DOSSIER_A11Y_SITE"):          # a site built already (development loop)
        return pathlib.Path(os.environ["DOSSIER_A11Y_SITE"])
    root = tmp_path_factory.mktemp("a11y") / "demo"
    shutil.copytree(REPO / "Examples" / "demo", root, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    p = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return root / "_site"


def page_types(site: pathlib.Path):
    """One page of each type: home, a content page, each section's index and a unit page."""
    pages = {"home": "index.html", "content": "methods/index.html"}
    for key in ["recall", "experiences", "vault", "sms", "game"]:
        if (site / key / "index.html").exists():
            pages[f"{key}-index"] = f"{key}/index.html"
    def first(glob):
        found = sorted(site.glob(glob))
        return str(found[0].relative_to(site)) if found else None
    candidates = {
        "task-list": first("protocol/index.html"),
        "not-found": first("404.html"),
        "recall-participant": first("recall/participants/*/index.html"),
        "recall-set": first("recall/sets/*/index.html"),
        "recall-kit": first("recall/kit/index.html"),
        "recall-kit-admin": first("recall/kit/admin.html"),
        "game-player": first("game/players/*/index.html"),
        "game-cohort": first("game/cohort/index.html"),
        "game-methods": first("game/methods.html"),
        "experience-viewer": first("experiences/*/index.html"),
        "experience-overview": first("experiences/*/overview/index.html"),
        "experience-editor": first("experiences/editor/index.html"),
    }
    for name, rel in candidates.items():
        if rel and rel not in pages.values():
            pages[name] = rel
    viewers = [p for p in sorted(site.glob("experiences/*/index.html")) if p.parent.name != "editor"]
    if viewers:                                    # the child's full-screen play mode
        pages["experience-play"] = str(viewers[0].relative_to(site)) + "?play=1"
    return pages


@pytest.fixture(scope="module")
def browser():
    drv = headless_chromium("--hide-scrollbars")
    yield drv
    drv.quit()


CHART_TEXT = """
var out = [];
document.querySelectorAll('svg.dossier-chart').forEach(function (svg) {
  var r = svg.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) { return; }
  var vb = svg.viewBox.baseVal, scale = r.width / vb.width, min = 1e9, which = '';
  svg.querySelectorAll('text').forEach(function (t) {
    if (!t.textContent.trim()) { return; }
    var px = parseFloat(getComputedStyle(t).fontSize) * scale;
    if (px < min) { min = px; which = t.textContent; }
  });
  if (min < 1e9) { out.push({id: svg.id, min: min, text: which}); }
});
return out;
"""

TABLES = """
var out = [];
document.querySelectorAll('main table').forEach(function (t) {
  var region = t.closest('.table-scroll');
  var ok = !!region && region.getAttribute('role') === 'region' && region.tabIndex === 0 &&
           !!region.getAttribute('aria-label') && getComputedStyle(region).overflowX !== 'visible';
  var wide = t.getBoundingClientRect().width > (t.parentElement.clientWidth + 1);
  out.push({ok: ok, wide: wide, label: region ? region.getAttribute('aria-label') : t.outerHTML.slice(0, 80)});
});
return out;
"""


# Every visible chart label's contrast against what is drawn under it, from the computed
# colours of the current scheme: the topmost rect whose box holds the label's centre (a
# heatmap cell, a timeline span, a lane band, the chart's background).
CHART_CONTRAST = """
function rgb(c) { var m = c.match(/[\\d.]+/g); return m ? m.slice(0, 3).map(Number) : null; }
function lum(c) { return c.map(function (v) { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
                   .reduce(function (s, v, i) { return s + v * [0.2126, 0.7152, 0.0722][i]; }, 0); }
var out = [];
document.querySelectorAll('svg.dossier-chart').forEach(function (svg) {
  var r = svg.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) { return; }
  var rects = Array.from(svg.querySelectorAll('rect')).filter(function (e) {
    var f = getComputedStyle(e).fill; return f && f !== 'none' && !f.startsWith('url'); });
  svg.querySelectorAll('text').forEach(function (t) {
    if (!t.textContent.trim() || getComputedStyle(t).display === 'none') { return; }
    var b = t.getBBox(), cx = b.x + b.width / 2, cy = b.y + b.height / 2, under = null;
    rects.forEach(function (e) {
      var x = e.x.baseVal.value, y = e.y.baseVal.value, w = e.width.baseVal.value, h = e.height.baseVal.value;
      if (cx >= x && cx <= x + w && cy >= y && cy <= y + h) { under = e; }
    });
    var fg = rgb(getComputedStyle(t).fill), bg = under ? rgb(getComputedStyle(under).fill) : null;
    if (!fg || !bg) { return; }
    var a = lum(fg), c = lum(bg), ratio = (Math.max(a, c) + 0.05) / (Math.min(a, c) + 0.05);
    out.push({chart: svg.id, text: t.textContent.slice(0, 30), ratio: ratio, fg: getComputedStyle(t).fill, bg: getComputedStyle(under).fill});
  });
});
return out;
"""


def test_every_page_type_is_accessible_and_fits(demo_site, browser, tmp_path_factory):
    drv = browser
    drv.set_script_timeout(60)
    source = axe_source()
    shots = shots_folder(tmp_path_factory.mktemp("shots"))
    pages = page_types(demo_site)
    assert {"home", "content", "recall-index", "vault-index", "sms-index", "game-index", "experiences-index",
            "task-list", "not-found", "recall-kit", "experience-editor", "experience-play"} <= set(pages), pages
    problems = []
    checked_labels = {"light": 0, "dark": 0}
    # each page is loaded once; the window size and colour scheme then change in place
    for name, rel in pages.items():
        set_scheme(drv, "light")
        set_size(drv, *SIZES[0])
        path, _, query = rel.partition("?")
        drv.get((demo_site / path).resolve().as_uri() + (f"?{query}" if query else ""))
        drv.execute_script(source)
        for scheme, w, h in each_view(drv):
            where = f"{name} {w}px {scheme}"
            problems += look(drv, shots, name, scheme, w, h)
            for chart in drv.execute_script(CHART_TEXT):
                if chart["min"] < 11 - 1e-6:
                    problems.append(f"{where}: chart {chart['id']} text {chart['min']:.1f}px ({chart['text']!r})")
            labels = drv.execute_script(CHART_CONTRAST)
            checked_labels[scheme] += len(labels)
            for lab in labels:
                if lab["ratio"] < 4.5:
                    problems.append(f"{where}: chart {lab['chart']} label {lab['text']!r} {lab['fg']} on {lab['bg']}: "
                                    f"{lab['ratio']:.2f}:1")
            for t in drv.execute_script(TABLES):
                if not t["ok"]:
                    problems.append(f"{where}: table not in a keyboard-reachable scroll region: {t['label']}")
    assert checked_labels["light"] > 100 and checked_labels["dark"] == checked_labels["light"], checked_labels
    assert not problems, "\n".join(problems[:60]) + f"\n({len(problems)} problems; pages {json.dumps(pages)})"
