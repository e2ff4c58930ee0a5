"""docs/charts.md, heatmaps and edge data: desktop cohorts (Appendix B files, whose values and labels go straight
into a heatmap) with hostile labels, equal, huge, missing and many values; the study heatmap and the side-by-side
scatter of six simulated participants. Expected values come from charts_oracle.py (the doc re-implemented)."""
import csv, math, re, subprocess  # noqa: E401
import pytest
import charts_oracle as co
from charts_oracle import NS
from test_doc_charts import chart, charts, rows, site, study  # noqa: F401  (module fixture reused)

HEAD = ("label,s1,s2,s3,s4,s5,s6,s7,s8,s9,s10\norder,1,9,3,10,5,6,4,7,2,8\n"
        "string,5c2'Qe,3.bH1o,m3)61fHw,ua7t?C2#,p4d46*3TXY,q80<u?c2mv,d51)u4;X3wrf,6n04%Ei'Hm3V,m#o)fp^2aRf207,"
        "4i_55fQ$2Mnh30\nstring length,6,6,8,8,10,10,12,12,14,14\nsection,complete,,,,,,,,,\n")
COLS = ["1 (6)", "9 (6)", "3 (8)", "10 (8)", "5 (10)", "6 (10)", "4 (12)", "7 (12)", "2 (14)", "8 (14)"]
LONG = "L" + "x" * 48 + "!"
HOSTILE = [("<script>alert(1)</script>", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), ('a"b\'c&d', [0.5] + [None] * 9),
           ("\u202eevil\u202c", [3.333] + [None] * 9), (LONG, [2] * 10), ("nul\x00here", [1] * 10)]
MANY = [(f"p{i:03d}", [round(((i * 37 + j * 11) % 97) / 7, 2) for j in range(10)]) for i in range(300)]
COHORTS = {"hostile": HOSTILE, "equal": [("p1", [2.5] * 10)], "empty": [("p1", [None] * 10)],
           "huge": [("p1", [0, 1e6, 2e6, 3.7e6, 5, 6, 7, 8, 9, 10])], "one": [("only", [4.2] + [None] * 9)],
           "many": MANY, 'a&b<i>"q': [("p1", [1] * 10)]}

def cell(v):
    return "" if v is None else repr(v)

@pytest.fixture(scope="module")
def cohorts(dossier_bin, tmp_path_factory):
    root = tmp_path_factory.mktemp("cohorts") / "c"
    subprocess.run([dossier_bin, "new", str(root), "-q"], check=True)
    (root / "data/recall").mkdir(parents=True)
    (root / "data/recall/strings.txt").write_text(HEAD.splitlines()[2].split(",", 1)[1].replace(",", "\n") + "\n")
    names = []
    for name, rs in COHORTS.items():
        body = "".join(f'"{lab.replace(chr(34), 2 * chr(34))}",' + ",".join(cell(v) for v in vals) + "\n" for lab, vals in rs)
        (root / f"data/recall/{name}.csv").write_text(HEAD + body, encoding="utf-8")
        names.append(f"'data/recall/{name}.csv'")
    with open(root / "dossier.yml", "a") as f:
        f.write(f"recall:\n  strings: data/recall/strings.txt\n  desktop_cohorts: [{', '.join(names)}]\n"
                "  heatmap_rows: 400\n")
    subprocess.run([dossier_bin, "build", str(root), "-q"], check=True, capture_output=True)
    return root

def cohort(root, name):
    return chart(root, "recall/index.html", f"Desktop cohort {name}: entry time (s)")

def heat_cells(svg):
    return [r for g in svg.iter(NS + "g") if g.get("class") == "cells" for r in g.findall(NS + "rect")]

def check_heatmap(svg, table, labels=True):
    """Cells row by row: fill from the doc's colour rule, tooltip "ROW × COL: value (label)", label ink."""
    vals = [v for _, vs in table for v in vs if v is not None]
    lo, hi = min(vals), max(vals)
    cells = heat_cells(svg)
    assert len(cells) == len(table) * 10
    top, h = float(cells[0].get("y")), float(cells[0].get("height"))
    texts = {(t.get("x"), int((float(t.get("y")) - top) // h)): t for g in svg.iter(NS + "g")
             if g.get("class") == "cell-labels" for t in g.findall(NS + "text")}
    for k, r in enumerate(cells):
        lab, v = table[k // 10][0], table[k // 10][1][k % 10]
        head = f"{co.xml_clean(lab)} × {COLS[k % 10]}: "
        if v is None:
            assert (r.get("fill"), r.find(NS + "title").text) == ("#f6f6f6", head + "no value")
            continue
        fill = co.heat_colour(v, lo, hi)
        shown = "%.2f" % v
        vt = co.value_text(v)
        assert (r.get("fill"), r.find(NS + "title").text) == (fill, head + vt + (f" ({shown})" if shown != vt else ""))
        t = texts.get((co.coord(float(r.get("x")) + float(r.get("width")) / 2), k // 10))
        if t is not None:
            assert (t.text, t.get("fill"), t.get("class")) == (shown, co.ink(fill), "ink-dark-" + (
                "black" if co.ink(fill) == "#000000" else "white"))
        elif labels:
            assert float(r.get("height")) < 13 or len(shown) * 6 > float(r.get("width")) - 2, (head, shown)
    return lo, hi

def scale_ticks(svg):
    g = next(g for g in svg.iter(NS + "g") if g.get("class") == "color-scale")
    return [t.text for t in g.findall(NS + "text")], g

def test_study_heatmap_colours_tooltips_and_ink(study):  # noqa: F811
    """".sequential (default): reversed viridis … Domain [min, max]"; "interpolated linearly per sRGB channel …
    rounded to integers (#rrggbb, lower-case)"; cell text "black or white, whichever has the higher WCAG 2 contrast";
    "Every cell's tooltip has the value (and the label, if different)"; cellLabels "%.2f" (recall pages)."""
    cols = sorted(rows(site(study) / "recall/study-strings.csv"), key=lambda c: int(c["appendix_b_position"]))
    people = rows(site(study) / "recall/study-table.csv")
    people = [p for p in people if p["complete"] == "True"] + [p for p in people if p["complete"] != "True"]
    table = [(p["participant"] + ("" if p["complete"] == "True" else " (incomplete)"), [float(p[c["column"]]) if p[c["column"]] else None for c in cols]) for p in people]
    _, wide, narrow, _ = chart(study, "recall/index.html", "Mean entry time per participant and string (s)")
    for svg in (wide, narrow):
        lo, hi = check_heatmap(svg, table)
    d = co.desc_text(wide)
    assert f"Heatmap of {len(table)} rows by 10 columns; values from {co.value_text(lo)} to {co.value_text(hi)}." in d

@pytest.mark.parametrize("name", ["hostile", "equal", "huge", "one", 'a&b<i>"q'])
def test_cohort_heatmaps_follow_the_colour_rule(cohorts, name):
    """Same colour, tooltip and ink rules on a desktop cohort's values, including all values equal ("if lo = hi the
    domain is lo ± 0.5"), huge values and a single value among missing cells ("nil heatmap cells are the no-data
    grey #f6f6f6")."""
    _, wide, narrow, _ = cohort(cohorts, name)
    for svg in (wide, narrow):
        check_heatmap(svg, COHORTS[name])

@pytest.mark.parametrize("name", ["hostile", "equal", "huge", "one", "many"])
def test_colour_scale_ticks_inside_the_domain(cohorts, name):
    """"heatmap colour scale 4" intervals; "The colour scale is a vertical gradient bar right of the grid (high values
    on top) with nice ticks inside the domain, plus an "n/a" swatch when a cell is missing"; "only every k-th is
    written … k = ⌈12 ÷ spacing⌉" where ticks would be less than 12 units apart."""
    vals = [v for _, vs in COHORTS[name] for v in vs if v is not None]
    lo, hi = min(vals), max(vals)
    lo, hi = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
    step, ticks = co.nice_scale(lo, hi, 4)
    want = [co.tick_label(t, step) for t in ticks if lo - 1e-9 <= t <= hi + 1e-9]
    missing = any(v is None for _, vs in COHORTS[name] for v in vs)
    for svg in co.parse_all(cohort(cohorts, name)):
        got, g = scale_ticks(svg)
        bar = next(r for r in g.findall(NS + "rect") if (r.get("fill") or "").startswith("url("))
        spacing = float(bar.get("height")) * step / (hi - lo) if len(want) > 1 else float(bar.get("height"))
        every = 1 if spacing >= 12 else math.ceil(12 / spacing)
        assert got == want[::every] + (["n/a"] if missing else []), (name, got)
        grad = g.find(NS + "linearGradient")
        assert (grad.get("y1"), grad.get("y2")) == ("1", "0"), "high values on top"
        assert [s.get("stop-color").upper() for s in grad.findall(NS + "stop")] == co.VIRIDIS_R
        assert [s.get("offset") for s in grad.findall(NS + "stop")] == [co.coord(i / 9) for i in range(10)]

def test_hostile_labels_are_escaped_dropped_and_cut(cohorts):
    """"Every user-provided string … goes through HTML.escape after dropping the characters XML 1.0 forbids (C0
    controls other than tab, LF, CR …) … a label like <script> is shown as text. Long labels are cut to 28
    characters … with "…" and keep the full text in a <title>"."""
    page = (site(cohorts) / "recall/index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "\x00" not in page
    _, wide, narrow, text = cohort(cohorts, "hostile")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    for svg in (wide, narrow):
        axis = next(g for g in svg.iter(NS + "g") if g.get("class") == "axis axis-y")
        shown = [("".join(t.itertext()) if t.find(NS + "title") is None else t.find(NS + "title").tail,
                  t.find(NS + "title").text if t.find(NS + "title") is not None else None) for t in axis]
        want = [co.xml_clean(lab) for lab, _ in HOSTILE]
        assert [s for s, _ in shown] == [co.cut(w) for w in want]
        assert [full for _, full in shown] == [w if len(w) > 28 else None for w in want]
        assert co.desc_text(svg).count("nulhere") == 1 and "\u202eevil\u202c" in co.desc_text(svg)

def test_hostile_cohort_name_in_title_and_id(cohorts):
    """The title is escaped like any label, and the id is "chart- + a slug of the title … + the FNV-1a 32-bit hash"."""
    title = 'Desktop cohort a&b<i>"q: entry time (s)'
    _, wide, narrow, text = cohort(cohorts, 'a&b<i>"q')
    assert "<title id=\"%s-title\">Desktop cohort a&amp;b&lt;i&gt;&quot;q: entry time (s)</title>" % wide.get("id") in text
    d = co.desc_text(wide)
    ids = {co.chart_id("heatmap", title, d[:m.start() + 1]) for m in re.finditer(r"\.(?= |$)", d)}
    assert wide.get("id") in ids and narrow.get("id") == wide.get("id") + "-n"

def test_no_data_heatmap_and_bars(cohorts):
    """"No usable data gives the same frame with a dashed box saying **No data**, and <desc> = description +
    "No data."" (a cohort with only blank cells; a study without participants for the bar charts)."""
    for title in ("Desktop cohort empty: entry time (s)", "Recall rate per string", "Error rates per string"):
        _, wide, narrow, _ = chart(cohorts, "recall/index.html", title)
        for svg in (wide, narrow):
            assert co.desc_text(svg).endswith(" No data.")
            assert [t.text for t in svg.iter(NS + "text") if t.text == "No data"] == ["No data"]
            assert any(r.get("stroke-dasharray") for r in svg.iter(NS + "rect"))
            assert not heat_cells(svg) and not [g for g in svg.iter(NS + "g") if g.get("class") == "bars"]

def test_many_rows_summary_and_thin_borders(cohorts):
    """Summary "each row's values (when ≤ 200 cells)"; "heatmap cell borders thin to 0.5 px below 12 px cells and
    vanish below 5 px"; "on crowded axes only every k-th label is written (horizontal labels ≥ 13 px apart)"."""
    _, wide, narrow, _ = cohort(cohorts, "many")
    d = co.desc_text(wide)
    assert "Heatmap of 300 rows by 10 columns" in d and "p000:" not in d
    for svg in (wide, narrow):
        cells = heat_cells(svg)
        h = float(cells[0].get("height"))
        g = next(g for g in svg.iter(NS + "g") if g.get("class") == "cells")
        width = float(g.get("stroke-width") or 0) if g.get("stroke") not in (None, "none") else 0
        assert width == (0 if h < 5 else 0.5 if h < 12 else 1), (h, width)
        ys = [float(t.get("y")) for g in svg.iter(NS + "g") if g.get("class") == "axis axis-y" for t in g]
        assert ys and all(b - a >= 13 - 0.01 for a, b in zip(ys, ys[1:]))
    check_heatmap(wide, MANY)

def test_scatter_side_by_side_positions_and_integer_x_axis(study):  # noqa: F811
    """"series k … is centred at x + (k − (n − 1)/2) · width/n; the m points a series has at one x are spread evenly
    over 0.8 of its band in their order … point i at ((i + 0.5)/m − 0.5) · 0.8 · width/n"; tooltips keep xValue
    (`S001 (6, 1.32)`); whole-number x values give an integer axis; horizontal n = (width − 100) / 90."""
    _, wide, narrow, _ = chart(study, "recall/index.html", "Entry time against string length")
    pts = [(c, re.fullmatch(r"(.+) \((\d+), (.+)\)", c.find(NS + "title").text).groups())
           for c in wide.iter(NS + "circle") if c.find(NS + "title") is not None]
    at = {}
    for _, (who, x, y) in pts:
        at.setdefault(x, []).append(who)
    moved = []
    seen = {}
    for c, (who, x, y) in pts:
        i = seen[x] = seen.get(x, -1) + 1
        moved.append((c, int(x) + co.side_by_side_offset(0, 1, i, len(at[x]))))
    lo, hi = min(m for _, m in moved), max(m for _, m in moved)
    for svg in (wide, narrow):
        w = int(svg.get("viewBox").split()[2])
        step, ticks = co.nice_scale(lo, hi, co.intervals(w, 90, 100), integer=True)
        assert [t for t, _ in co.axis_ticks(svg, "x")] == [co.tick_label(t, step) for t in ticks]
    xmap = co.linear(co.axis_ticks(wide, "x"))
    for c, m in moved:
        assert abs(float(c.get("cx")) - xmap(m)) <= 0.02, c.find(NS + "title").text
