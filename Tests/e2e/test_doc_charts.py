"""docs/charts.md checked from the doc alone (charts_oracle.py re-implements it; Sources/ not read) against the
charts of a built recall study: six simulated participants (`dossier recall simulate`), every chart of the site."""
import csv, json, pathlib, re, subprocess  # noqa: E401
import pytest
import charts_oracle as co
from charts_oracle import NS

@pytest.fixture(scope="module")
def study(dossier_bin, tmp_path_factory):
    root = tmp_path_factory.mktemp("charts") / "study"
    run = lambda *a: subprocess.run([dossier_bin, *map(str, a)], check=True, capture_output=True, text=True)  # noqa: E731
    run("new", root, "--with", "recall-kit", "-q")
    run("recall", "simulate", "--participants", 6, "--seed", 3, "--output", root / "data/recall/logs", "--force", "-q")
    run("build", root, "-q")
    return root

def site(root):
    return root / "_site"

def pages(root):
    return {p: p.read_text(encoding="utf-8") for p in sorted(site(root).rglob("*.html"))}

def charts(text):
    """[(frame tag, wide svg element, narrow svg element or None, wide text)] of one page."""
    out = []
    for tag, svgs in co.frames(text):
        els = [co.parse(s) for s in svgs]
        out.append((tag, els[0], els[1] if len(els) > 1 else None, svgs[0]))
    return out

def chart(root, rel, title):
    text = (site(root) / rel).read_text(encoding="utf-8")
    return next(c for c in charts(text) if c[1].find(NS + "title").text == title)

def rows(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))

def test_every_chart_is_wellformed_and_accessible(study):
    """"The root is `<svg xmlns=… role="img" aria-labelledby="ID-title ID-desc" …>`; its first children are
    `<title id="ID-title">` … and `<desc id="ID-desc">`"; "viewBox="0 0 W H" …, width="100%", style="height:auto",
    preserveAspectRatio="xMidYMid meet""; "a background rectangle (class="chart-background")"; the title "drawn as
    visible text at the top (… aria-hidden …)"."""
    seen = 0
    for text in pages(study).values():
        for _, wide, narrow, _ in charts(text):
            for svg in (wide, narrow):
                i, seen = svg.get("id"), seen + 1
                assert (svg.tag, svg.get("role"), svg.get("aria-labelledby")) == (NS + "svg", "img", f"{i}-title {i}-desc")
                kids = list(svg)
                assert (kids[0].tag, kids[0].get("id"), kids[1].tag, kids[1].get("id")) == \
                    (NS + "title", i + "-title", NS + "desc", i + "-desc")
                assert (svg.get("width"), svg.get("style"), svg.get("preserveAspectRatio")) == \
                    ("100%", "height:auto", "xMidYMid meet")
                w, h = svg.get("viewBox").split()[2:]
                assert svg.get("viewBox").startswith("0 0 ") and kids[2].get("class") == "chart-background"
                assert (kids[2].get("width"), kids[2].get("height")) == (w, h)
                shown = [t for t in svg.iter(NS + "text") if t.get("class") == "chart-title"]
                assert [t.get("aria-hidden") for t in shown] == ["true"]      # a narrow drawing may cut it with "…"
                assert shown[0].text == kids[0].text or (shown[0].text.endswith("…")
                                                         and kids[0].text.startswith(shown[0].text[:-1].rstrip()))
                assert not list(svg.iter(NS + "script")) and not list(svg.iter(NS + "style"))
    assert seen >= 2 * (6 * 4 + 4)

def test_two_drawings_wide_then_narrow_with_shared_text(study):
    """"the wide drawing at options.width (class chart-wide, ids as given); the narrow drawing at 340 units (class
    chart-narrow; every id … is the wide id plus -n)"; "made once for both drawings: the <desc> text, the marks'
    tooltips"."""
    for text in pages(study).values():
        for tag, wide, narrow, _ in charts(text):
            assert tag == '<div class="chart-frame">'          # every chart here is drawn 640 wide
            assert "chart-wide" in wide.get("class").split() and "chart-narrow" in narrow.get("class").split()
            assert wide.get("viewBox").split()[2] == "640" and narrow.get("viewBox").split()[2] == "340"
            ids = lambda s: sorted(e.get("id") for e in s.iter() if e.get("id"))  # noqa: E731
            assert ids(narrow) == sorted(i.replace(wide.get("id"), wide.get("id") + "-n") for i in ids(wide))
            assert co.desc_text(wide) == co.desc_text(narrow)
            tips = lambda s: sorted(t.text or "" for t in s.iter(NS + "title"))[1:]  # noqa: E731
            marks = lambda s: sorted(t.text or "" for e in s.iter() if e.tag != NS + "text"  # noqa: E731
                                     for t in e.findall(NS + "title") if e is not s)
            assert marks(wide) == marks(narrow), wide.get("id")
            assert tips(wide) or kind_of_empty(wide)

def kind_of_empty(svg):
    return "No data" in co.desc_text(svg)

def test_ids_are_title_slug_and_fnv1a_of_kind_title_description(study):
    """"chart- + a slug of the title (lower-case ASCII letters and digits, other runs become -, at most 24
    characters) + - + the FNV-1a 32-bit hash (8 hex digits) of kind ␟ title ␟ description"."""
    for text in pages(study).values():
        for _, wide, _, _ in charts(text):
            title, desc, kind = wide.find(NS + "title").text, co.desc_text(wide), co.kind_of(wide)
            cands = [desc[:m.start() + 1] for m in re.finditer(r"\.(?= |$)", desc)]
            want = {co.chart_id(kind, title, d) for d in cands}
            assert wide.get("id") in want, (wide.get("id"), title)

COORD_ATTRS = ("x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "width", "height")

def test_coordinates_have_at_most_two_decimals_and_never_minus_zero(study):
    """"coordinates are written with at most 2 decimals (rounded half away from zero to hundredths, trailing zeros
    removed, never -0)"."""
    bad = []
    for text in pages(study).values():
        for _, wide, narrow, _ in charts(text):
            for svg in (wide, narrow):
                for e in svg.iter():
                    nums = [e.get(a) for a in COORD_ATTRS if e.get(a) and e.get(a) != "100%"]
                    nums += re.findall(r"-?\d+(?:\.\d+)?", e.get("d") or "")
                    nums += re.findall(r"-?\d+(?:\.\d+)?", e.get("transform") or "")
                    bad += [n for n in nums if not re.fullmatch(r"-?(0|[1-9]\d*)(\.\d?[1-9])?", n) or n == "-0"]
    assert bad == []

def test_box_plot_statistics_and_value_axis_follow_boxstats(study):
    """"Quantile p by linear interpolation, Hyndman & Fan type 7"; "fences Q1 − 1.5·IQR and Q3 + 1.5·IQR"; "Whiskers
    end at the smallest and largest data values inside the fences"; "Outliers: values outside the fences, drawn as
    hollow vermillion circles"; summary "per group: n, median, Q1, Q3, mean, whiskers, outliers (≤ 10 listed)";
    integer axis for whole-number data, value axis n = (height − 110) / 45; negatives with U+2212."""
    for who in ("S001", "S003", "S006"):
        groups = co.dynamics(study / f"data/recall/logs/{who}.jsonl")
        _, wide, narrow, _ = chart(study, f"recall/participants/{who}/index.html", "Keystroke dynamics (Entry pages)")
        v = co.value_text
        for (name, vals), box in zip(groups.items(), [g for g in wide.iter(NS + "g") if g.get("class") == "box"]):
            s = co.box_stats(vals)
            out = s["outliers"]
            text = (f"{name}: n {s['n']}, median {v(s['median'])}, Q1 {v(s['q1'])}, Q3 {v(s['q3'])}, mean "
                    f"{v(s['mean'])}, whiskers {v(s['wlo'])} to {v(s['whi'])}")
            if out:
                text += f", {len(out)} outlier{'s' * (len(out) != 1)} (" + ", ".join(map(v, out[:10])) + \
                    (", …" if len(out) > 10 else "") + ")"
            assert box.find(NS + "title").text == text
            assert text + "." in co.desc_text(wide) or text + " " in co.desc_text(wide)
            circles = box.findall(NS + "circle")
            assert [c.find(NS + "title").text for c in circles] == [f"{name} outlier: {v(o)}" for o in out]
            assert all((c.get("fill"), c.get("stroke")) == ("none", "#D55E00") for c in circles)
            y = co.linear(co.axis_ticks(wide, "y"))
            rect = box.find(NS + "rect")
            assert abs(float(rect.get("y")) - y(s["q3"])) <= 0.02 and \
                abs(float(rect.get("y")) + float(rect.get("height")) - y(s["q1"])) <= 0.03
            med = box.find(NS + "line")
            assert abs(float(med.get("y1")) - y(s["median"])) <= 0.02
        allv = [x for vals in groups.values() for x in vals]
        for svg in (wide, narrow):
            h = int(svg.get("viewBox").split()[3])
            step, ticks = co.nice_scale(min(allv), max(allv), co.intervals(h, 45, 110), integer=True)
            assert co.axis_ticks(svg, "y") == [(co.tick_label(t, step), p) for t, (_, p) in
                                               zip(ticks, co.axis_ticks(svg, "y"))], (who, ticks)
            assert len(co.axis_ticks(svg, "y")) == len(ticks)

def test_negative_numbers_use_the_minus_sign(study):
    """"Negative numbers drawn or written for readers on a chart (tick labels, …, tooltips, <desc> summaries, box-plot
    whiskers and outliers) use U+2212 MINUS SIGN … not the hyphen-minus"."""
    negatives = 0
    for text in pages(study).values():
        for _, wide, narrow, _ in charts(text):
            for svg in (wide, narrow):
                for e in svg.iter():
                    for s in (e.text or "",):
                        assert not re.search(r"(^|[\s(,:])-\d", s), s[:200]
                        negatives += len(re.findall(co.MINUS + r"\d", s))
    assert negatives > 0, "the simulated up-down latencies include overlapping keys"

def timeline_spans(svg):
    """[(lane, label, category, start, end)] from the summary (lane: label / category start–end, …)."""
    d, num = co.desc_text(svg), r"(\d+(?:\.\d+)?)"
    return [(lane, *sp) for lane, body in re.findall(r"(String \d+|Recall): (.*?)(?=\. String \d+: |\. Recall: |\.$)", d)
            for sp in re.findall(r" ?([^,/]+?) / (\w+) " + num + "–" + num, body)]

@pytest.mark.parametrize("who", ["S001", "S002", "S003", "S005", "S006"])
def test_timeline_time_axis_ticks(study, who):
    """"the timeline's time axis (width − 140) / 90, each cut to a whole number and at least 2" (n = 5 at the
    default 640, 2 at the narrow 340), then
    NiceScale over the spans' range [first start, last end]; tick labels with the decimals the step needs."""
    _, wide, narrow, _ = chart(study, f"recall/participants/{who}/index.html", "Phase timeline")
    spans = timeline_spans(wide)
    lo, hi = min(float(s[3]) for s in spans), max(float(s[4]) for s in spans)
    for svg in (wide, narrow):
        w = int(svg.get("viewBox").split()[2])
        step, ticks = co.nice_scale(lo, hi, co.intervals(w, 90, 140))
        assert [t for t, _ in co.axis_ticks(svg, "x")] == [co.tick_label(t, step) for t in ticks], (who, w, lo, hi)

def test_timeline_spans_lanes_and_category_colours(study):
    """"Lanes top to bottom in input order"; "Colours follow categories in order of first appearance"; "Spans of a
    lane that overlap are packed into sub-rows" (these do not overlap: one row each); the span's label "is always in
    the tooltip and the summary"; a legend when there is more than one category."""
    for who in ("S001", "S002"):
        _, wide, narrow, _ = chart(study, f"recall/participants/{who}/index.html", "Phase timeline")
        spans = timeline_spans(wide)
        x = co.linear(co.axis_ticks(wide, "x"))
        marks = [r for g in wide.iter(NS + "g") if g.get("class", "").startswith("spans") for r in g
                 if r.tag in (NS + "rect", NS + "path")]
        cats = list(dict.fromkeys(s[2] for s in spans))
        tips = [r.find(NS + "title").text for r in marks]
        assert sorted(tips) == sorted(f"{ln}: {lab} ({cat}) {a}–{b}" for ln, lab, cat, a, b in spans)
        for r in marks:
            ln, lab, cat, a, b = re.fullmatch(r"(.+?): (.+) \((\w+)\) (\d+(?:\.\d+)?)–(\d+(?:\.\d+)?)",
                                              r.find(NS + "title").text).groups()
            assert r.get("fill") == co.OKABE_ITO[cats.index(cat)]
            px = x(float(b)) - x(float(a))
            if r.tag == NS + "path":                   # "narrower than 2 px is an instant, drawn as a diamond"
                assert px < 2.01, (r.find(NS + "title").text, px)
                continue
            assert px >= 1.99
            assert abs(float(r.get("x")) - x(float(a))) <= 0.6
            assert abs(float(r.get("x")) + float(r.get("width")) - x(float(b))) <= 0.6
        rects = [r for r in marks if r.tag == NS + "rect"]
        lanes = list(dict.fromkeys(s[0] for s in spans))
        ys = {ln: {float(r.get("y")) for r in rects if r.find(NS + "title").text.startswith(ln + ":")} for ln in lanes}
        assert all(len(v) == 1 for v in ys.values()), "no overlapping spans: one sub-row per lane"
        order = [min(ys[ln]) for ln in lanes]
        assert order == sorted(order) and len(set(order)) == len(order), "lanes top to bottom in input order"
        legend = next(g for g in wide.iter(NS + "g") if g.get("class") == "legend")
        assert [t.text for t in legend.findall(NS + "text")] == cats
        assert [r.get("fill") for r in legend.findall(NS + "rect")] == co.OKABE_ITO[:len(cats)]

def strings_table(root):
    r = rows(site(root) / "recall/strings.csv")
    order = [s["column"] for s in rows(site(root) / "recall/study-strings.csv")]
    return r, order

def test_error_rate_bars_ticks_geometry_and_palette(study):
    """Bar value axis n = (height − 100) / 45 with 0 included ("Bar charts always include 0 in the value range");
    "grouped bars, one group per category (80% of the band, split between series)"; "series i uses colour i mod 8";
    "A legend is drawn … when there is more than one series"; Values format in tooltips and summary."""
    st = {s["string"]: s for s in rows(site(study) / "recall/strings.csv")}
    cats = sorted(st, key=int)
    series = [[100 * float(st[c]["incorrect_rate"]) for c in cats],
              [float(st[c]["rekeys"]) / float(st[c]["participants_reached"]) for c in cats],
              [float(st[c]["verify_not_ok"]) / float(st[c]["participants_reached"]) for c in cats]]
    _, wide, narrow, _ = chart(study, "recall/index.html", "Error rates per string")
    for svg in (wide, narrow):
        h = int(svg.get("viewBox").split()[3])
        step, ticks = co.nice_scale(0, max(map(max, series)), co.intervals(h, 45, 100))
        assert [t for t, _ in co.axis_ticks(svg, "y")] == [co.tick_label(t, step) for t in ticks]
    y = co.linear(co.axis_ticks(wide, "y"))
    groups = [g for g in wide.iter(NS + "g") if g.get("class") == "series"]
    assert [g.get("fill") for g in groups] == co.OKABE_ITO[:3]
    grid = [float(ln.get("x1")) for g in wide.iter(NS + "g") if g.get("class") == "axis axis-y" for ln in g.findall(NS + "line")]
    left, right = grid[0], float(next(ln for g in wide.iter(NS + "g") if g.get("class") == "axis axis-y"
                                     for ln in g.findall(NS + "line")).get("x2"))
    band = (right - left) / len(cats)
    for k, (g, vals) in enumerate(zip(groups, series)):
        for i, (r, val) in enumerate(zip(g.findall(NS + "rect"), vals)):
            slot = 0.8 * band / 3
            assert abs(float(r.get("x")) - (left + i * band + 0.1 * band + k * slot)) <= 0.02
            assert slot - 1.01 <= float(r.get("width")) <= slot + 0.01
            assert abs(float(r.get("y")) - y(val)) <= 0.02 and abs(float(r.get("y")) + float(r.get("height")) - y(0)) <= 0.02
            assert r.find(NS + "title").text.endswith(": " + co.value_text(val))
    assert [g.get("class") for g in wide.iter(NS + "g")].count("legend") == 1
    _, one, _, _ = chart(study, "recall/index.html", "Recall rate per string")
    assert "legend" not in [g.get("class") for g in one.iter(NS + "g")], "one series: no legend"
