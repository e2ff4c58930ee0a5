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

import numpy as np
import pandas as pd

from rollup_output import FIELD_COUNT, arguments, write_outputs

KEEP = ["t", "type", "page", "string", "field", "key", "action", "text", "button"]

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
    a, strings, paths = arguments(__doc__)
    df, who = read_logs(paths)
    seg, strokes, complete, mem_start, rec_end, rec_last_key, last_t = analyze(df, strings)
    seg_by_pid = dict(tuple(seg.groupby("pid")))
    strokes_by_pid = dict(tuple(strokes.groupby("pid"))) if len(strokes) else {}
    empty = seg.iloc[0:0]
    people = []
    for i in range(len(who)):
        ps = seg_by_pid.get(i, empty)
        st = strokes_by_pid.get(i)
        entries, string_meds = {}, {}
        for s, es in ps.groupby("string", sort=True):
            entries[s] = [{"order": e.order, "field": e.field, "start": e.start, "end": e.end, "duration": e.duration,
                           "text": e.text, "correct": e.correct, "rekey": e.rekey, "keystrokes": e.keystrokes,
                           "deletions": e.deletions, "med_H": e.med_H, "med_DD": e.med_DD, "med_UD": e.med_UD,
                           "med_UU": e.med_UU} for e in es.itertuples()]
            ss = st[st["seg"].isin(es.index)] if st is not None else None
            string_meds[s] = [median_or_none(ss[m]) if ss is not None else None for m in ("H", "DD", "UD", "UU")]
        done = bool(complete.get(i, False))
        start = mem_start.get(i)
        end = None
        if start is not None and not pd.isna(start):
            end = rec_last_key.get(i, rec_end[i]) if done and i in rec_end else last_t[i]
        else:
            start = None
        meds = [median_or_none(st[m]) if st is not None else None for m in ("H", "DD", "UD", "UU")]
        people.append({"entries": entries, "string_meds": string_meds, "meds": meds, "done": done,
                       "start": start, "end": end})
    write_outputs(a.out, strings, who, people)


if __name__ == "__main__":
    main()
