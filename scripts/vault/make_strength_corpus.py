#!/usr/bin/env python3
"""Build the strength-estimator test corpus and its zxcvbn oracle.

Writes (deterministic: seeded, so re-running gives the same files):
  Tests/VaultTests/Fixtures/strength-corpus.txt   one password per line (no tabs)
  Tests/VaultTests/Fixtures/strength-oracle.tsv   password<TAB>score<TAB>guesses_log10 (zxcvbn 4.5.0)

The corpus is test data (not generated for use): common passwords, dictionary words
with capitals, digits and l33t, names with years, keyboard walks, dates and years,
repeats and sequences, passphrases, and random strings of every class and length 1-72
(zxcvbn-python refuses more than 72 characters).

Usage: python3 scripts/vault/make_strength_corpus.py [--check]
  --check  recompute the oracle for the committed corpus and fail if it differs.
"""
import pathlib
import random
import string
import sys

from zxcvbn import zxcvbn
from zxcvbn.adjacency_graphs import ADJACENCY_GRAPHS
from zxcvbn.frequency_lists import FREQUENCY_LISTS

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIX = ROOT / "Tests" / "VaultTests" / "Fixtures"
CORPUS = FIX / "strength-corpus.txt"
ORACLE = FIX / "strength-oracle.tsv"

L33T = {"a": "4@", "e": "3", "i": "1!", "o": "0", "s": "$5", "t": "7+", "l": "1", "g": "9", "b": "8", "z": "2"}
SPECIAL = "!#$%&()*+,-./:;<=>?@[]^_{|}~"


def walk(rng, graph_name, length):
    g = ADJACENCY_GRAPHS[graph_name]
    key = rng.choice(sorted(g))
    out = [key]
    direction = rng.randrange(len(g[key]))
    for _ in range(length - 1):
        nbrs = g[out[-1]]
        if rng.random() < 0.25 or not nbrs[direction % len(nbrs)]:
            options = [k for k, n in enumerate(nbrs) if n]
            if not options:
                break
            direction = rng.choice(options)
        n = nbrs[direction % len(nbrs)]
        if not n:
            break
        out.append(n[0] if rng.random() < 0.8 or len(n) < 2 else n[1])
    return "".join(out)


def l33t(rng, word, p=0.6):
    return "".join(rng.choice(L33T[c]) if c in L33T and rng.random() < p else c for c in word)


def date(rng):
    y = rng.randint(1940, 2030)
    m = rng.randint(1, 12)
    d = rng.randint(1, 28)
    sep = rng.choice(["", "", "/", "-", ".", "_", " "])
    fmt = rng.choice(["dmy", "mdy", "ymd"])
    yy = str(y) if rng.random() < 0.6 else f"{y % 100:02d}"
    dd = f"{d:02d}" if rng.random() < 0.5 else str(d)
    mm = f"{m:02d}" if rng.random() < 0.5 else str(m)
    parts = {"dmy": [dd, mm, yy], "mdy": [mm, dd, yy], "ymd": [yy, mm, dd]}[fmt]
    return sep.join(parts)


def cap(rng, w):
    r = rng.random()
    if r < 0.3:
        return w.capitalize()
    if r < 0.4:
        return w.upper()
    if r < 0.5:
        return "".join(c.upper() if rng.random() < 0.3 else c for c in w)
    return w


def build():
    rng = random.Random(20261122)
    pw = FREQUENCY_LISTS["passwords"]
    en = FREQUENCY_LISTS["english_wikipedia"]
    tv = FREQUENCY_LISTS["us_tv_and_film"]
    names = FREQUENCY_LISTS["female_names"] + FREQUENCY_LISTS["male_names"] + FREQUENCY_LISTS["surnames"]
    out = []
    out += pw[:100]
    out += [rng.choice(pw) for _ in range(150)]
    out += [cap(rng, rng.choice(en)) for _ in range(120)]
    out += [cap(rng, rng.choice(tv)) + str(rng.randint(0, 999)) for _ in range(80)]
    out += [l33t(rng, rng.choice(en + pw[:5000])) for _ in range(180)]
    out += [cap(rng, l33t(rng, rng.choice(en))) + rng.choice(["", "!", "1", "123", "?", "2019"]) for _ in range(80)]
    out += [rng.choice(en)[::-1] for _ in range(60)]
    out += [cap(rng, rng.choice(names)) + str(rng.randint(1950, 2025)) for _ in range(100)]
    out += [cap(rng, rng.choice(names)) + date(rng) for _ in range(40)]
    out += [walk(rng, rng.choice(["qwerty", "qwerty", "dvorak", "keypad", "mac_keypad"]), rng.randint(3, 14)) for _ in range(160)]
    out += [walk(rng, "qwerty", rng.randint(4, 8)) + str(rng.randint(0, 99)) for _ in range(40)]
    out += [date(rng) for _ in range(150)]
    out += [str(rng.randint(1900, 2030)) for _ in range(30)]
    out += [rng.choice(string.ascii_letters + string.digits + "!@#") * rng.randint(3, 12) for _ in range(50)]
    out += [(rng.choice(en) + rng.choice(["", "1", "!"])) * rng.randint(2, 4) for _ in range(50)]
    for _ in range(60):
        start = rng.randrange(26)
        step = rng.choice([1, 1, 1, -1, 2, 3])
        n = rng.randint(3, 12)
        alphabet = rng.choice([string.ascii_lowercase, string.ascii_uppercase, string.digits * 3])
        out.append("".join(alphabet[(start + step * k) % len(alphabet)] for k in range(n)))
    out += ["".join(rng.choice(en[:5000]) for _ in range(rng.randint(2, 5))) for _ in range(80)]
    out += [rng.choice(["-", " ", ".", ""]).join(cap(rng, rng.choice(en[:20000])) for _ in range(rng.randint(3, 6))) for _ in range(60)]
    out += [cap(rng, rng.choice(en)) + rng.choice(SPECIAL) + rng.choice(names) + str(rng.randint(0, 99)) for _ in range(60)]
    # random strings of every class and length
    classes = [string.ascii_lowercase, string.ascii_uppercase, string.digits, SPECIAL]
    for _ in range(560):
        k = rng.randint(1, 4)
        alphabet = "".join(rng.sample(classes, k))
        length = rng.choice(list(range(1, 25)) + [32, 40, 48, 64, 72])
        out.append("".join(rng.choice(alphabet) for _ in range(length)))
    # dedupe, drop empties, tabs, over-long
    seen = set()
    corpus = []
    for p in out:
        if p and "\t" not in p and "\n" not in p and len(p) <= 72 and p not in seen and p.strip() == p:
            seen.add(p)
            corpus.append(p)
    return corpus


def oracle(corpus):
    lines = []
    for p in corpus:
        r = zxcvbn(p)
        lines.append(f"{p}\t{r['score']}\t{float(r['guesses_log10']):.6f}")
    return "\n".join(lines) + "\n"


def main():
    if "--check" in sys.argv:
        corpus = CORPUS.read_text(encoding="utf-8").splitlines()
        fresh = oracle(corpus)
        if fresh != ORACLE.read_text(encoding="utf-8"):
            sys.exit("strength-oracle.tsv does not match zxcvbn's output for the corpus")
        print(f"oracle ok ({len(corpus)} passwords)")
        return
    corpus = build()
    assert len(corpus) >= 2000, len(corpus)
    FIX.mkdir(parents=True, exist_ok=True)
    CORPUS.write_text("\n".join(corpus) + "\n", encoding="utf-8")
    ORACLE.write_text(oracle(corpus), encoding="utf-8")
    print(f"{len(corpus)} passwords")


if __name__ == "__main__":
    main()
