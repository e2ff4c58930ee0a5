"""docs/experience-analysis.md re-implemented from the doc alone (not from Sources/): door graph, media sizes and
levels and every graph/media warning, for the demo, edge cases and seeded-random experiences, compared with `dossier
experiences validate [--json]`; the overview page's SVG is checked in test_doc_experience_svg.py."""
import json, math, os, random, re, statistics, struct, subprocess, sys  # noqa: E401
import numpy as np, pytest  # noqa: E401
from conftest import REPO
from experiences_media import tone, wav

BUDGET = 40_000_000
DEMO = REPO / "Examples" / "demo" / "data" / "experiences"
YML = "title: T\noutput: _site\nexperiences:\n  input: data/experiences\n"

def png(w, h, size=0):
    head = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return head + b"\0" * max(4, size - len(head))
def jpeg(w, h, sof=0xC0):
    """SOI, APP0, then DHT (C4), DAC (CC) and JPG (C8) segments whose bytes look like a size, then the SOF."""
    seg = lambda m, body: bytes([0xFF, m]) + struct.pack(">H", len(body) + 2) + body  # noqa: E731
    decoy = struct.pack(">BHHB", 8, 7, 9, 1) + b"\x01\x11\x00"
    return (b"\xff\xd8" + seg(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0") + seg(0xC4, decoy) + seg(0xCC, decoy)
            + seg(0xC8, decoy) + seg(sof, struct.pack(">BHHB", 8, h, w, 1) + b"\x01\x11\x00") + b"\xff\xd9")

def media_pool(rng):
    """path -> bytes: images of many sizes; WAVs in every encoding the doc names and some it excludes."""
    pool = {"img/ok.png": png(2000, 1000), "img/w4096.png": png(4096, 2048), "img/w4097.jpg": jpeg(4097, 2000),
            "img/sq.jpg": jpeg(900, 900, 0xC2), "img/sof15.jpg": jpeg(3000, 1500, 0xCF), "img/tall.png": png(512, 1024)}
    for i, w in ((i, rng.randrange(100, 9000)) for i in range(4)):
        pool[f"img/r{i}." + ("png" if i % 2 else "jpg")] = (png if i % 2 else jpeg)(w, rng.choice([w // 2, w, 77]))
    kinds = [dict(bits=8), dict(bits=16), dict(bits=24, extra_chunk=True), dict(bits=32), dict(bits=32, fmt=3),
             dict(bits=64, fmt=3, channels=2), dict(bits=16, extensible=True), dict(bits=16, truncate=1001),
             dict(bits=24, channels=2, truncate=5), dict(bits=16, fmt=2), dict(bits=12), dict(bits=16, fmt=7),
             dict(bits=32, fmt=3, extensible=True), dict(bits=64, fmt=3, extensible=True, channels=2),
             dict(bits=16, fmt=2, extensible=True)]
    for i, k in enumerate(kinds):
        amp, n = 10 ** (-rng.uniform(0, 45) / 20), rng.randrange(600, 3000)
        pool[f"snd/w{i}.wav"] = wav(tone(amp, n=n, channels=k.get("channels", 1)), **k)
    pool.update({"snd/silent.wav": wav([0.0] * 300), "snd/nodata.wav": wav(tone(0.1))[:36],
                 "snd/s.mp3": b"ID3\x04" + bytes(70), "snd/s.ogg": b"OggS" + bytes(6), "snd/s.flac": b"fLaC" + bytes(9),
                 "vid/v.mp4": b"\0\0\0\x18ftypisom" + bytes(64), "vid/v.webm": b"\x1a\x45\xdf\xa3" + bytes(60)})
    return pool

def image_size(b):
    if b[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", b[16:24])
    i = 2
    while b[i + 1] not in set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}:   # walk the segments to the first SOF
        i += 2 + struct.unpack(">H", b[i + 2:i + 4])[0]
    return struct.unpack(">H", b[i + 7:i + 9])[0], struct.unpack(">H", b[i + 5:i + 7])[0]   # width, height

def wav_level(b):
    """None when not measurable, else a dict (rms and peak None when silent)."""
    pos, fmt, data = 12, None, None
    while pos + 8 <= len(b):
        cid, size = b[pos:pos + 4], struct.unpack("<I", b[pos + 4:pos + 8])[0]
        fmt = b[pos + 8:pos + 8 + size] if cid == b"fmt " and fmt is None else fmt
        if cid == b"data":
            data = b[pos + 8:pos + 8 + size]     # may be truncated: the samples present are used
            break
        pos += 8 + size + (size & 1)
    if b[:4] != b"RIFF" or b[8:12] != b"WAVE" or fmt is None or data is None or len(fmt) < 16:
        return None
    tag, ch, rate, _, _, bits = struct.unpack("<HHIIHH", fmt[:16])
    if tag == 0xFFFE and len(fmt) >= 40:              # extensible: the sub-format GUID's first two bytes
        tag = struct.unpack("<H", fmt[24:26])[0]
    if (tag, bits) not in {(1, 8), (1, 16), (1, 24), (1, 32), (3, 32), (3, 64)}:
        return None
    n, lv = len(data) // (bits // 8), dict(channels=ch, rate=rate, bits=bits, rms=None, peak=None)
    raw = np.frombuffer(data[:n * bits // 8], dtype=np.uint8)
    if bits == 24:                    # v/8388608 == (v << 8)/2^31: pad a zero low byte, read as 32-bit
        raw, bits = np.pad(raw.reshape(-1, 3), ((0, 0), (1, 0))).reshape(-1), 32
    s = raw.view({(3, 32): "<f4", (3, 64): "<f8", (1, 8): "u1", (1, 16): "<i2", (1, 32): "<i4"}[tag, bits])
    s = s.astype(np.float64) if tag == 3 else (s.astype(np.float64) - 128 * (bits == 8)) / 2 ** (bits - 1)
    peak, lv["n"] = float(np.max(np.abs(s))) if n else 0.0, n
    return lv if peak == 0 else dict(lv, rms=20 * math.log10(math.sqrt(float(np.sum(s * s)) / n)),
                                     peak=20 * math.log10(peak))

def analyse(x, lines, media, file_bytes):
    """The doc's numbers and warnings (kind, key, line, extra) in the doc's order for the graph's. lines: ('pano', i)
    / ('trig', i, j) -> the line of the object's `{`, ('body', i, j) -> its first key's, ('key', K) -> key K's."""
    ps, edges, warns = x["panoramas"], [], []
    ids = [p.get("id", f"p{i + 1}") for i, p in enumerate(ps)]
    for i, p in enumerate(ps):
        for j, t in [(j, t) for j, t in enumerate(p.get("triggers", [])) if t["kind"] == "door"]:
            edges.append((ids[i], t["label"], t["target"]))
            self_lines = (lines["trig", i, j], lines.get(("body", i, j), lines["trig", i, j]))   # the doc gives none
            warns += [("self", ids[i], self_lines, None)] * (t["target"] == ids[i])
    first, final = x.get("firstPanorama", ids[0]), x.get("finalPanorama", ids[-1])
    out = {i: [e[2] for e in edges if e[0] == i] for i in ids}
    depth, parent, order = {first: 0}, {}, [first]
    for u in order:                                    # breadth-first, doors in file order
        for v in (v for v in out[u] if v not in depth):
            depth[v], parent[v], _ = depth[u] + 1, u, order.append(v)
    unreach, dead = [i for i in ids if i not in depth], [i for i in ids if i in depth and not out[i] and i != final]
    path = [final] if final in depth else None
    while path and path[0] != first:
        path.insert(0, parent[path[0]])
    colour = dict.fromkeys(ids, 0)
    def visit(u):  # noqa: E306                                      # three-colour depth-first search
        colour[u] = 1
        if any(colour[v] == 1 or (colour[v] == 0 and visit(v)) for v in out[u]):
            return True
        colour[u] = 2
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(ids) + 100))
    cycle = any(colour[i] == 0 and visit(i) for i in ids)
    line_of = {i: lines["pano", k] for k, i in enumerate(ids)}
    warns += [("unreachable", i, line_of[i], None) for i in unreach] + [("deadend", i, line_of[i], None) for i in dead]
    if final not in depth:                             # the finalPanorama key's line, else the final panorama's
        warns.append(("final", final, lines["key", "finalPanorama"] if "finalPanorama" in x else line_of[final], None))
    clips = {i: sum(t["kind"] in ("sound", "video") for t in p.get("triggers", [])) for i, p in zip(ids, ps)}
    graph = dict(nodes=ids, edges=edges, first=first, final=final, reachable=order, unreachable=unreach,
                 deadEnds=dead, clipsPerPanorama=clips, totalClips=sum(clips.values()), finalClips=clips[final],
                 shortestPath=path, hasCycle=cycle, depth=depth)
    items, levels, sizes, loud = {}, {}, {}, set()    # items: path -> (role, line of first use), in the doc's order
    for i, p in enumerate(ps):                         # the images in file order, then the trigger media
        items.setdefault(p["image"], ("image", lines["pano", i]))
    for i, p in enumerate(ps):
        for j, t in [(j, t) for j, t in enumerate(p.get("triggers", [])) if "media" in t]:
            items.setdefault(t["media"], (t["kind"], lines["trig", i, j]))
    for mp, (role, line) in items.items():
        if role == "image":
            w, h = sizes[mp] = image_size(media[mp])
            warns += [("wide", mp, line, (w,))] * (w > 4096) + [("ratio", mp, line, (w, h))] * (w != 2 * h)
        elif role == "sound" and mp.endswith(".wav"):
            levels[mp] = wav_level(media[mp])
    measured = [u for u in items if (levels.get(u) or {}).get("rms") is not None]   # each file once; not silent
    for k, u in enumerate(measured if len(measured) >= 2 else []):
        others = statistics.median([levels[v]["rms"] for m, v in enumerate(measured) if m != k])
        if levels[u]["rms"] - others > 10:
            loud.add(u)
            warns.append(("loud", u, items[u][1], (levels[u]["rms"] - others, levels[u]["rms"], others)))
    total = file_bytes + sum(len(media[p]) for p in items)
    warns += [("budget", None, None, (total,))] * (total > BUDGET)
    return dict(graph=graph, roles=items, sizes=sizes, levels=levels, loud=loud, total=total, warnings=warns)

def write_experience(path, x, split=False):
    """One panorama per line, one trigger per line; split: every second one's `{` alone on the line before it."""
    out, lines, ps = ["{"], {}, x["panoramas"]
    for k in [k for k in ("title", "kind", "firstPanorama", "finalPanorama") if k in x]:
        lines["key", k], _ = len(out) + 1, out.append(f"{json.dumps(k)}: {json.dumps(x[k], ensure_ascii=False)},")
    out.append('"panoramas": [')
    for i, p in enumerate(ps):
        lines["pano", i], trig = len(out) + 1, p.get("triggers", [])
        body = json.dumps(dict(p, triggers=0), ensure_ascii=False)[:-2] + "["   # "triggers" last
        out += ["{", body[1:]] if split and i % 2 else [body]
        for j, t in enumerate(trig):
            lines["trig", i, j], body = len(out) + 1, json.dumps(t, ensure_ascii=False) + "," * (j < len(trig) - 1)
            out += ["{", body[1:]] if split and (i + j) % 2 else [body]
            lines["body", i, j] = len(out)
        out.append("]}" + "," * (i < len(ps) - 1))
    path.write_text("\n".join(out + ["]", "}"]) + "\n", encoding="utf-8")
    return lines

KINDS = {"self": "own panorama", "unreachable": "cannot be reached from", "deadend": "dead end", "final": "never be "
         "finished", "wide": "px wide", "ratio": "twice as wide", "loud": "louder", "budget": "budget"}
def classify(line, msg):
    kind = next((k for k, word in KINDS.items() if word in msg), None)
    q = re.findall(r'"([^"]*)"', msg)
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", msg.replace("×", " "))]
    return kind, {"self": q[-1] if q else None, "budget": None}.get(kind, q[0] if q else None), line, nums
def program_warnings(stderr, file):
    return [classify(int(m[1]) if m[1] else None, m[2])
            for m in re.finditer(rf"^{re.escape(str(file))}(?::(\d+))?: warning: (.*)$", stderr, re.M)]
GRAPH, MEDIA = ("unreachable", "deadend", "final"), ("wide", "ratio", "loud", "budget")
def check_warnings(got, exp):
    """Each warning once, at its line (a tuple: any of them); the graph's in the doc's order."""
    got, left = [w for w in got if w[0]], list(exp)
    g_graph, e_graph = ([w[:3] for w in ws if w[0] in GRAPH] for ws in (got, exp))
    assert g_graph == e_graph, "order, lines"
    assert [w[0] for w in g_graph] == [w[0] for w in e_graph] and sorted(g_graph) == sorted(e_graph), "order, lines"
    for kind, key, ln, nums in got:
        e = next((e for e in left if e[:2] == (kind, key) and ln in (e[2] if isinstance(e[2], tuple) else (e[2],))),
                 None)
        assert e, ((kind, key, ln), exp)
        left.remove(e)
        want = e[3]
        if kind in ("wide", "ratio", "budget"):
            assert all(float(v) in nums for v in want), (kind, key, nums, want)
        elif kind == "loud":   # "X dB louder (RMS Y dBFS) than the median … (Z dBFS)", one decimal
            assert [round(v, 1) for v in want] == pytest.approx(nums[-3:], abs=0.051), (key, nums, want)
    assert not left, ("missing", left)

def compare_json(rep, exp, media):
    g, e, m = rep["graph"], exp["graph"], rep["media"]
    keys = "nodes first final reachable unreachable clipsPerPanorama totalClips finalClips hasCycle".split()
    assert {k: g[k] for k in keys} == {k: e[k] for k in keys}
    assert [(d["from"], d["label"], d["to"]) for d in g["edges"]] == e["edges"]
    assert g["deadEnds"] == e["deadEnds"] and g.get("shortestPath") == e["shortestPath"]
    assert ("shortestPath" in g) == (e["shortestPath"] is not None), "no path: the key is absent, never null"
    assert m["budgetBytes"] == BUDGET and m["totalBytes"] == exp["total"]
    assert [i["path"] for i in m["items"]] == list(exp["roles"]), "images in file order, then trigger media"
    check_warnings([classify(w.get("line"), w["message"]) for w in m.get("warnings", [])],
                   [w for w in exp["warnings"] if w[0] in MEDIA])          # --json: the media checks only
    for it in m["items"]:
        p, lv = it["path"], exp["levels"].get(it["path"])
        assert (it["bytes"], it["role"], it["loudOutlier"]) == (len(media[p]), exp["roles"][p][0], p in exp["loud"])
        if it["role"] == "image" or lv is None:       # not measured: a note says why
            assert (it.get("width"), it.get("height")) == exp["sizes"].get(p, (None, None)) and "level" not in it
            assert it["role"] == "image" or it.get("levelNote"), p
            continue
        got, want = it["level"], (lv["channels"], lv["rate"], lv["bits"], lv["n"] // lv["channels"])
        assert (got["channels"], got["sampleRate"], got["bitsPerSample"], got["frames"]) == want, p
        for k in ("rms", "peak"):
            assert got.get(f"{k}DBFS") == (None if lv[k] is None else pytest.approx(lv[k], abs=1e-7)), (p, k)

def run(dossier_bin, *args, ok=True):
    proc = subprocess.run([dossier_bin, *map(str, args)], capture_output=True, text=True, timeout=600)
    assert (proc.returncode == 0) == ok, proc.stdout + proc.stderr
    return proc
def validate_all(dossier_bin, folder, xs, media, split=True):
    exps = {f: analyse(x, write_experience(folder / f, x, split), media, (folder / f).stat().st_size)
            for f, x in xs.items()}
    proc = run(dossier_bin, "experiences", "validate", "--json", *[folder / f for f in sorted(xs)])
    reps = {r["file"]: r for r in json.loads(proc.stdout)}
    for f in xs:
        compare_json(reps[str(folder / f)], exps[f], media)
        check_warnings(program_warnings(proc.stderr, folder / f), exps[f]["warnings"])
    return proc, reps, exps
slug = lambda name: re.sub(r"[^a-z0-9]+", "-", name[:-5].lower()).strip("-") or "experience"  # noqa: E731

def random_experience(rng, media, title):
    ids = rng.sample("hall Gate-2 pond_1 x a9 Z room b-b q_q k7 yard w1".split(), n := rng.randrange(1, 10))
    sounds, vids, imgs = ([m for m in media if m.startswith(d)] for d in ("snd/", "vid/", "img/"))
    rng.shuffle(sounds)
    titles = ["Hall", "Ünïcödé & <tag> \"q\" très long title", "e\u0301" * 30, "👩‍👩‍👧 family " * 4, "a" * 60,
              "12345678901234567890", "123456789012345678901", "Dentist's chair"]
    ps = []
    for i, trig in ((i, []) for i in range(n)):
        for j in range(rng.choice([0, 0, 1, 2, 3, 5])):
            kind = rng.choice(["door", "door", "door", "sound", "sound", "video", "note"])
            t = {"kind": kind, "yaw": rng.randrange(-180, 181), "pitch": rng.randrange(-90, 91), "label": f"L{i}{j}<&>"}
            t.update({"door": {"target": rng.choice(ids)}, "note": {"text": "Ducks live here."},
                      "video": {"media": rng.choice(vids)}}.get(kind) or {"media": sounds.pop() if sounds else None})
            trig += [t] * (t.get("media", "") is not None)
        ps.append({"id": ids[i], "title": rng.choice(titles), "image": rng.choice(imgs), "triggers": trig})
    ends = {k: rng.choice(ids) for k in ("firstPanorama", "finalPanorama") if rng.random() < 0.3}
    return {"title": title, "panoramas": ps, **ends}
def make_set(tmp_path, seed, count=8):
    """(folder, {file name: experience}, media): `count` random experiences plus edge cases, all valid."""
    rng, folder = random.Random(seed), tmp_path / "data" / "experiences"
    for p, b in (media := media_pool(rng)).items():
        (folder / p).parent.mkdir(parents=True, exist_ok=True)
        (folder / p).write_bytes(b)
    xs = {f"r{i:02d}.json": random_experience(rng, media, f"Random {seed % 97}-{i}") for i in range(count)}
    sounds = [{"kind": "sound", "yaw": 0, "pitch": 0, "label": m, "media": m} for m in media if m.startswith("snd/")]
    xs.update({"Zahnärztin Besuch!.json": {"title": "One scene", "panoramas": [{"title": "O", "image": "img/ok.png"}]},
               "ü.json": {"title": "Only a cycle", "finalPanorama": "a", "panoramas": [
                   {"id": "a", "title": "A", "image": "img/ok.png", "triggers": [
                       {"kind": "door", "yaw": 0, "pitch": 0, "label": "loop", "target": "a"}]},
                   {"id": "b", "title": "B", "image": "img/ok.png"}]},
               "All Sounds.json": {"title": "All sounds", "panoramas": [
                   {"id": "s", "title": "S", "image": "img/sq.jpg", "triggers": sounds}]}})
    return folder, xs, media

def test_large_graphs_and_the_budget_edges(dossier_bin, tmp_path):
    rng, folder, n, media = random.Random(400), tmp_path, 2000, {"a.png": png(2000, 1000)}
    (folder / "a.png").write_bytes(media["a.png"])
    ps = [{"id": f"n{i}", "title": f"Scene {i}", "image": "a.png", "triggers": [
        {"kind": "door", "yaw": 0, "pitch": 0, "label": f"d{k}", "target": f"n{rng.randrange(n)}"}
        for k in range(rng.choice([0, 1, 1, 2, 3]))]} for i in range(n)]
    chain = [{"id": f"c{i}", "title": "C", "image": "a.png", "triggers": [
        {"kind": "door", "yaw": 0, "pitch": 0, "label": "on", "target": f"c{i + 1}"}] * (i < n - 1)} for i in range(n)]
    xs = {"large.json": {"title": "Large", "panoramas": ps}, "chain.json": {"title": "Chain", "panoramas": chain}}
    for size, name in ((BUDGET, "at.json"), (BUDGET + 1, "over.json")):
        xs[name] = {"title": name[:-5] + " budget", "panoramas": [{"id": "p", "title": "P", "image": name + ".png"}]}
        write_experience(folder / name, xs[name])
        media[name + ".png"] = png(3000, 1500, size - (folder / name).stat().st_size)
        (folder / (name + ".png")).write_bytes(media[name + ".png"][:64])      # sparse: 40 MB not really written
        os.truncate(folder / (name + ".png"), len(media[name + ".png"]))
    _, _, exps = validate_all(dossier_bin, folder, xs, media)
    assert [w[0] for w in exps["over.json"]["warnings"]] == ["budget"] and exps["at.json"]["warnings"] == []

@pytest.mark.parametrize("case", ["empty", "dangling", "duplicate"])
def test_errors_stop_with_file_and_line(dossier_bin, tmp_path, case):
    door = {"kind": "door", "yaw": 0, "pitch": 0, "label": "Go", "target": "zz" if case == "dangling" else "a"}
    p = [{"id": "a", "title": "A", "image": "a.png", "triggers": [door]},
         {"id": "ab"[case != "duplicate"], "title": "B", "image": "a.png"}]
    (tmp_path / "a.png").write_bytes(png(2000, 1000))
    lines = write_experience(tmp_path / "x.json", {"title": "Broken", "panoramas": [] if case == "empty" else p})
    proc = run(dossier_bin, "experiences", "validate", "--json", tmp_path / "x.json", ok=False)
    want = {"empty": "", "dangling": lines.get(("trig", 0, 0)), "duplicate": lines.get(("pano", 1))}[case]
    assert proc.returncode == 1 and re.search(rf"^{re.escape(str(tmp_path / 'x.json'))}:{want}", proc.stderr, re.M)

def sound_set(tmp_path, levels_db, uses):
    """One panorama whose sound triggers play s<u>.wav for each u in uses; s<k>.wav: a tone at levels_db[k]."""
    folder, media = tmp_path, {f"s{k}.wav": wav(tone(10 ** (db / 20)) if db is not None else [0.0] * 99)
                               for k, db in enumerate(levels_db)}
    media.update({"a.png": png(2000, 1000), "b.png": png(1000, 500)})
    for n, b in media.items():
        (folder / n).write_bytes(b)
    trig = [{"kind": "sound", "yaw": 0, "pitch": 0, "label": f"c{k}", "media": f"s{u}.wav"} for k, u in enumerate(uses)]
    return folder, {"x.json": dict(title="Sounds", panoramas=[dict(title="A", image="a.png", triggers=trig)])}, media

@pytest.mark.parametrize("levels,uses", [([-40, -20, -29], [0, 1, 2]), ([-40, -20], [1]), ([-3, None], [0, 1]),
                                         ([-40, -40, -20, -20], [0, 1, 2, 3]), ([-40, -29.5, -20], [0, 1, 2]),
                                         ([-40, -24, -24, -20], [0, 0, 0, 0, 0, 1, 2, 3])])   # a file counts once
def test_loudness_outliers(dossier_bin, tmp_path, levels, uses):
    validate_all(dossier_bin, *sound_set(tmp_path, levels, uses))

@pytest.mark.parametrize("case", ["clips", "extensible-float", "order", "no-path", "silent"])
def test_json_rules(dossier_bin, tmp_path, case):
    """Clip counts count triggers, loudness counts files; extensible float is measured; images first, then trigger
    media; no path: no shortestPath key; a silent file is not measured."""
    folder, xs, media = sound_set(tmp_path, [-40, -20, -29] + [None] * (case == "silent"),
                                  {"clips": [0, 0, 0, 1, 2], "silent": [3, 3, 1, 0]}.get(case, [2]))
    x = xs["x.json"]
    if case == "extensible-float":
        media["s2.wav"] = wav(tone(0.5), bits=32, fmt=3, extensible=True)
        (folder / "s2.wav").write_bytes(media["s2.wav"])
    x["panoramas"] += [{"id": "b", "title": "B", "image": "b.png"}] * (case in ("no-path", "order"))
    _, reps, exps = validate_all(dossier_bin, folder, xs, media)
    rep, exp = reps[str(folder / "x.json")], exps["x.json"]
    want = {"clips": lambda: rep["graph"]["totalClips"] == 5 and exp["loud"] == {"s1.wav"},
            "extensible-float": lambda: "level" in rep["media"]["items"][-1],
            "order": lambda: [i["path"] for i in rep["media"]["items"]] == ["a.png", "b.png", "s2.wav"],
            "no-path": lambda: "shortestPath" not in rep["graph"] and exp["graph"]["shortestPath"] is None,
            "silent": lambda: exp["loud"] == {"s1.wav"}
            and rep["media"]["items"][1].get("level", {}).get("rmsDBFS") is None}
    assert want[case]()

def test_dead_end_warnings_in_file_order(dossier_bin, tmp_path):
    (tmp_path / "a.png").write_bytes(png(2000, 1000))
    door = lambda t: {"kind": "door", "yaw": 0, "pitch": 0, "label": "go", "target": t}  # noqa: E731
    x = {"title": "Dead ends", "panoramas": [{"id": "a", "title": "A", "image": "a.png", "triggers": [
        door("c"), door("b"), door("z")]}] + [{"id": i, "title": i, "image": "a.png"} for i in "bcz"]}
    exp = analyse(x, write_experience(tmp_path / "x.json", x), {"a.png": png(2000, 1000)}, 0)
    assert exp["graph"]["reachable"] == ["a", "c", "b", "z"] and exp["graph"]["deadEnds"] == ["b", "c"]
    proc = run(dossier_bin, "experiences", "validate", tmp_path / "x.json")
    assert [w[1] for w in program_warnings(proc.stderr, tmp_path / "x.json") if w[0] == "deadend"] == ["b", "c"]
