"""Independent re-implementation of docs/game-measures.md ("Trials", "Seed metrics", "CPT-like measures",
"Added against CPT-3/TOVA") and docs/game-telemetry.md (records, ranges, refusals), from the docs alone.

Hand-written telemetry that hits the edges the docs define (window cut by the next obstacle or the session end,
a tap at exactly `duration`, taps at 99/100 ms, several anticipatory taps in a window, duplicate taps, empty
sessions, sessions out of order, non-ASCII kinds) is analysed with `dossier game analyze --json` and every
measure is recomputed here in Python. The helpers are shared with the `_more`/`_model` files.
"""
import json
import math
import random
import subprocess

import pytest
from scipy import stats

REL = 1e-9


def close(a, b, rel=REL, abs_=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


# MARK: - telemetry writers

def survey(player, complete=True, diagnosed=False, medicated=None, age=25, gender="female"):
    rec = {"type": "survey", "player": player, "complete": complete}
    if complete:
        rec.update(diagnosed=diagnosed, age=age, gender=gender)
        if diagnosed:
            rec["medicated"] = bool(medicated)
    elif age is not None:
        rec["age"] = age
    return rec


def session(player, number, duration, obstacles, taps, start=1000, score=0, kind="crate", **lists):
    """obstacles: appearance times (ms since start); intervals are derived as the docs require."""
    obs, prev = [], 0
    for t in obstacles:
        obs.append([t, t - prev, kind])
        prev = t
    rec = {"type": "session", "player": player, "session": number, "start": start, "end": start + duration,
           "score": score, "obstacles": obs, "taps": sorted(taps)}
    rec.update(lists)
    return rec


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def analyze(dossier_bin, *files, extra=()):
    proc = subprocess.run([dossier_bin, "game", "analyze", "--json", "--quiet", *extra, *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def player_of(analysis, pid):
    return next(p for p in analysis["players"] if p["id"] == pid)


# MARK: - the documented measures

def mean(xs):
    return sum(xs) / len(xs) if xs else None


def sd1(xs):
    if len(xs) < 2:
        return None
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def ols_slope(xs, ys):
    if len(xs) < 2:
        return None
    mx, my = mean(xs), mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def trials(rec):
    """Per-session matching of taps to obstacles (docs/game-measures.md, "Trials")."""
    dur = rec["end"] - rec["start"]
    obs = rec.get("obstacles", [])
    a = [o[0] for o in obs]
    ends = [min(a[i] + 1000, a[i + 1] if i + 1 < len(a) else math.inf, dur + 1) for i in range(len(a))]
    in_window = [[] for _ in a]
    commissions = 0
    for t in rec.get("taps", []):
        idx = next((i for i in range(len(a)) if a[i] <= t < ends[i]), None)
        if idx is None:
            commissions += 1
        else:
            in_window[idx].append(t)
    out = {"hits": 0, "omissions": 0, "rts": [], "positions": [], "isis": [], "anticipatory": 0,
           "censor": [], "obstacles": len(a), "duration": dur, "taps": len(rec.get("taps", [])),
           "omitted_positions": []}
    for i, taps in enumerate(in_window):
        early = [t for t in taps if t - a[i] < 100]
        late = [t for t in taps if t - a[i] >= 100]
        if early:
            out["anticipatory"] += 1
        if late:
            out["hits"] += 1
            out["rts"].append(late[0] - a[i])
            out["positions"].append(i)
            out["isis"].append(obs[i][1] / 1000)
            commissions += len(late) - 1
        else:
            out["omissions"] += 1
            out["omitted_positions"].append(i)
            if ends[i] - a[i] >= 100:
                out["censor"].append(ends[i] - a[i])
    window_time = sum(min(ends[i], dur) - a[i] for i in range(len(a)))
    out["slots"] = (dur - window_time) // 1000
    out["commissions"] = commissions
    return out


def too_fast(p):
    """More than 120 taps per minute of the session."""
    return p["taps"] * 60000 > 120 * p["duration"]


def measures(sessions):
    """Pooled measures of one player (sessions: their records, any order)."""
    sessions = sorted(sessions, key=lambda r: r["session"])
    per = [trials(r) for r in sessions]
    obstacles = sum(p["obstacles"] for p in per)
    hits = sum(p["hits"] for p in per)
    comm = sum(p["commissions"] for p in per)
    played = sum(p["duration"] for p in per)
    rts = [rt for p in per for rt in p["rts"]]
    blocks_x = [pos // 10 for p in per for pos in p["positions"]]
    isis = [x for p in per for x in p["isis"]]
    slots = max(1, sum(p["slots"] for p in per))
    h = (hits + 0.5) / (obstacles + 1)
    f = (min(comm, slots) + 0.5) / (slots + 1)
    zh, zf = stats.norm.ppf(h), stats.norm.ppf(f)
    m, s = mean(rts), sd1(rts)
    scores = [r["score"] for r in sessions]
    practice = [(r["session"], mean(p["rts"])) for r, p in zip(sessions, per) if p["rts"]]
    out = {
        "sessions": len(sessions), "playedMs": played, "encounters": obstacles, "hits": hits,
        "omissions": sum(p["omissions"] for p in per), "commissions": comm,
        "anticipatory": sum(p["anticipatory"] for p in per),
        "meanSessionMs": played / len(sessions),
        "bestScore": max(scores), "lastScore": scores[-1], "meanScore": mean(scores),
        "jumps": sum(len(r.get("jumps", [])) for r in sessions),
        "collisions": sum(len(r.get("collisions", [])) for r in sessions),
        "volumeToggles": sum(len(r.get("volume", [])) for r in sessions),
        "errorLogs": sum(len(r.get("errors", [])) for r in sessions),
        "omissionRate": (obstacles - hits) / obstacles if obstacles else None,
        "commissionRate": comm / (played / 60000) if played else None,
        "anticipatoryRate": sum(p["anticipatory"] for p in per) / obstacles if obstacles else None,
        "hitRTMean": m, "hitRTSD": s, "hitRTCV": s / m if s is not None and m else None,
        "hitRTSE": s / math.sqrt(hits) if s is not None else None,
        "blockSlope": ols_slope(blocks_x, rts), "isiSlope": ols_slope(isis, rts),
        "dPrime": float(zh - zf), "beta": float(math.exp((zf ** 2 - zh ** 2) / 2)),
        "practiceSlope": ols_slope([x for x, _ in practice], [y for _, y in practice]),
        "hitRTs": rts, "censor": [c for p in per for c in p["censor"]],
    }
    out["invalidFlags"] = [p["obstacles"] >= 10 and (p["hits"] < p["obstacles"] / 4 or too_fast(p)) for p in per]
    out["invalidSessions"] = sum(out["invalidFlags"])
    out["perSession"] = [{"durationMs": p["duration"], "obstacles": p["obstacles"], "hits": p["hits"],
                          "omissions": p["omissions"], "commissions": p["commissions"],
                          "hitRTMean": mean(p["rts"]), "hitRTSD": sd1(p["rts"]), "score": r["score"]}
                         for r, p in zip(sessions, per)]
    blocks = {}
    for p in per:
        hit_at = dict(zip(p["positions"], p["rts"]))
        for pos in range(p["obstacles"]):
            b = blocks.setdefault(pos // 10 + 1, {"obstacles": 0, "hits": 0, "omissions": 0, "rts": []})
            b["obstacles"] += 1
            if pos in hit_at:
                b["hits"] += 1
                b["rts"].append(hit_at[pos])
            else:
                b["omissions"] += 1
    out["blocks"] = [{"block": k, "obstacles": b["obstacles"], "hits": b["hits"], "omissions": b["omissions"],
                      "hitRTMean": mean(b["rts"]), "hitRTSD": sd1(b["rts"])} for k, b in sorted(blocks.items())]
    return out


SCALARS = ["sessions", "playedMs", "encounters", "hits", "omissions", "commissions", "anticipatory",
           "meanSessionMs", "bestScore", "lastScore", "meanScore", "jumps", "collisions", "volumeToggles",
           "errorLogs", "omissionRate", "commissionRate", "anticipatoryRate", "hitRTMean", "hitRTSD", "hitRTCV",
           "hitRTSE", "blockSlope", "isiSlope", "dPrime", "beta", "practiceSlope", "invalidSessions"]


def compare_measures(mine, theirs, keys=SCALARS):
    bad = []
    for k in keys:
        if not close(mine[k], theirs.get(k)):
            bad.append(f"{k}: docs {mine[k]!r}, program {theirs.get(k)!r}")
    return bad


# MARK: - hand-made edge-case players

def edge_sessions(pid):
    """One session of 12 obstacles, every documented edge in it."""
    obstacles = [1000, 1500, 2600, 4000, 4050, 6000, 8000, 9000, 9990, 12000, 14000, 15500]
    taps = [
        1050, 1099,              # two anticipatory taps (one window, counted once), then no hit: omission
        1500 + 100,              # exactly 100 ms: the hit
        1500 + 101,              # after the hit in the same window: commission
        2600 + 999,              # last ms of a full window: hit
        2600 + 1000,             # first ms after the window (3600): outside every window, commission
        4000 + 40,               # anticipatory; window [4000, 4050) cut by the next obstacle: omission
        4050 + 99, 4050 + 300,   # anticipatory then a hit
        6000 + 500, 6000 + 500,  # duplicate taps: the hit and a commission
        8000 + 99,               # anticipatory only: omission
        9000 + 989,              # window of 9000 ends (exclusive) at 9990: a hit at 989 ms
        9990, 9990 + 100,        # 0 ms after 9990 (anticipatory), then its hit at exactly 100 ms
        12000 + 300,
        14000 + 1200,            # 15200: outside (window of 14000 ends at 15000), commission; 14000 omitted
        16200,                   # = duration; window of 15500 ends at duration + 1: a hit at 700 ms
    ]
    return [session(pid, 1, 16200, obstacles, taps, score=7, kind="kästchen", jumps=[1600, 4350],
                    collisions=[4650], volume=[[10, 0], [20, 1]], errors=[[16200, "ölfehler"]])]


def multi_sessions(pid, rng):
    """Random sessions (numbered 2, 5, 7, written out of order) with taps at the edges of windows."""
    recs = []
    for number in (5, 2, 7):
        t, obstacles = 0, []
        for _ in range(rng.randint(8, 23)):
            t += rng.choice([0, 60, 100, 400, 999, 1000, 1001, 2000, 4000])
            obstacles.append(t)
        dur = max(0, obstacles[-1] + rng.choice([-1, 0, 50, 150, 999, 2500]))
        obstacles = [o for o in obstacles if o <= dur]
        taps = []
        for a in obstacles:
            for _ in range(rng.randint(0, 3)):
                taps.append(a + rng.choice([0, 50, 99, 100, 101, 350, 700, 999, 1000, 1400]))
        taps += [rng.randint(0, dur) for _ in range(rng.randint(0, 6))]
        taps = sorted(x for x in taps if x <= dur)
        recs.append(session(pid, number, dur, obstacles, taps, start=10_000 * number, score=rng.randint(0, 500),
                            jumps=taps[: len(taps) // 2]))
    return recs


@pytest.fixture(scope="module")
def edge_cohort(tmp_path_factory, dossier_bin):
    rng = random.Random(4242)
    records, sessions = [], {}
    for i in range(8):
        pid = f"p{i}_x-Y"
        records.append(survey(pid, diagnosed=i % 2 == 1, age=20 + i, gender="male" if i < 4 else "female"))
        sessions[pid] = edge_sessions(pid) if i == 0 else multi_sessions(pid, rng)
        records += sessions[pid]
    path = write_jsonl(tmp_path_factory.mktemp("edge") / "edge.jsonl", records)
    return sessions, analyze(dossier_bin, path)


def test_edge_session_counts_match_the_trial_rules(edge_cohort):
    sessions, analysis = edge_cohort
    mine = measures(sessions["p0_x-Y"])
    # The hand count from the comments above, so the re-implementation itself is checked too.
    assert (mine["hits"], mine["omissions"], mine["anticipatory"], mine["commissions"]) == (8, 4, 5, 4)
    assert sorted(mine["censor"]) == [500, 1000, 1000]
    theirs = player_of(analysis, "p0_x-Y")["measures"]
    assert compare_measures(mine, theirs) == []


def test_random_edge_players_match_every_scalar_measure(edge_cohort):
    sessions, analysis = edge_cohort
    problems = {pid: compare_measures(measures(recs), player_of(analysis, pid)["measures"])
                for pid, recs in sessions.items()}
    assert {k: v for k, v in problems.items() if v} == {}


def test_hit_rts_per_session_and_blocks(edge_cohort):
    sessions, analysis = edge_cohort
    for pid, recs in sessions.items():
        mine, theirs = measures(recs), player_of(analysis, pid)["measures"]
        assert sorted(theirs["hitRTs"]) == sorted(mine["hitRTs"]), pid
        assert len(theirs["perSession"]) == len(mine["perSession"])
        for m, t in zip(mine["perSession"], theirs["perSession"]):
            for k, v in m.items():
                assert close(v, t.get(k)), (pid, k, v, t.get(k))
        assert len(theirs["blocks"]) == len(mine["blocks"]), pid
        for m, t in zip(mine["blocks"], theirs["blocks"]):
            for k, v in m.items():
                assert close(v, t.get(k)), (pid, m["block"], k, v, t.get(k))


def test_session_validity_flags(tmp_path, dossier_bin):
    """>= 10 obstacles and hits < 1/4 of them, or > 120 taps/minute: invalid; < 10 obstacles never."""
    obstacles = [1000 * (i + 1) for i in range(12)]
    few_hits = [o + 300 for o in obstacles[:2]]                      # 2 < 12/4
    exactly_quarter = [o + 300 for o in obstacles[:3]]               # 3 = 12/4: valid
    many_taps = sorted([o + 300 for o in obstacles] + [13_500 + i for i in range(20)])  # 32 taps in 14 s
    small = [o + 10 for o in obstacles[:9]]                          # 9 obstacles, no hits: too small to judge
    recs = [session("v", 1, 14_000, obstacles, few_hits), session("v", 2, 14_000, obstacles, exactly_quarter),
            session("v", 3, 14_000, obstacles, many_taps), session("v", 4, 10_000, obstacles[:9], small)]
    analysis = analyze(dossier_bin, write_jsonl(tmp_path / "v.jsonl", [survey("v")] + recs))
    theirs = player_of(analysis, "v")["measures"]
    assert measures(recs)["invalidFlags"] == [True, False, True, False]
    assert theirs["invalidSessions"] == 2
    assert [bool(s.get("invalid")) for s in theirs["perSession"]] == [True, False, True, False]


def test_undefined_values_are_left_empty_not_zero(tmp_path, dossier_bin):
    """No hits: no RT measures; one hit: no SD; no spread in block or interval: no slope."""
    recs = [session("u", 1, 5000, [1000, 2000, 3000], [1010]),
            session("u", 2, 5000, [1000, 2000], [1500])]
    analysis = analyze(dossier_bin, write_jsonl(tmp_path / "u.jsonl", [survey("u")] + recs))
    theirs = player_of(analysis, "u")["measures"]
    for key in ("hitRTSD", "hitRTCV", "hitRTSE", "blockSlope", "isiSlope", "practiceSlope"):
        assert theirs.get(key) is None, (key, theirs.get(key))
    assert theirs["hitRTMean"] == 500
    assert compare_measures(measures(recs), theirs) == []


def test_empty_and_zero_length_sessions(tmp_path, dossier_bin):
    """A session without obstacles adds play time and commissions only; a 0 ms session has no slots."""
    recs = [session("e", 1, 0, [], []), session("e", 2, 60_000, [], [5, 10, 59_999]),
            session("e", 3, 3000, [0, 1000], [150, 1000, 3000])]
    analysis = analyze(dossier_bin, write_jsonl(tmp_path / "e.jsonl", [survey("e")] + recs))
    assert compare_measures(measures(recs), player_of(analysis, "e")["measures"]) == []


def test_commissions_above_the_slot_count_are_capped(tmp_path, dossier_bin):
    """10 commissions against 3 pooled slots: F = (3 + 0.5)/(3 + 1)."""
    obstacles = [0, 1000, 2000]
    taps = [100, 1100, 2100] + [3100 + 50 * i for i in range(10)]
    recs = [session("c", 1, 6000, obstacles, taps)]
    analysis = analyze(dossier_bin, write_jsonl(tmp_path / "c.jsonl", [survey("c")] + recs))
    h, f = 3.5 / 4, 3.5 / 4
    assert close(player_of(analysis, "c")["measures"]["dPrime"], stats.norm.ppf(h) - stats.norm.ppf(f))
    assert close(player_of(analysis, "c")["measures"]["beta"], 1.0)


def test_method_of_moments_acceptance_numbers(dossier_bin):
    xs = [474.688, 506.445, 524.081, 530.672, 530.869, 566.984, 582.311, 582.940, 603.574, 792.358]
    n, m = len(xs), mean(xs)
    v = sum((x - m) ** 2 for x in xs) / (n - 1)
    k3 = sum((x - m) ** 3 for x in xs) / (n - 1)
    tau = (k3 / 2) ** (1 / 3)
    mine = {"mu": m - tau, "sigma": math.sqrt(v - tau ** 2), "tau": tau}
    for k, want in {"mu": 487.83351, "sigma": 31.95942, "tau": 81.65869}.items():
        assert round(mine[k], 5) == want
    proc = subprocess.run([dossier_bin, "game", "fit-exgauss", "--json"], input=" ".join(map(str, xs)),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for k, want in mine.items():
        assert close(out["moments"][k], want, rel=1e-9), (k, out["moments"])


def test_slots_and_the_cap_are_pooled_over_sessions(tmp_path, dossier_bin):
    """10 commissions in a session with 1 slot, none in one with 6: F = (min(10, 7) + 0.5)/(7 + 1), not per session."""
    s1 = session("a", 1, 2000, [0], [100] + [1100 + 50 * i for i in range(10)])
    s2 = session("a", 2, 7000, [0], [100])
    assert [(trials(s)["slots"], trials(s)["commissions"]) for s in (s1, s2)] == [(1, 10), (6, 0)]
    analysis = analyze(dossier_bin, write_jsonl(tmp_path / "cap.jsonl", [survey("a"), s1, s2]))
    want = stats.norm.ppf(2.5 / 3) - stats.norm.ppf(7.5 / 8)
    assert close(player_of(analysis, "a")["measures"]["dPrime"], want)
