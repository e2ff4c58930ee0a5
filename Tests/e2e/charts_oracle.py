"""docs/charts.md re-implemented from the doc alone (never from Sources/): numbers, ticks, ids, escaping,
colours, box statistics, side-by-side offsets — plus helpers that pull the charts out of a built page."""
import html as htmllib
import json
import math
import re
import xml.etree.ElementTree as ET
from decimal import Decimal, ROUND_HALF_UP

NS = "{http://www.w3.org/2000/svg}"
MINUS = "\u2212"
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
VIRIDIS_R = "#FDE725 #B4DE2C #6DCD59 #35B779 #1F9E89 #26828E #31688E #3E4A89 #482878 #440154".split()
KINDS = ("bar", "line", "scatter", "histogram", "heatmap", "boxplot", "timeline")


# MARK: - numbers ("Numbers")

def round_half_away(x, places):
    """Rounded half away from zero at `places` decimals (Decimal of the double's exact value)."""
    q = Decimal(1).scaleb(-places)
    d = Decimal(x).quantize(q, rounding=ROUND_HALF_UP)   # ROUND_HALF_UP in Decimal = half away from zero
    return d


def coord(x):
    """Coordinates: at most 2 decimals, half away from zero, trailing zeros removed, never -0."""
    d = round_half_away(x, 2)
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "0", "") else s


def value_text(x, shown=True):
    """**Values**: whole below 1e15 without a point; |x| >= 0.01 to 2 decimals trimmed; else %.3g."""
    if x == int(x) and abs(x) < 1e15:
        s = str(int(x))
    elif abs(x) >= 1e15 or abs(x) < 0.01:
        s = "%.3g" % x
    else:
        s = coord(x)
    if s in ("-0",):
        s = "0"
    return s.replace("-", MINUS) if shown else s


def nice_scale(a, b, n, integer=False):
    """NiceScale: (step, ticks) for [a, b] and n intervals (steps 1-4 of "Axis ticks")."""
    if not (math.isfinite(a) and math.isfinite(b)):
        a, b = 0.0, 1.0
    if a == b:
        if integer:
            a, b = a - 1, b + 1
        else:
            d = abs(a) * 0.1 if a != 0 else 1.0
            a, b = a - d, b + d
    raw = (b - a) / n
    k = math.floor(math.log10(raw))
    f = raw / 10 ** k
    if f >= 10:
        f, k = f / 10, k + 1
    m = 1 if f < math.sqrt(2) else 2 if f < math.sqrt(10) else 5 if f < math.sqrt(50) else 10
    step = m * 10.0 ** k
    if integer and step < 1:
        step = 1.0
    lower = math.floor(a / step + 1e-9) * step
    upper = math.ceil(b / step - 1e-9) * step
    dec = step_decimals(step)
    count = int(round((upper - lower) / step))
    ticks = [float(round(lower + i * step, dec)) for i in range(count + 1)]
    return step, ticks


def step_decimals(step):
    """Decimals a step needs: 0 for steps >= 1, then 1, 2, ... up to 6."""
    for d in range(0, 7):
        if abs(step * 10 ** d - round(step * 10 ** d)) < 1e-9 * max(1.0, step * 10 ** d):
            return d
    return 6


def tick_label(v, step):
    """**Tick labels** (with U+2212 for negatives)."""
    if step < 1e-6:
        s = "%.2e" % v
    elif abs(v) >= 1e9 or (step >= 1e9 and v != 0):
        s = ("%." + str(step_decimals(step / 1e9)) + "f") % (v / 1e9) + "G"
    elif abs(v) >= 1e6:
        s = ("%." + str(step_decimals(step / 1e6)) + "f") % (v / 1e6) + "M"
    else:
        s = ("%." + str(step_decimals(step)) + "f") % v
    if re.fullmatch(r"-0(\.0*)?[MG]?", s):
        s = s[1:]
    return s.replace("-", MINUS)


def intervals(size, per, minus):
    """Target number of intervals from the plot size, at least 2 (taken as a whole number)."""
    return max(2, (size - minus) // per)


# MARK: - ids and text ("Ids", "Escaped")

def fnv1a32(text):
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "%08x" % h


def slug(title):
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return s[:24]


def chart_id(kind, title, description):
    return "chart-" + slug(title) + "-" + fnv1a32(kind + "\x1f" + title + "\x1f" + description)


def xml_clean(text):
    """Drop what XML 1.0 forbids: C0 controls other than tab, LF, CR; U+FFFE, U+FFFF."""
    return "".join(c for c in text if not ((ord(c) < 0x20 and c not in "\t\n\r") or c in "\ufffe\uffff"))


def cut(label, limit=28):
    """A label longer than `limit` characters is cut with "…" (28 characters in all)."""
    return label if len(label) <= limit else label[:limit - 1] + "…"


# MARK: - colours ("Heatmap colours", "Dark scheme")

def _rgb(h):
    return [int(h[i:i + 2], 16) for i in (1, 3, 5)]


def heat_colour(v, lo, hi, stops=VIRIDIS_R):
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    t = min(1.0, max(0.0, (v - lo) / (hi - lo)))
    pos = t * (len(stops) - 1)
    i = min(int(math.floor(pos)), len(stops) - 2)
    frac = pos - i
    a, b = _rgb(stops[i]), _rgb(stops[i + 1])
    ch = [int(round_half_away(a[j] + (b[j] - a[j]) * frac, 0)) for j in range(3)]
    return "#%02x%02x%02x" % tuple(ch)


def luminance(h):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in _rgb(h))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def ink(fill):
    """Black or white, whichever contrasts more with the fill (ties: black)."""
    return "#000000" if contrast(fill, "#000000") >= contrast(fill, "#ffffff") else "#ffffff"


# MARK: - box statistics ("Quartiles, whiskers, outliers")

def quantile7(xs, p):
    n = len(xs)
    h = (n - 1) * p
    j = int(math.floor(h))
    nxt = xs[j + 1] if j + 1 < n else xs[j]
    return xs[j] + (h - j) * (nxt - xs[j])


def box_stats(values):
    xs = sorted(v for v in values if math.isfinite(v))
    q1, med, q3 = (quantile7(xs, p) for p in (0.25, 0.5, 0.75))
    iqr = q3 - q1
    lo_f, hi_f = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    inside = [x for x in xs if lo_f <= x <= hi_f]
    return dict(n=len(xs), q1=q1, median=med, q3=q3, mean=sum(xs) / len(xs), wlo=inside[0], whi=inside[-1],
                outliers=[x for x in xs if x < lo_f or x > hi_f])


def side_by_side_offset(k, n, i, m, width=0.8):
    """"Side by side": series k of n centred at (k - (n-1)/2)·width/n, point i of m spread over 0.8 of the band."""
    return (k - (n - 1) / 2) * width / n + ((i + 0.5) / m - 0.5) * 0.8 * width / n


# MARK: - recall logs: keystroke dynamics (docs/recall-measures.md, for the box plot's input)

def dynamics(path):
    """H, DD, UD, UU over the Entry pages of one native log (an entry ends at a page or focus event)."""
    page, n, entries = None, 0, {}
    for line in open(path, encoding="utf-8"):
        if not line.strip():
            continue
        e = json.loads(line)
        if e.get("type") in ("page", "focus"):
            n += 1
        if e.get("type") == "page":
            page = e["page"]
        if e.get("type") == "key" and page == "entry":
            ks, a = entries.setdefault(n, []), e.get("action", "tap")
            if a in ("down", "tap"):
                ks.append([e["key"], e["t"], None, a == "tap"])
            else:
                for s in ks:
                    if s[0] == e["key"] and s[2] is None and not s[3]:
                        s[2] = e["t"]
                        break
    out = {"hold": [], "down-down": [], "up-down": [], "up-up": []}
    for ks in entries.values():
        ks.sort(key=lambda s: s[1])
        out["hold"] += [s[2] - s[1] for s in ks if s[2] is not None]
        for a, b in zip(ks, ks[1:]):
            out["down-down"].append(b[1] - a[1])
            if a[2] is not None:
                out["up-down"].append(b[1] - a[2])
                if b[2] is not None:
                    out["up-up"].append(b[2] - a[2])
    return {k: [float(v) for v in vs] for k, vs in out.items()}


# MARK: - reading a built page

def frames(page_text):
    """Every chart frame of a page: (frame open tag, [svg text, ...])."""
    out = []
    for m in re.finditer(r'(<div class="chart-frame"[^>]*>)(.*?)</div>', page_text, re.S):
        out.append((m[1], re.findall(r"<svg xmlns=.*?</svg>", m[2], re.S)))
    return out


def parse(svg_text):
    return ET.fromstring(svg_text)


def kind_of(svg):
    return next(c[len("dossier-chart-"):] for c in svg.get("class").split() if c.startswith("dossier-chart-"))


def axis_ticks(svg, axis):
    """[(value text, position)] of an axis group ('x' or 'y'), in document order."""
    g = next(g for g in svg.iter(NS + "g") if g.get("class") == "axis axis-" + axis)
    key = "x" if axis == "x" else "y"
    return [(t.text, float(t.get(key))) for t in g.findall(NS + "text")]


def number(label):
    """A tick label back to a float (U+2212, M, G)."""
    s = label.replace(MINUS, "-")
    mult = 1e6 if s.endswith("M") else 1e9 if s.endswith("G") else 1
    return float(s.rstrip("MG")) * mult


def linear(ticks):
    """value -> position from the first and last tick (both written to 2 decimals)."""
    (v0, p0), (v1, p1) = (number(ticks[0][0]), ticks[0][1]), (number(ticks[-1][0]), ticks[-1][1])
    return lambda v: p0 + (v - v0) * (p1 - p0) / (v1 - v0)


def desc_text(svg):
    return svg.find(NS + "desc").text or ""


def unescape(s):
    return htmllib.unescape(s)


def parse_all(chart_tuple):
    """The wide and narrow drawings of a chart tuple (tag, wide, narrow, text)."""
    return [s for s in chart_tuple[1:3] if s is not None]
