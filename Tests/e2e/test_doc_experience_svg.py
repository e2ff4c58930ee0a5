"""docs/experience-analysis.md, "The SVG", re-implemented from the doc alone (not from Sources/): the overview
page's graph of seeded-random experiences, the demo and edge cases, against the door graph and warnings computed by
test_doc_experience_analysis.py (the doc's model), which also runs `dossier experiences validate --json`."""
import collections, html as htmllib, json, re, shutil  # noqa: E401
import xml.etree.ElementTree as ET
import pytest, regex  # noqa: E401
from conftest import REPO
from test_doc_experience_analysis import YML, analyse, check_warnings, classify, compare_json, make_set, run, slug, \
    validate_all, write_experience

NS = "{http://www.w3.org/2000/svg}"
BROWN, GREEN, GREY = "#8a4b00", "#1f6f43", "#4a5a6a"

def check_page(site, name, x, exp, media_dir):
    page = site / "experiences" / slug(name) / "overview" / "index.html"
    html, g = page.read_text(), exp["graph"]
    assert re.search(r'<div class="xp-graph" role="region" tabindex="0" aria-label="[^"]+">', html)
    svg = ET.fromstring(re.search(r"<svg xmlns.*?</svg>", html, re.S)[0])      # well-formed: every text escaped
    vb, desc = [float(v) for v in svg.get("viewBox").split()], svg.find(NS + "desc").text
    assert [float(svg.get("width")), float(svg.get("height"))] == vb[2:]
    assert svg.find(NS + "title").text == f"Panoramas and doors of {x['title']}"
    path = " → ".join(g["shortestPath"]) if g["shortestPath"] else "none: the final panorama cannot be reached"
    assert desc == (f"{len(g['nodes'])} panoramas, {len(g['edges'])} doors. Start: {g['first']}. "
                    f"Final: {g['final']}. Shortest path: {path}.")
    assert min(float(t.get("font-size")) for t in svg.iter(NS + "text")) >= 12
    boxes, pano = {}, dict(zip(g["nodes"], x["panoramas"]))
    for node in svg.iter(NS + "g"):
        pid, title = node.get("data-panorama"), pano[node.get("data-panorama")]["title"]
        assert node.get("class") == "graph-node"
        rect, img, texts = node.find(NS + "rect"), node.find(NS + "image"), node.findall(NS + "text")
        b = boxes[pid] = [float(rect.get(k)) for k in ("x", "y", "width", "height")]
        assert 0 <= b[0] and b[0] + b[2] <= vb[2] and b[1] + b[3] <= vb[3]
        full = regex.findall(r"\X", title)                  # extended grapheme clusters
        assert node.find(NS + "title").text == title
        assert texts[0].text == (title if len(full) <= 20 else "".join(full[:19]) + "…"), (pid, title)
        assert [img.get(k) for k in ("width", "height", "preserveAspectRatio")] == ["160", "80", "xMidYMid slice"]
        assert (page.parent / img.get("href")).read_bytes() == (media_dir / pano[pid]["image"]).read_bytes()
        n, tags = g["clipsPerPanorama"][pid], {"start": pid == g["first"], "final": pid == g["final"],
                                               "dead end": pid in g["deadEnds"]}
        tags = ", ".join(t for t, on in tags.items() if on)
        assert texts[1].text == f"{n} clip{'s' * (n != 1)}" + (" · " + tags if tags else ""), (pid, texts[1].text)
        colour = BROWN if pid in g["unreachable"] else GREEN if pid == g["final"] else GREY
        width = 3 if pid == g["final"] else 1.5
        assert (rect.get("stroke").lower(), float(rect.get("stroke-width"))) == (colour, width), pid
        assert (rect.get("stroke-dasharray") is not None) == (pid in g["unreachable"])
    head = any(t.text == "Cannot be reached" for t in svg.findall(NS + "text"))
    assert set(boxes) == set(g["nodes"]) and head == bool(g["unreachable"]), "the last column's heading"
    col = {i: g["depth"].get(i, max(g["depth"].values()) + 1) for i in g["nodes"]}   # unreachable: a last column
    xs = sorted({b[0] for b in boxes.values()})
    assert all(xs.index(boxes[i][0]) == col[i] for i in g["nodes"]), "columns are breadth-first depth"
    for ys in ([boxes[i][1] for i in g["nodes"] if col[i] == c] for c in set(col.values())):
        assert ys == sorted(ys) and len(set(ys)) == len(ys), "file order within a column"
    ul = re.search(r'<ul class="xp-warnings">(.*?)</ul>', html, re.S)
    shown = [classify(int(m[1]) if m[1] else None, htmllib.unescape(m[2]))
             for m in re.finditer(r"<li>(?:line (\d+): )?(.*?)</li>", ul[1] if ul else "")]
    check_warnings(shown, exp["warnings"])
    return svg, boxes, col
greenish = lambda c: int(c[3:5], 16) > max(int(c[1:3], 16), int(c[5:7], 16))  # noqa: E731
greyish = lambda c: max(rgb := [int(c[k:k + 2], 16) for k in (1, 3, 5)]) - min(rgb) <= 0x30  # noqa: E731

def doors_drawn(svg, boxes):
    """[(from, to, straight, curves below both boxes, loop above the right end, 3 wide and green, 1.5 and grey)]
    from the door paths' points."""
    out = []
    for p in (p for p in svg.iter(NS + "path") if "door" in (p.get("class") or "").split()):
        d = p.get("d")
        pts = [tuple(map(float, q)) for q in re.findall(r"(-?[\d.]+),(-?[\d.]+)", d)]
        a, b = ([i for i, (x, y, w, h) in boxes.items() if x - 1 <= px <= x + w + 1 and y - 1 <= py <= y + h + 1][0]
                for px, py in (pts[0], pts[-1]))
        bottom, (x, top, w, _) = max(boxes[a][1] + boxes[a][3], boxes[b][1] + boxes[b][3]), boxes[a]
        above = a == b and all(y < top for _, y in pts[1:-1]) and all(px > x + w / 2 for px, _ in pts)
        width, stroke = float(p.get("stroke-width")), p.get("stroke")
        out.append((a, b, "C" not in d, "C" in d and all(y > bottom for _, y in pts[1:-1]), above,
                    width == 3 and greenish(stroke), width == 1.5 and greyish(stroke) and not greenish(stroke)))
    return out
def check_doors(svg, boxes, col, exp):
    g, drawn = exp["graph"], doors_drawn(svg, boxes)
    pairs = [(a, b) for a, b, *_ in drawn]
    assert sorted(pairs) == sorted({(a, b) for a, _, b in g["edges"]}), "one arrow per ordered pair"
    on_path = set(zip(g["shortestPath"] or [], (g["shortestPath"] or [])[1:]))
    for a, b, straight, below, above, thick, thin in drawn:
        assert (thick, thin) == ((a, b) in on_path, (a, b) not in on_path), ("3 wide and green, else 1.5 grey", a, b)
        assert above if a == b else straight if col[b] > col[a] else below, ("loop, straight, else below", a, b)

@pytest.mark.parametrize("seed", [1, 2, 3, 57])
def test_random_experiences_validate_and_page(dossier_bin, tmp_path, seed):
    folder, xs, media = make_set(tmp_path, seed)
    proc, reps, exps = validate_all(dossier_bin, folder, xs, media)
    assert len(reps) == len(xs) and proc.returncode == 0
    run(dossier_bin, "build", tmp_path, (tmp_path / "dossier.yml").write_text(YML) and "--quiet")
    for f, x in xs.items():
        check_doors(*check_page(tmp_path / "_site", f, x, exps[f], folder)[:3], exps[f])

def test_demo_experiences(dossier_bin, tmp_path):
    shutil.copytree(REPO / "Examples" / "demo", tmp_path / "demo", ignore=shutil.ignore_patterns("_site*", ".dossier"))
    folder = tmp_path / "demo" / "data" / "experiences"
    proc = run(dossier_bin, "experiences", "validate", "--json", folder)
    run(dossier_bin, "build", tmp_path / "demo")
    media = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    for rep in json.loads(proc.stdout):
        x = json.loads((path := folder / rep["file"].rsplit("/", 1)[-1]).read_text())
        exp = analyse(x, collections.defaultdict(int), media, path.stat().st_size)
        assert compare_json(rep, exp, media) is None and exp["warnings"] == [] and "warning" not in proc.stderr
        check_doors(*check_page(tmp_path / "demo" / "_site", path.name, x, exp, folder)[:3], exp)


@pytest.mark.parametrize("what", ["self", "twice", "unreachable-final"])
def test_loops_repeated_doors_and_an_unreachable_final(dossier_bin, tmp_path, what):
    """A door to its own panorama: a loop above; two doors a→b: one arrow (both counted in the desc); an unreachable
    final panorama: a 3 wide brown dashed border and no path."""
    (folder, xs, media), _ = make_set(tmp_path, 0, count=0), (tmp_path / "dossier.yml").write_text(YML)
    x = xs["ü.json"]
    door = x["panoramas"][0]["triggers"][0]
    x["panoramas"][0]["triggers"] = [dict(door, label=f"b{k}", target="b") for k in range(2)] if what == "twice" \
        else [door]
    x["finalPanorama"] = "a" if what == "self" else "b"
    exp = analyse(x, write_experience(folder / "ü.json", x, True), media, (folder / "ü.json").stat().st_size)
    run(dossier_bin, "build", tmp_path)
    svg, boxes, col = check_page(tmp_path / "_site", "ü.json", x, exp, folder)
    check_doors(svg, boxes, col, exp)
    drawn, fin = doors_drawn(svg, boxes), svg.find(f".//{NS}g[@data-panorama='b']/{NS}rect")
    assert {"twice": lambda: len(drawn) == 1 and len(exp["graph"]["edges"]) == 2,
            "unreachable-final": lambda: (fin.get("stroke"), float(fin.get("stroke-width"))) == (BROWN, 3)
            and fin.get("stroke-dasharray") and exp["graph"]["shortestPath"] is None,
            "self": lambda: drawn[0][:2] == ("a", "a") and drawn[0][4]}[what]()
