#!/usr/bin/env python3
"""The tuned peer of benchmark 2 (issue #45): the study as a competent data engineer
would compute it with Polars — one lazy scan of every log, column expressions and window
functions (`over`), no row loops in the measures, Polars' own thread pool.

    python3 Benchmarks/peers/recall_polars.py --strings strings.txt --logs LOGDIR --out PEER [--batch N]

Participants are analysed in batches of `--batch` (default 1,000) logs, one lazy frame
each: every measure is computed within one participant, so a batch needs nothing from
another, and the peak memory is that of one batch (about 1 GB per 500 participants
unbatched) instead of growing with the study (10,000 participants would need about
20 GB at once).

The same measures as the pandas peer (recall_rollup.py, docs/recall-measures.md): typing
segments, CMU keystroke dynamics with FIFO down/up pairing, medians; the same outputs
(rollup_output.py). `bench.py agree --peer polars` checks it against Dossier.
"""
import json

import polars as pl

from rollup_output import FIELD_COUNT, arguments, write_outputs

SCHEMA = {"t": pl.Int64, "type": pl.String, "page": pl.String, "string": pl.Int64, "field": pl.Float64,
          "key": pl.String, "action": pl.String, "text": pl.String}


def scan(paths):
    """Every event of every log, in file order, with `pid` = the file's index."""
    frames = [pl.scan_ndjson(p, schema=SCHEMA).slice(1).with_columns(pid=pl.lit(i, pl.Int32))
              for i, p in enumerate(paths)]
    return pl.concat(frames, how="vertical")


def analyze(lf, strings):
    c = pl.col
    is_close = (c("type") == "close").cast(pl.Int32)
    lf = lf.with_columns(closed_before=is_close.cum_sum().over("pid") - is_close,
                         last_t=c("t").max().over("pid"))
    lf = lf.filter(c("closed_before") == 0).with_row_index("row")
    new_pid = c("pid") != c("pid").shift(1).fill_null(-1)
    is_page, is_key, is_focus = c("type") == "page", c("type") == "key", c("type") == "focus"
    df = lf.with_columns(new_pid=new_pid).with_columns(
        page_=pl.when(is_page).then(c("page")).when(c("new_pid")).then(pl.lit("")).forward_fill(),
        # a page without a string keeps the one before, as pandas' ffill does
        string_=pl.when(is_page & c("string").is_not_null()).then(c("string")).when(c("new_pid")).then(-1)
        .forward_fill(),
        block=(is_page | c("new_pid")).cast(pl.Int64).cum_sum(),
        eff=pl.when(is_page | c("new_pid")).then(0.0).when(is_focus | is_key).then(c("field")).forward_fill(),
    ).with_columns(
        string_=pl.when(c("string_") >= 0).then(c("string_")),
        eff=pl.when(c("eff") == 0).then(1.0).otherwise(c("eff")),
        fcount=c("page_").replace_strict(FIELD_COUNT, default=0, return_dtype=pl.Int64),
    ).with_columns(valid_key=is_key & (c("fcount") > 0) & (c("eff") <= c("fcount"))).with_columns(
        key_field=pl.when(c("valid_key")).then(c("eff")),
    ).with_columns(
        breaker=is_page | c("new_pid") | (c("type") == "button")
        | (is_focus & (c("field") != c("key_field").forward_fill().shift(1)).fill_null(True)),
    ).with_columns(bc=c("breaker").cast(pl.Int64).cum_sum()).collect()

    k = df.lazy().filter(c("valid_key")).with_columns(field_=c("key_field").cast(pl.Int64)).with_columns(
        seg=((c("bc") != c("bc").shift(1)) | (c("field_") != c("field_").shift(1))).fill_null(True)
        .cast(pl.Int64).cum_sum(),
        text_after=c("text").forward_fill().over(["block", "field_"]).fill_null(""),
        action_=c("action").fill_null("tap"),
    ).with_columns(
        text_before=c("text_after").shift(1).over(["block", "field_"]).fill_null(""),
        pressed=c("action_") != "up",
        D=(c("action_") == "down").cast(pl.Int64).cum_sum().over(["seg", "key"]),
        U=(c("action_") == "up").cast(pl.Int64).cum_sum().over(["seg", "key"]),
    ).with_columns(
        deletion=c("pressed") & (c("text_after").str.len_chars() < c("text_before").str.len_chars()),
        m=c("U") + (c("D") - c("U")).clip(upper_bound=0).cum_min().over(["seg", "key"]),
    ).with_columns(m_prev=c("m").shift(1).over(["seg", "key"]).fill_null(0)).collect()

    ups = k.lazy().filter((c("action_") == "up") & (c("m") > c("m_prev"))).select(
        "seg", "key", D=c("m"), up_t=c("t"))
    strokes = k.lazy().filter(c("pressed")).join(ups, on=["seg", "key", "D"], how="left", maintain_order="left") \
        .with_columns(up_t=pl.when(c("action_") != "tap").then(c("up_t"))).with_columns(
            nxt_down=c("t").shift(-1).over("seg"), nxt_up=c("up_t").shift(-1).over("seg")).with_columns(
            H=c("up_t") - c("t"), DD=c("nxt_down") - c("t"), UD=c("nxt_down") - c("up_t"),
            UU=c("nxt_up") - c("up_t"))

    pressed = k.lazy().filter(c("pressed")).group_by("seg").agg(
        start=c("t").first(), end=c("t").last(), keystrokes=pl.len())
    seg = k.lazy().group_by("seg", maintain_order=True).agg(
        c("pid").first(), page=c("page_").first(), string=c("string_").first(), field=c("field_").first(),
        first_t=c("t").first(), last_t=c("t").last(), text=c("text_after").last(), deletions=c("deletion").sum(),
    ).filter(c("page") == "entry").join(pressed, on="seg", how="left", maintain_order="left").with_columns(
        start=c("start").fill_null(c("first_t")), end=c("end").fill_null(c("last_t")),
        keystrokes=c("keystrokes").fill_null(0),
    ).with_columns(
        duration=c("end") - c("start"),
        target=c("string").replace_strict({i + 1: s for i, s in enumerate(strings)}, return_dtype=pl.String),
        order=pl.int_range(pl.len()).over(["pid", "string"]) + 1,
        rekey=pl.int_range(pl.len()).over(["pid", "string", "field"]) > 0,
    ).with_columns(correct=c("text") == c("target"))
    entry_strokes = strokes.drop("string").join(seg.select("seg", "string"), on="seg", how="inner")
    dyn = ["H", "DD", "UD", "UU"]
    seg_meds = entry_strokes.group_by("seg").agg([c(m).median().alias("med_" + m) for m in dyn])
    seg = seg.join(seg_meds, on="seg", how="left", maintain_order="left")
    string_meds = entry_strokes.group_by(["pid", "string"]).agg([c(m).median() for m in dyn])
    pid_meds = entry_strokes.group_by("pid").agg([c(m).median() for m in dyn])

    # Session: complete, first Memorize display, Recall end / last Recall keystroke.
    pages = df.lazy().filter(is_page).with_columns(
        next_t=c("t").shift(-1), next_pid=c("pid").shift(-1))
    session = pages.group_by("pid").agg(
        done=(c("page") == "thankyou").any(),
        mem_start=c("t").filter(c("page") == "memorize").min(),
        rec_block=c("block").filter(c("page") == "recall").last(),
        rec_end=pl.when(c("next_pid") == c("pid")).then(c("next_t")).otherwise(c("last_t"))
        .filter(c("page") == "recall").last(),
        last_t=c("last_t").first())
    rec_key = k.lazy().filter((c("page_") == "recall") & c("pressed")).join(
        session.select("pid", "rec_block"), on="pid").filter(c("block") == c("rec_block")) \
        .group_by("pid").agg(rec_last_key=c("t").max())
    seg, string_meds, pid_meds, session, rec_key = pl.collect_all(
        [seg, string_meds, pid_meds, session, rec_key])
    return seg, string_meds, pid_meds, session, rec_key


def people_of(n, seg, string_meds, pid_meds, session, rec_key):
    """The plain per-participant values write_outputs takes."""
    dyn = ["H", "DD", "UD", "UU"]
    people = [{"entries": {}, "string_meds": {}, "meds": [None] * 4, "done": False, "start": None, "end": None}
              for _ in range(n)]
    for e in seg.sort("seg").iter_rows(named=True):
        people[e["pid"]]["entries"].setdefault(e["string"], []).append(e)
    for r in string_meds.iter_rows(named=True):
        people[r["pid"]]["string_meds"][r["string"]] = [r[m] for m in dyn]
    for r in pid_meds.iter_rows(named=True):
        people[r["pid"]]["meds"] = [r[m] for m in dyn]
    last_key = dict(rec_key.iter_rows())
    for r in session.iter_rows(named=True):
        p = people[r["pid"]]
        p["done"] = bool(r["done"])
        if r["mem_start"] is not None:
            p["start"] = r["mem_start"]
            has_recall = r["rec_end"] is not None
            p["end"] = last_key.get(r["pid"], r["rec_end"]) if p["done"] and has_recall else r["last_t"]
    return people


def main():
    a, strings, paths = arguments(__doc__, batch=1000)
    who = []
    for p in paths:
        with p.open("rb") as f:
            who.append((p.stem, str(json.loads(f.readline())["participant"])))
    people = []
    for lo in range(0, len(paths), a.batch):
        batch = paths[lo:lo + a.batch]
        people += people_of(len(batch), *analyze(scan(batch), strings))
    write_outputs(a.out, strings, who, people)


if __name__ == "__main__":
    main()
