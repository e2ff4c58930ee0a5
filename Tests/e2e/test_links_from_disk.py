"""The built demo works opened from disk (issue #33): in headless Chromium from `file://`,
starting at the home page, every internal link (`<a href>`, `<link href>`, `<script src>`,
`<img src>`, media sources) of every page reached is followed as the browser resolves it,
and must open a file of the site: never a folder (from disk that is a folder listing),
never outside the site. The same walk runs inside the BagIt bag `dossier archive` makes.
"""
import pathlib
import subprocess
import urllib.parse

import pytest

pytest.importorskip("selenium")

from page_checks import headless_chromium  # noqa: E402
from webdav_server import built_demo  # noqa: E402

# Pages a build writes that no page links to by design: an experience's congratulations
# page is opened by the viewer's script when the child finishes.
UNLINKED = r"experiences/[^/]+/congratulations/index\.html"

LINKS = """
return Array.from(document.querySelectorAll(
    'a[href], link[href], script[src], img[src], source[src], video[src], audio[src], iframe[src]'))
  .map(function (e) {
    var raw = e.getAttribute('href') !== null ? e.getAttribute('href') : e.getAttribute('src');
    return [raw, e.href || e.src, e.tagName.toLowerCase()];
  });
"""


@pytest.fixture(scope="module")
def browser():
    drv = headless_chromium("--allow-file-access-from-files")
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()


def on_disk(url: str) -> pathlib.Path:
    parts = urllib.parse.urlsplit(url)
    return pathlib.Path(urllib.parse.unquote(parts.path))


def walk(drv, root: pathlib.Path):
    """Follows every internal link from root/index.html; returns (the site paths of the
    pages visited, problems)."""
    root = root.resolve()
    start = (root / "index.html").as_uri()
    todo, seen, problems = [start], {start}, []
    visited = set()
    while todo:
        url = todo.pop()
        drv.get(url)
        here = on_disk(url).relative_to(root)
        visited.add(str(here))
        if drv.execute_script("return document.title").startswith("Index of"):
            problems.append(f"{here}: opened a folder listing")
            continue
        for raw, resolved, tag in drv.execute_script(LINKS):
            if not resolved.startswith("file://"):
                continue                      # http(s), mailto:, data:, javascript: are not internal
            target = on_disk(resolved)
            where = f"{here}: <{tag}> {raw!r}"
            if root != target and root not in target.parents:
                problems.append(f"{where} leaves the site ({target})")
            elif target.is_dir():
                problems.append(f"{where} opens a folder from disk ({target.relative_to(root)}/)")
            elif not target.is_file():
                problems.append(f"{where} names no file ({target.relative_to(root)})")
            elif tag == "a" and target.suffix == ".html":
                page = urllib.parse.urlunsplit(urllib.parse.urlsplit(resolved)._replace(query="", fragment=""))
                if page not in seen:
                    seen.add(page)
                    todo.append(page)
    return visited, problems


def test_every_internal_link_opens_a_file_from_disk_and_inside_a_bag(dossier_bin, browser, tmp_path):
    project, build = built_demo(dossier_bin)
    assert build.returncode == 0, build.stdout + build.stderr
    site = project / "_site"
    visited, problems = walk(browser, site)
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"
    pages = [p for p in site.rglob("*.html") if not p.relative_to(site).parts[0] == "assets"]
    # no internal requirement code shows on a page (scripts are the kits' own matter)
    import re
    code = re.compile(r"\b(FRQ|REQ|NFR)\d+\b|\(seed [A-Z]\d+\)|\bseed \d+[a-z]\.\d+|\(F\d+\)")
    shown = {str(p.relative_to(site)): code.search(re.sub(r"(?s)<script.*?</script>", "", p.read_text()))
             for p in pages}
    assert not {k: v.group(0) for k, v in shown.items() if v}, "requirement codes on pages"
    # every page of the sitemap is reached by following links from the home page
    locs = re.findall(r"<loc>[^<]*?/demo/([^<]*)</loc>", (site / "sitemap.xml").read_text())
    listed = {loc if loc.endswith(".html") else loc + "index.html" for loc in locs}
    assert not {p for p in listed - visited if not re.fullmatch(UNLINKED, p)}, sorted(listed - visited)
    assert len(visited) >= 40

    bag = tmp_path / "demo-bag"
    p = subprocess.run([dossier_bin, "archive", str(project), "--output", str(bag)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    in_bag, problems = walk(browser, bag / "data" / "site")
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"
    assert in_bag == visited


FOLDER_CORPUS = {
    # the links sites made with Hugo or Jekyll write (issue #45)
    "index.md": "# Home\n\nRead [the blog](blog/), [also](blog), [a post](blog/post/#part) and [x](/docs/x/).\n",
    "blog/index.md": "# Blog\n\n[Home](..) · [home again](../) · [x](../x/#frag) · [post](post)\n",
    "blog/post.md": "# Post\n\n## Part\n\n[Up](..) · [top](../../) · [x](/docs/x) · [blog](/docs/blog/)\n",
    "x.md": "---\ntitle: X\n---\n# X\n\n## Frag\n\n[blog](../blog/) · [root](/docs/)\n",
}


def folder_project(root: pathlib.Path, corpus=FOLDER_CORPUS) -> pathlib.Path:
    (root / "content").mkdir(parents=True)
    (root / "dossier.yml").write_text("title: T\nbase_url: https://e.org/docs/\n")
    for name, text in corpus.items():
        (root / "content" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "content" / name).write_text(text)
    return root


def test_folder_links_build_and_open_files_from_disk_and_inside_a_bag(run_dossier, browser, tmp_path):
    project = folder_project(tmp_path / "p")
    run_dossier("build", project)
    site = project / "_site"
    post = (site / "blog" / "post" / "index.html").read_text()
    for rewritten in ('href="../index.html"', 'href="../../index.html"', 'href="../../x/index.html"',
                      'href="../../blog/index.html"'):
        assert rewritten in post, rewritten
    home = (site / "index.html").read_text()
    assert 'href="blog/post/index.html#part"' in home and 'href="x/index.html"' in home
    visited, problems = walk(browser, site)
    assert not problems, "\n".join(problems)
    assert {"index.html", "blog/index.html", "blog/post/index.html", "x/index.html"} <= visited
    bag = tmp_path / "bag"
    run_dossier("archive", project, "--output", bag)
    in_bag, problems = walk(browser, bag / "data" / "site")
    assert not problems, "\n".join(problems)
    assert in_bag == visited


def test_a_folder_without_index_html_is_refused_naming_file_and_line(run_dossier, tmp_path):
    project = tmp_path / "p"
    (project / "content" / "a").mkdir(parents=True)
    (project / "dossier.yml").write_text("title: T\n")
    (project / "content" / "a" / "c.md").write_text("# C\n")           # a/ holds c/index.html, no index.html
    (project / "content" / "b.md").write_text("# B\n\nSee [a](../a/) for more.\n\nAnd [up](/x/).\n")
    p = run_dossier("build", project, check=False)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "content/b.md:3: link '../a/' names a folder with no index.html" in p.stderr, p.stderr
    # without base_url a site-absolute link does not say which file it means
    assert "content/b.md:5: dangling link '/x/'" in p.stderr, p.stderr
    assert not (project / "_site").exists()
    (project / "content" / "a" / "index.md").write_text("# A\n")
    (project / "content" / "b.md").write_text("# B\n\nSee [a](../a/) for more.\n")
    run_dossier("build", project)
    assert 'href="../a/index.html"' in (project / "_site" / "b" / "index.html").read_text()


def test_the_dangling_link_report_groups_by_file_with_a_count(run_dossier, tmp_path):
    project = tmp_path / "p"
    (project / "content").mkdir(parents=True)
    (project / "dossier.yml").write_text("title: T\n")
    (project / "content" / "many.md").write_text("# M\n\n" + "".join(f"[l{i}](gone-{i}.html)\n\n" for i in range(25)))
    (project / "content" / "one.md").write_text("# O\n\n[l](nope.html)\n")
    p = run_dossier("build", project, check=False)
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    many = [i for i, l in enumerate(lines) if l.startswith("content/many.md")]
    assert len(many) == 11 and many == list(range(many[0], many[0] + 11)), p.stderr     # together, capped
    assert "content/many.md:3: dangling link 'gone-0.html'" in p.stderr
    assert "15 more bad links in this file (25 in all)" in lines[many[-1]]
    assert any(l.startswith("content/one.md:3: dangling link 'nope.html'") for l in lines), p.stderr
    assert "26 bad links in 2 files" in p.stderr
    assert not (project / "_site").exists()
