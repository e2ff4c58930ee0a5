"""An independent reimplementation of docs/game-privacy.md (and the formats it uses), shared
by the test_doc_game_privacy*.py files, with tests of the program against it.

Written from the docs alone: the keyed generator ("The keyed generator"), the exact noise
("Mechanisms"), the release id and seal, the rows digest ("The data digest"), the clamped
statistics, the rows as shown, the public model and the AUC. Numbers the docs define
elsewhere (a player's measures, docs/game-measures.md) come from `game analyze --json`.
"""
import csv
import hashlib
import hmac
import io
import json
import math
import os
import pathlib
import re
import struct
import subprocess
from fractions import Fraction

import pytest
from conftest import dossier_path  # noqa: E402

M64 = (1 << 64) - 1
GROUPS = ["control", "adhd", "adhd-medicated", "unknown"]
BANDS = ["3–12", "13–17", "18–29", "30–44", "45+", "unknown"]
GENDERS = ["female", "male", "other", "unknown"]
SHARES = [("counts", 1), ("comparisons", 6), ("tau", 1), ("model-fit", 4), ("model-n", 1),
          ("model-auc", 9), ("model", 2)]
COMPARED = [("hitRTSD", 0, 250), ("tau", 0, 400), ("omissionRate", 0, 0.4)]
PUBLIC_FEATURES = [("hitRTSD", 40, 180), ("tau", 40, 340), ("omissionRate", 0, 0.25), ("dPrime", 2, 5),
                   ("commissionRate", 0, 5)]
BIN = dossier_path()   # (DOSSIER_BIN, else the built one)


# MARK: - the keyed generator

class Stream:
    """Block i = HMAC-SHA256(key, context ‖ UInt64_be(i)), read as four big-endian words."""

    def __init__(self, key: bytes, context: bytes):
        self.key, self.context, self.i, self.words = key, context, 0, []

    def word(self):
        if not self.words:
            block = hmac.new(self.key, self.context + self.i.to_bytes(8, "big"), hashlib.sha256).digest()
            self.i += 1
            self.words = [int.from_bytes(block[j:j + 8], "big") for j in range(0, 32, 8)]
        return self.words.pop(0)

    def raw(self, n):
        out = b""
        while len(out) < n:
            out += self.word().to_bytes(8, "big")
        return out[:n]

    def uniform(self, n):
        top, word = (M64, self.word) if n < (1 << 64) else ((1 << 128) - 1, lambda: (self.word() << 64) | self.word())
        limit = top - (top % n)
        while True:
            w = word()
            if w < limit:
                return w % n


def part_stream(key, release, part, digest):
    return Stream(key, (release + "/" + part).encode() + digest)


class Noise:
    """CKS 2020 Algorithms 1 and 2 on exact rationals (kept in lowest terms)."""

    def __init__(self, stream):
        self.s = stream

    def bernoulli(self, p: Fraction):
        return self.s.uniform(p.denominator) < p.numerator

    def bernoulli_exp(self, g: Fraction):
        if g <= 1:
            k = 1
            while self.bernoulli(g / k):
                k += 1
            return k % 2 == 1
        for _ in range(math.floor(g)):
            if not self.bernoulli_exp(Fraction(1)):
                return False
        return self.bernoulli_exp(g - math.floor(g))

    def laplace(self, scale: Fraction):
        t, s = scale.numerator, scale.denominator
        while True:
            u = self.s.uniform(t)
            if not self.bernoulli_exp(Fraction(u, t)):
                continue
            v = 0
            while self.bernoulli_exp(Fraction(1)):
                v += 1
            y = (u + t * v) // s
            b = self.bernoulli(Fraction(1, 2))
            if b and y == 0:
                continue
            return -y if b else y


def laplace_sd(scale):
    q = math.exp(-1 / float(scale))
    return math.sqrt(2 * q) / (1 - q)


def part_eps(eps_milli, part):
    return Fraction(eps_milli * dict(SHARES)[part], 24 * 1000)


def g10(x):
    """docs/json-and-csv.md: %.10g with trailing zeros after the point removed."""
    text = "%.10g" % x
    mant, e, exp = text.partition("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return mant + e + exp


def round_half_away(x):
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


# MARK: - release id, digests, seal

def unit_salt(eps_milli=6000, delta="0", life_milli=None, C="1.0", folds=5, sim=False, kit=""):
    life_milli = 3 * eps_milli if life_milli is None else life_milli
    return (f"C={C};folds={folds};private=false;sim={'true' if sim else 'false'};{kit};v6;"
            f"dp={eps_milli}/{delta}/{life_milli}")


def digest_files(salt, files):
    h = hashlib.sha256(salt.encode())
    for shown, data in files:
        h.update(shown.encode() + data)
    return h.digest()


def rows_digest(conn):
    def enc(v):
        if v is None:
            return b"\x00"
        if isinstance(v, int):
            return b"\x01" + struct.pack(">q", v)
        if isinstance(v, float):
            return b"\x02" + struct.pack(">d", v)
        b = v.encode() if isinstance(v, str) else bytes(v)
        return (b"\x03" if isinstance(v, str) else b"\x04") + struct.pack(">I", len(b)) + b
    h = hashlib.sha256(b"dossier-rows-v1")
    for tag, q in [("S", "SELECT player, complete, diagnosed, medicated, age, gender FROM surveys ORDER BY player"),
                   ("T", "SELECT player, session, start_ms, end_ms, score FROM sessions ORDER BY player, session"),
                   ("E", "SELECT player, session, kind, seq, t_ms, interval_ms, obstacle_kind, volume_on, message "
                         "FROM events ORDER BY player, session, kind, seq")]:
        for row in conn.execute(q):
            h.update(tag.encode() + b"".join(enc(v) for v in row))
    return h.digest()


def digest_db(salt, rows):
    return hashlib.sha256(salt.encode() + b"database:" + rows).digest()


def release_id(key, digest):
    return hmac.new(key, b"dossier-release" + digest, hashlib.sha256).hexdigest()[:16]


def seal(key, pj):
    msg = "dossier-release-file\n" + "".join(
        f"{k}={pj[k]}\n" for k in ("release", "section", "epsilon", "delta", "lifetimeEpsilon", "database"))
    return hmac.new(key, msg.encode(), hashlib.sha256).hexdigest()


def decoy(key, release, i):
    name = hmac.new(key, b"dossier-result-decoy-name" + i.to_bytes(8, "big"), hashlib.sha256).digest()[:16].hex()
    data = b"RMR1" + Stream(key, f"dossier-result-decoy/{release}/{i}".encode()).raw(8220)
    return name + ".rmr", data


# MARK: - reading the site

def read_csv(path):
    raw = pathlib.Path(path).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), f"{path}: no byte-order mark"
    text = raw[3:].decode()
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", ""), f"{path}: not CRLF records"
    return list(csv.DictReader(io.StringIO(text, newline="")))


def noisy_cells(site):
    return {(r["group"], r["age_band"], r["gender"]): int(r["n_noisy"]) for r in read_csv(site / "game/group-counts.csv")}


def shown_row(cells, total):
    """docs/game-privacy.md, "Rows as shown"."""
    c = [max(0, r) for r in cells]
    s = sum(c)
    if s == 0:
        return [0] * len(c)
    out = [cj * total // s for cj in c]
    left = total - sum(out)
    order = sorted(range(len(c)), key=lambda j: (-(c[j] * total % s), j))
    for j in order[:left]:
        out[j] += 1
    return out


def page_tables(html):
    """{aria-label: [[cell text, ...] per row]} of the page's data tables."""
    out = {}
    for label, body in re.findall(r'aria-label="([^"]+)">\s*<table class="data">(.*?)</table>', html, re.S):
        rows = []
        for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S):
            rows.append([re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S)])
        out[label] = rows
    return out


# MARK: - the statistics, from the data

def cohort_cells(lines):
    """(group, band, gender) of every player of JSON Lines records (a survey's age gives the band)."""
    players, surveys = [], {}
    for rec in lines:
        if rec["player"] not in players:
            players.append(rec["player"])
        if rec["type"] == "survey" and (rec["complete"] or rec["player"] not in surveys or not surveys[rec["player"]]["complete"]):
            surveys[rec["player"]] = rec
    cells = {}
    for p in players:
        s = surveys.get(p, {"complete": False})
        g = "unknown" if not s["complete"] else ("control" if not s["diagnosed"] else
                                                  ("adhd-medicated" if s.get("medicated") else "adhd"))
        cells[p] = (g, age_band(s.get("age")), s.get("gender") or "unknown")
    return cells


def age_band(age):
    if age is None:
        return "unknown"
    for hi, band in ((12, "3–12"), (17, "13–17"), (29, "18–29"), (44, "30–44")):
        if age <= hi:
            return band
    return "45+"


def measure(player, name):
    m = player["measures"]
    if name == "tau":
        fit = m.get("exGaussian") or {}
        return (fit.get("params") or {}).get("tau")
    return m.get(name)


def grid(x, lo, hi, steps=100):
    x = lo if x is None or not math.isfinite(x) else min(max(x, lo), hi)
    return round_half_away((x - lo) / (hi - lo) * steps)


def hist_bin(x, lo, hi, bins):
    x = min(max(x, lo), hi)
    return min(bins - 1, math.floor((x - lo) / (hi - lo) * bins))


def quantile(cells, p, lo, hi):
    c = [max(0, v) for v in cells]
    total, width, run = sum(c), (hi - lo) / len(cells), 0
    if total == 0:
        return None
    for i, v in enumerate(c):
        if v > 0 and run + v >= p * total:
            return lo + width * i + (p * total - run) / v * width
        run += v
    return hi


def analyze(files, cwd):
    out = subprocess.run([BIN, "game", "analyze", "--json", *map(str, files)], cwd=cwd, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def comparisons(players, key, release, digest, eps_milli=6000, spread_rounding="sum"):
    """{group: (ñ, {measure: (mean, sd)})} by "The public release"; spread_rounding "sum"
    rounds Σ min(|k − m̃|, D)² (the doc's words), "term" each term."""
    eq = part_eps(eps_milli, "comparisons") / 7
    out = {}
    for g in GROUPS:
        ps = [p for p in players if p["group"] == g and all(measure(p, m) is not None for m, _, _ in COMPARED)]
        noise = Noise(part_stream(key, release, "comparisons/" + g, digest))
        n = len(ps) + noise.laplace(1 / eq)
        stats = {}
        for name, lo, hi in COMPARED:
            ks = [grid(measure(p, name), lo, hi) for p in ps]
            total = sum(ks) + noise.laplace(100 / eq)
            m = min(max(total / n, 0), 100) if n > 0 else None
            terms = [min(abs(k - (m or 0)), 25) ** 2 for k in ks]
            spread = round_half_away(sum(terms)) if spread_rounding == "sum" else sum(round_half_away(t) for t in terms)
            spread += noise.laplace(625 / eq)
            u = (hi - lo) / 100
            stats[name] = (None, None) if m is None else (lo + u * m, u * math.sqrt(max(0, spread) / (n - 1)) if n > 1 else None)
        out[g] = (n, stats)
    return out


def min_bound(eps_milli=6000, k=3):
    eq = part_eps(eps_milli, "comparisons") / 7
    return math.ceil(k / eq)


# MARK: - tests of the generator as the doc states it (no program involved)

def test_laplace_sd_at_eps_6_is_the_docs_numbers():
    s = laplace_sd(Fraction(4))
    assert (round(s, 1), round(s * math.sqrt(24)), round(s * math.sqrt(96))) == (5.6, 28, 55)
    assert min_bound() == 14


def test_the_docs_worked_numbers_follow_from_its_definitions():
    q = math.exp(-float(Fraction(3, 14)))
    assert round(100 * q ** 18 / (1 + q), 1) == 1.2            # a group of 16 passes the ≥ 20 rule
    assert [-(-100000 // m) + 1 for m in (50, 75)] == [2001, 1335]
    assert math.ceil(math.sqrt(6) * (1 + 2e-9) / 40 * 1000) + 6 == 68
    assert round(laplace_sd(Fraction(68)) / 1000, 3) == 0.096    # model-fit noise per coefficient
    assert math.ceil(4 / part_eps(6000, "model-n")) == 16
    assert round(laplace_sd(Fraction(-(-100000 // 77) + 1) / Fraction(9, 4)) / 100000, 3) == 0.008
    assert round(laplace_sd(100 / (part_eps(6000, "comparisons") / 7)) / 100, 1) == 6.6  # % of the range, n = 100
    assert [float(part_eps(6000, p)) for p, _ in SHARES] == [0.25, 1.5, 0.25, 1, 0.25, 2.25, 0.5]


def test_the_stated_bound_on_a_small_group_passing_at_the_default_epsilon():
    # "at most q^(⌈k/ε_q⌉+1)/(1 + q) ≤ e^(−k)·q/(1 + q) < e^(−k)/2 ≈ 2.49 % at any ε (n = 19)"
    for eps_q in (3 / 14, 0.05, 0.5, 1.0, 3.0, 10.0):
        q = math.exp(-eps_q)
        at_19 = q ** (math.ceil(3 / eps_q) + 1) / (1 + q)
        assert at_19 <= math.exp(-3) * q / (1 + q) + 1e-15 < math.exp(-3) / 2 < 0.0249