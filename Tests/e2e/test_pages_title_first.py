"""Issue #43 item 6: on a 390 × 844 phone every page type with "On this page" shows the
breadcrumb and the title first, the contents after them; at 1280 px the contents sit
beside the page. One page of each type of the demo and the private game site, in headless
Chromium from file:// (docs/design-system.md, "On this page")."""
import re

import pytest

pytest.importorskip("selenium")

from test_experiences_editor import make_driver  # noqa: E402
from test_page_numbers import build_examples  # noqa: E402

# Folders whose children are one page type each (a participant, a player, an experience …).
MANY = re.compile(r"/(participants|players|experiences|cohorts|sets)/[^/]+/")

PLACES = """
var h1 = document.querySelector('main h1'), toc = document.querySelector('nav.toc'),
    crumbs = document.querySelector('nav.breadcrumbs'), article = document.querySelector('main article.content-page');
function box(e) { if (!e) return null; var r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; }
return {h1: box(h1), toc: box(toc), crumbs: box(crumbs), article: box(article),
        articleInBody: !!document.querySelector('main .page-body > article.content-page'),
        articleText: article ? article.innerText.trim().length : 0, width: document.documentElement.scrollWidth};
"""


def page_types(sites):
    """One page with "On this page" per page type, by its path with ids replaced."""
    seen = {}
    for name, site in sites.items():
        for page in sorted(site.rglob("*.html")):
            rel = page.relative_to(site).as_posix()
            key = name + ":" + MANY.sub(lambda m: f"/{m.group(1)}/*/", "/" + rel)
            if key not in seen and 'class="toc"' in page.read_text(encoding="utf-8", errors="replace"):
                seen[key] = page
    return seen


@pytest.fixture(scope="module")
def sites(tmp_path_factory, dossier_bin):
    demo, private = build_examples(tmp_path_factory.mktemp("titlefirst"), dossier_bin)
    return {"demo": demo, "game-private": private}


@pytest.fixture(scope="module")
def pages(sites):
    return page_types(sites)


def test_the_methods_page_says_its_common_sentence_once(sites):
    text = (sites["demo"] / "game" / "methods.html").read_text(encoding="utf-8")
    assert text.count("pooled over a player") == 1 and text.count("never 0") == 1
    assert text.count("ADHD direction: ") == text.count("<dt id=") >= 10


def test_the_study_and_vault_pages_send_no_one_to_dossiers_source_docs(sites):
    """Their readers have the site, not Dossier's docs/ folder: what they need is said on the page."""
    for rel in ("recall/index.html", "vault/index.html"):
        text = (sites["demo"] / rel).read_text(encoding="utf-8")
        assert not re.search(r"docs/[\w-]+\.md", re.sub(r"<[^>]+>", "", text)), rel


def test_the_title_comes_before_on_this_page_on_a_phone_and_beside_it_on_a_desktop(pages, tmp_path):
    assert len(pages) >= 7, sorted(pages)      # the experience editor lists none
    d = make_driver(tmp_path)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1,
                                                             "mobile": True})
    try:
        wrong = {}
        for key, page in sorted(pages.items()):
            d.get(page.as_uri())
            at = d.execute_script(PLACES)
            if not at["h1"] or at["h1"][1] > at["toc"][0] or (at["crumbs"] and at["crumbs"][1] > at["toc"][0]):
                wrong[key] = at
            # A Markdown page's text comes after "On this page": its title sits inside its
            # article, and the split is made inside it, not after the whole article.
            if at["article"] and (not at["articleInBody"] or at["articleText"] < 20 or at["article"][0] < at["toc"][1]):
                wrong[key] = at
            assert at["width"] <= 390, (key, at["width"])
        assert not wrong, wrong
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        for key, page in sorted(pages.items())[:4]:
            d.get(page.as_uri())
            at = d.execute_script(PLACES)
            assert at["toc"][2] >= at["h1"][3] - 1 and at["toc"][0] < at["h1"][1] + 200, (key, at)
    finally:
        d.quit()


TARGETS = """
var out = [];
document.querySelectorAll('nav.toc a').forEach(function (a) {
  var href = a.getAttribute('href') || '', t = href.charAt(0) === '#' ? document.getElementById(decodeURIComponent(href.slice(1))) : null;
  if (!t || !t.getClientRects().length) out.push(href);
});
return {broken: out, links: document.querySelectorAll('nav.toc a').length};
"""


def test_every_on_this_page_link_leads_to_a_heading_the_reader_sees(pages, sites, tmp_path):
    """The contents list only what a reader can go to: the experience editor is an app whose
    sections appear one at a time, so it lists none (it listed five, four of them hidden,
    after the whole editor on a phone)."""
    editor = (sites["demo"] / "experiences" / "editor" / "index.html").read_text(encoding="utf-8")
    assert editor.count("<h2") >= 4 and 'class="toc"' not in editor
    d = make_driver(tmp_path)
    try:
        for key, page in sorted(pages.items()):
            d.get(page.as_uri())
            found = d.execute_script(TARGETS)
            assert found["links"] >= 2 and not found["broken"], (key, found)
    finally:
        d.quit()


URL_BREAKS = """
var out = [];
document.querySelectorAll('td.cell-url').forEach(function (cell) {
  var chars = [];
  var walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (var n = walk.nextNode(); n; n = walk.nextNode()) {
    for (var i = 0; i < n.length; i++) {
      var r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      var q = r.getClientRects()[0]; if (q) chars.push([n.data[i], Math.round(q.top)]);
    }
  }
  for (var k = 1; k < chars.length; k++) {
    if (chars[k][1] > chars[k - 1][1]) out.push(cell.textContent + ' @ ' + k + ' after ' + chars[k - 1][0]);
  }
});
var box = document.querySelector('.table-scroll[aria-label="What to fix"]');
return {breaks: out, page: document.documentElement.scrollWidth, cells: document.querySelectorAll('td.cell-url').length,
        region: box ? getComputedStyle(box).overflowX : null};
"""


def test_urls_in_what_to_fix_wrap_only_between_their_parts_at_390(sites, tmp_path):
    d = make_driver(tmp_path)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1,
                                                             "mobile": True})
    try:
        d.get((sites["demo"] / "vault" / "index.html").as_uri())
        got = d.execute_script(URL_BREAKS)
    finally:
        d.quit()
    assert got["cells"] >= 5 and got["page"] <= 390 and got["region"] == "auto", got
    # Every line break of a URL cell follows a separator ('/', '.', '?', '&', '=', '#', '-', '_').
    bad = [b for b in got["breaks"] if b[-1] not in "/.?&=#-_"]
    assert not bad, bad
