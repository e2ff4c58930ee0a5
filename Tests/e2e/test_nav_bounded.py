"""The bounded navigation (issue #34) in real headless Chromium: a site with more top-level
pages than the navigation lists shows 8 of them and "All pages", which leads to the home
page's list of every page; axe-core clean, no sideways scroll at 390 px, light and dark.
Screenshots go to $DOSSIER_SHOTS (else a temporary folder it prints)."""
import subprocess

import pytest

from page_checks import SIZES, axe_source, each_view, look, set_size, shots_folder
from test_a11y import browser  # noqa: F401  (fixture)

PAGES = 12


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("nav") / "proj"
    (root / "content").mkdir(parents=True)
    (root / "dossier.yml").write_text("title: Many pages\noutput: _site\n")
    for i in range(PAGES):
        (root / "content" / f"topic-{i:02d}.md").write_text(f"---\nweight: {i}\n---\n# Topic {i}\n\nText of topic {i}.\n")
    p = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return root / "_site"


def test_the_navigation_lists_eight_pages_and_all_pages_leads_to_every_page(site, browser, tmp_path_factory):
    drv = browser
    drv.set_script_timeout(60)
    source = axe_source()
    shots = shots_folder(tmp_path_factory.mktemp("shots"))
    problems = []
    set_size(drv, *SIZES[0])
    drv.get((site / "topic-03" / "index.html").resolve().as_uri())
    drv.execute_script(source)
    wide = drv.execute_script("return [...document.querySelectorAll('.site-nav .nav-wide a')].map(a => a.textContent.trim())")
    assert wide[:9] == ["Home"] + [f"Topic {i}" for i in range(8)] and wide[-1] == "All pages", wide
    for scheme, w, h in each_view(drv):
        problems += look(drv, shots, "nav", scheme, w, h)
    assert not problems, "\n".join(problems)
    # "All pages" leads to the home page's list, which names every page.
    set_size(drv, *SIZES[0])
    href = drv.execute_script("return [...document.querySelectorAll('.site-nav .nav-wide a')].pop().href")
    drv.get(href)
    listed = drv.execute_script("return [...document.querySelectorAll('#pages-heading ~ ul a')].map(a => a.textContent.trim())")
    assert sorted(listed) == sorted(f"Topic {i}" for i in range(PAGES)), listed
