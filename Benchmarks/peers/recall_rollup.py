#!/usr/bin/env python3
"""The pandas peer of benchmark 2: what a researcher without Dossier would write.

    python3 Benchmarks/peers/recall_rollup.py --strings strings.txt --logs LOGDIR --out PEER

Reads every native session log (`LOGDIR/*.jsonl`, docs/recall-events.md) into one
DataFrame, computes the Entry-page measures of docs/recall-measures.md with vectorised
pandas (typing segments, CMU keystroke dynamics with FIFO down/up pairing, medians), and
writes

  PEER/csv/study-table.csv                 the Appendix B study table (same bytes as Dossier's)
  PEER/csv/participants/<file stem>.csv    the rolled-up.csv rows it computes: Entry `entry`
                                           and `mean_entry`, Multiple `session_total` and
                                           `dynamics` (each identical to Dossier's row)
  PEER/content/…                           Markdown pages for Hugo: one per participant and
                                           the study summary

It is the *peer*, not an oracle: the benchmark checks it against Dossier on a small study
(`bench.py agree`) so both sides compute the same numbers.
"""
import argparse
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

HEADER = ["participant", "string", "target", "length", "phase", "item", "index", "field",
          "start_ms", "end_ms", "duration_ms", "text", "correct", "rekey", "keystrokes", "deletions",
          "median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms"]
KEEP = ["t", "type", "page", "string", "field", "key", "action", "text", "button"]
FIELD_COUNT = {"memorize": 1, "verify": 1, "entry": 10, "recall": 10}


# MARK: - CSV exactly as Dossier's CSVWriter writes it (RFC 4180, CRLF, formulas neutralised)

def csv_text(s):
    if s[:1] in ("=", "+", "-", "@", "\t", "\r"):
        s = "'" + s
    if any(c in s for c in ',"\n\r') or s.startswith(" ") or s.endswith(" "):
        return '"' + s.replace('"', '""') + '"'
    return s


def fmt_num(d):
    """JSONValue.formatNumber: integers plainly, else %.10g without trailing zeros."""
    if d is None or (isinstance(d, float) and math.isnan(d)):
        return ""
    d = float(d)
    if d == round(d) and abs(d) < 9007199254740992:
        return str(int(d))
    s = "%.10g" % d
    if "e" in s:
        return s
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def write_csv(path, rows):
    """rows: lists of ('t', text) / ('n', number) / None cells."""
    out = []
    for r in rows:
        out.append(",".join("" if c is None else (csv_text(c[1]) if c[0] == "t" else c[1]) for c in r))
    path.write_bytes(("\r\n".join(out) + "\r\n").encode())


def T(s):
    return ("t", s)


def N(x):
    s = fmt_num(x)
    return ("n", s) if s != "" else None


def round_half_away(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def fmt_seconds(s):
    t = "%.2f" % s
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return "0" if t == "-0" else t


# MARK: - Reading

def read_logs(paths):
    """All logs in one DataFrame (events only, `pid` = file index) and [(file stem, participant)]."""
    frames, who = [], []
    for i, p in enumerate(paths):
        df = pd.read_json(p, lines=True, dtype=False)
        who.append((p.stem, str(df.iloc[0]["participant"])))
        # Only the columns the measures use (touch coordinates, `fields` values and the
        # header's keys are dropped before concatenating: a third of the memory).
        ev = df.iloc[1:].reindex(columns=KEEP)
        ev["pid"] = np.int32(i)
        frames.append(ev)
    return pd.concat(frames, ignore_index=True, sort=False), who


# MARK: - Measures

def analyze(df, strings):
    n = len(df)
    pid = df["pid"].to_numpy()
    typ = df["type"].to_numpy()
    t = df["t"].to_numpy(dtype=np.int64)
    new_pid = np.r_[True, pid[1:] != pid[:-1]]
    last_t = df.groupby("pid")["t"].max()

    # Events after `close` are ignored (but still count for the last event time).
    closed_before = pd.Series(typ == "close").groupby(pid).cumsum().to_numpy() - (typ == "close")
    keep = closed_before == 0
    df = df[keep].reset_index(drop=True)
    pid = df["pid"].to_numpy(); typ = df["type"].to_numpy(); t = df["t"].to_numpy(dtype=np.int64)
    new_pid = np.r_[True, pid[1:] != pid[:-1]]

    is_page = typ == "page"
    # The open page (and its string) for every event; a page block per display.
    page = pd.Series(np.where(is_page, df["page"], np.where(new_pid, "", None))).ffill().to_numpy()
    string = pd.Series(np.where(is_page, df["string"], np.where(new_pid, np.nan, np.nan)))
    string = string.where(is_page | new_pid).ffill().to_numpy()
    block = np.cumsum(is_page | new_pid)
    page_start = pd.Series(np.where(is_page, t, -1)).where(is_page | new_pid).ffill().to_numpy()

    # Field of focus and key events: explicit, else the focused field, else 1.
    is_key = typ == "key"
    is_focus = typ == "focus"
    fld = df["field"].to_numpy(dtype=float)
    eff = np.where(is_focus | is_key, fld, np.nan)
    eff = np.where(is_page | new_pid, 0.0, eff)
    eff = pd.Series(eff).ffill().to_numpy()
    eff = np.where(eff == 0, 1.0, eff)
    fcount = pd.Series(page).map(FIELD_COUNT).fillna(0).to_numpy()
    valid_key = is_key & (fcount > 0) & (eff <= fcount)
    key_field = np.where(valid_key, eff, np.nan)

    # Typing segments: a run of keys in one field, ended by a page, a button, a focus on
    # another field or a key in another field.
    prev_key_field = pd.Series(key_field).ffill().shift(1).to_numpy()
    breaker = is_page | new_pid | (typ == "button") | (is_focus & (fld != prev_key_field))
    bc = np.cumsum(breaker)
    k = df[valid_key].copy()
    k["field_"] = key_field[valid_key].astype(int)
    k["bc"] = bc[valid_key]
    k["page_"] = page[valid_key]
    k["string_"] = string[valid_key]
    k["block"] = block[valid_key]
    k["page_start"] = page_start[valid_key]
    k["seg"] = ((k["bc"] != k["bc"].shift()) | (k["field_"] != k["field_"].shift())).cumsum()

    # Field text after each key (an `up` without text keeps it) and deletions.
    k["text_after"] = k["text"].where(k["text"].notna())
    k["text_after"] = k.groupby(["block", "field_"])["text_after"].ffill().fillna("")
    k["text_before"] = k.groupby(["block", "field_"])["text_after"].shift().fillna("")
    pressed = k["action"].fillna("tap") != "up"
    k["pressed"] = pressed
    k["deletion"] = pressed & (k["text_after"].str.len() < k["text_before"].str.len())

    # Keystrokes and FIFO pairing of ups with downs of the same label within a segment.
    k["action_"] = k["action"].fillna("tap")
    g = k.groupby(["seg", "key"], sort=False)
    k["D"] = (k["action_"] == "down").astype(int).groupby([k["seg"], k["key"]]).cumsum()
    k["U"] = (k["action_"] == "up").astype(int).groupby([k["seg"], k["key"]]).cumsum()
    k["DU"] = (k["D"] - k["U"]).clip(upper=0)
    k["m"] = k["U"] + k["DU"].groupby([k["seg"], k["key"]]).cummin()
    k["m_prev"] = k["m"].groupby([k["seg"], k["key"]]).shift().fillna(0)
    ups = k[(k["action_"] == "up") & (k["m"] > k["m_prev"])][["seg", "key", "m", "t"]].rename(columns={"m": "D", "t": "up_t"})
    strokes = k[pressed].copy()
    strokes = strokes.merge(ups, how="left", on=["seg", "key", "D"]) if len(ups) else strokes.assign(up_t=np.nan)
    strokes.loc[strokes["action_"] == "tap", "up_t"] = np.nan
    strokes["H"] = strokes["up_t"] - strokes["t"]
    nxt_down = strokes.groupby("seg")["t"].shift(-1)
    nxt_up = strokes.groupby("seg")["up_t"].shift(-1)
    strokes["DD"] = nxt_down - strokes["t"]
    strokes["UD"] = nxt_down - strokes["up_t"]
    strokes["UU"] = nxt_up - strokes["up_t"]

    # One row per segment (entries); only Entry-page ones are reported here.
    seg = k.groupby("seg", sort=True).agg(
        pid=("pid", "first"), page=("page_", "first"), string=("string_", "first"), field=("field_", "first"),
        first_t=("t", "first"), last_t=("t", "last"), text=("text_after", "last"), deletions=("deletion", "sum"))
    pk = k[pressed].groupby("seg")["t"]
    seg["start"] = pk.first().reindex(seg.index).fillna(seg["first_t"]).astype(np.int64)
    seg["end"] = pk.last().reindex(seg.index).fillna(seg["last_t"]).astype(np.int64)
    seg["keystrokes"] = pk.size().reindex(seg.index).fillna(0).astype(int)
    seg = seg[seg["page"] == "entry"].copy()
    seg["string"] = seg["string"].astype(int)
    seg["duration"] = seg["end"] - seg["start"]
    seg["target"] = seg["string"].map(lambda s: strings[s - 1])
    seg["correct"] = seg["text"] == seg["target"]
    seg["order"] = seg.groupby(["pid", "string"]).cumcount() + 1
    seg["rekey"] = seg.groupby(["pid", "string", "field"]).cumcount() > 0
    es = strokes[strokes["seg"].isin(seg.index)]
    for m in ("H", "DD", "UD", "UU"):
        seg["med_" + m] = es.groupby("seg")[m].median().reindex(seg.index)

    # Session: complete, first Memorize display, Recall end / last Recall keystroke.
    pages = df[is_page]
    complete = pages[pages["page"] == "thankyou"].groupby("pid").size() > 0
    mem_start = pages[pages["page"] == "memorize"].groupby("pid")["t"].min()
    rec_pages = pages[pages["page"] == "recall"]
    rec_block = pd.Series(block[is_page], index=pages.index)[rec_pages.index]
    last_rec_block = pd.Series(rec_block.to_numpy(), index=rec_pages["pid"].to_numpy()).groupby(level=0).last()
    # The Recall page is left at the next page event, else at the last event.
    next_page_t = pd.Series(np.r_[pages["t"].to_numpy()[1:], -1], index=pages.index)
    next_page_pid = pd.Series(np.r_[pages["pid"].to_numpy()[1:], -1], index=pages.index)
    rec_end = {}
    for idx in rec_pages.index:
        p_ = pages.at[idx, "pid"]
        rec_end[p_] = next_page_t[idx] if next_page_pid[idx] == p_ else last_t[p_]
    rk = k[(k["page_"] == "recall") & k["pressed"]]
    rk = rk[rk["block"].to_numpy() == last_rec_block.reindex(rk["pid"]).to_numpy()]
    rec_last_key = rk.groupby("pid")["t"].max()
    return seg, strokes[strokes["seg"].isin(seg.index)], complete, mem_start, rec_end, rec_last_key, last_t


def median_or_none(s):
    s = s.dropna()
    return None if s.empty else float(s.median())


# MARK: - Output

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strings", type=Path, required=True)
    ap.add_argument("--logs", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    text = a.strings.read_text(encoding="utf-8-sig")
    strings = [line.rstrip("\r") for line in text.split("\n")][:10]
    paths = sorted(a.logs.glob("*.jsonl"))
    df, who = read_logs(paths)
    seg, strokes, complete, mem_start, rec_end, rec_last_key, last_t = analyze(df, strings)

    csvdir = a.out / "csv/participants"
    csvdir.mkdir(parents=True, exist_ok=True)
    content = a.out / "content/participants"
    content.mkdir(parents=True, exist_ok=True)
    lengths = [len(s) for s in strings]
    cols = sorted(range(10), key=lambda i: (lengths[i], i))
    table_complete, table_incomplete = [], []
    seg_by_pid = dict(tuple(seg.groupby("pid")))
    strokes_by_pid = dict(tuple(strokes.groupby("pid"))) if len(strokes) else {}
    empty = seg.iloc[0:0]
    for i, (stem, participant) in enumerate(who):
        ps = seg_by_pid.get(i, empty)
        st = strokes_by_pid.get(i)
        rows = [[T(h) for h in HEADER]]
        means = {}
        md = [f"---\ntitle: \"Participant {participant}\"\n---\n", f"# Participant {participant}\n",
              "| string | target | entries | incorrect | re-keys | mean entry (s) | median DD (ms) |",
              "|---:|---|---:|---:|---:|---:|---:|"]
        for s, es in ps.groupby("string", sort=True):
            tgt = strings[s - 1]
            base = [T(participant), N(s), T(tgt), N(len(tgt)), T("Entry")]
            for e in es.itertuples():
                rows.append(base + [T("entry"), N(e.order), N(e.field), N(e.start), N(e.end), N(e.duration),
                                    T(e.text), T("True" if e.correct else "False"), T("True" if e.rekey else "False"),
                                    N(e.keystrokes), N(e.deletions), N(e.med_H), N(e.med_DD), N(e.med_UD), N(e.med_UU)])
            mean = es["duration"].sum() / len(es) / 1000
            means[s] = mean
            ss = st[st["seg"].isin(es.index)] if st is not None else None
            meds = [median_or_none(ss[m]) if ss is not None else None for m in ("H", "DD", "UD", "UU")]
            rows.append(base + [T("mean_entry"), N(len(es)), None, None, None, N(mean * 1000), None, None, None,
                                N(es["keystrokes"].sum()), N(es["deletions"].sum())] + [N(x) for x in meds])
            md.append(f"| {s} | `{tgt}` | {len(es)} | {int((~es['correct']).sum())} | {int(es['rekey'].sum())} "
                      f"| {fmt_seconds(round_half_away(mean * 100) / 100)} | {fmt_num(meds[1])} |")
        done = bool(complete.get(i, False))
        start = mem_start.get(i)
        end = None
        if start is not None and not pd.isna(start):
            if done and i in rec_end:
                end = rec_last_key.get(i, rec_end[i])
            else:
                end = last_t[i]
        else:
            start = None
        total = end - start if start is not None and end is not None else None
        rows.append([T(participant), None, None, None, T("Multiple"), T("session_total"), None, None, N(start), N(end),
                     N(total), T("complete" if done else "incomplete")] + [None] * 8)
        meds = [median_or_none(st[m]) if st is not None else None for m in ("H", "DD", "UD", "UU")]
        rows.append([T(participant), None, None, None, T("Multiple"), T("dynamics")] + [None] * 10 + [N(x) for x in meds])
        write_csv(csvdir / f"{stem}.csv", rows)
        md += ["", f"Session: {'complete' if done else 'incomplete'}, {fmt_num(total) or '—'} ms. "
               f"Median hold {fmt_num(meds[0]) or '—'} ms, down-down {fmt_num(meds[1]) or '—'} ms, "
               f"up-down {fmt_num(meds[2]) or '—'} ms, up-up {fmt_num(meds[3]) or '—'} ms.", ""]
        (content / f"{stem}.md").write_text("\n".join(md))
        values = [means.get(c + 1) for c in cols]
        row = [participant] + ["" if v is None else fmt_seconds(round_half_away(v * 100) / 100) for v in values]
        (table_complete if done else table_incomplete).append(row)

    # The study table (Appendix B layout), cells typed as Dossier types them.
    def cell(s):
        if s == "":
            return None
        try:
            float(s)
            if s[0] != "+" and "_" not in s and s.strip() == s:
                return ("n", s)
        except ValueError:
            pass
        return T(s)
    rows = [["label"] + [f"s{j + 1}" for j in range(10)], ["order"] + [str(c + 1) for c in cols],
            ["string"] + [strings[c] for c in cols], ["string length"] + [str(lengths[c]) for c in cols],
            ["section", "complete"] + [""] * 9] + table_complete + [["section", "incomplete"] + [""] * 9] + table_incomplete
    write_csv(a.out / "csv/study-table.csv", [[cell(c) for c in r] for r in rows])
    md = ["---\ntitle: \"Memorization study\"\n---\n", "# Memorization study\n",
          f"{len(who)} participants ({len(table_complete)} complete).\n",
          "| participant | " + " | ".join(f"`{strings[c]}`" for c in cols) + " |",
          "|---|" + "---:|" * 10]
    for r in table_complete + table_incomplete:
        md.append("| " + " | ".join(r) + " |")
    md.append("")
    md += [f"- [{p}](participants/{stem}/)" for stem, p in who]
    (a.out / "content/_index.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
