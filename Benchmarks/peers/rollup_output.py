"""What both study peers write (Benchmarks/peers/recall_rollup.py with pandas,
recall_polars.py with Polars): the CSV files exactly as Dossier's CSVWriter writes them and
the Markdown pages for Hugo, from plain per-participant values (docs/benchmarks.md, "2.").
"""
import argparse
import math
from pathlib import Path

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


def fmt_seconds(s):
    t = "%.2f" % s
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return "0" if t == "-0" else t



def write_outputs(out, strings, who, people):
    """who: [(file stem, participant)]; people[i]: a dict with `entries` {string number:
    [entry dicts: order, field, start, end, duration, text, correct, rekey, keystrokes,
    deletions, med_H, med_DD, med_UD, med_UU]}, `string_meds` {string number: [H, DD, UD,
    UU medians]}, `meds` (the participant's four medians), `done`, `start`, `end`."""
    csvdir = out / "csv/participants"
    csvdir.mkdir(parents=True, exist_ok=True)
    content = out / "content/participants"
    content.mkdir(parents=True, exist_ok=True)
    lengths = [len(s) for s in strings]
    cols = sorted(range(10), key=lambda i: (lengths[i], i))
    table_complete, table_incomplete = [], []
    for (stem, participant), pp in zip(who, people):
        rows = [[T(h) for h in HEADER]]
        means = {}
        md = [f"---\ntitle: \"Participant {participant}\"\n---\n", f"# Participant {participant}\n",
              "| string | target | entries | incorrect | re-keys | mean entry (s) | median DD (ms) |",
              "|---:|---|---:|---:|---:|---:|---:|"]
        for s in sorted(pp["entries"]):
            es = pp["entries"][s]
            tgt = strings[s - 1]
            base = [T(participant), N(s), T(tgt), N(len(tgt)), T("Entry")]
            for e in es:
                rows.append(base + [T("entry"), N(e["order"]), N(e["field"]), N(e["start"]), N(e["end"]),
                                    N(e["duration"]), T(e["text"]), T("True" if e["correct"] else "False"),
                                    T("True" if e["rekey"] else "False"), N(e["keystrokes"]), N(e["deletions"]),
                                    N(e["med_H"]), N(e["med_DD"]), N(e["med_UD"]), N(e["med_UU"])])
            mean = sum(e["duration"] for e in es) / len(es) / 1000
            means[s] = mean
            meds = pp["string_meds"].get(s, [None] * 4)
            rows.append(base + [T("mean_entry"), N(len(es)), None, None, None, N(mean * 1000), None, None, None,
                                N(sum(e["keystrokes"] for e in es)), N(sum(e["deletions"] for e in es))]
                        + [N(x) for x in meds])
            md.append(f"| {s} | `{tgt}` | {len(es)} | {sum(1 for e in es if not e['correct'])} "
                      f"| {sum(1 for e in es if e['rekey'])} "
                      f"| {fmt_seconds(mean)} | {fmt_num(meds[1])} |")
        done, start, end = pp["done"], pp["start"], pp["end"]
        total = end - start if start is not None and end is not None else None
        rows.append([T(participant), None, None, None, T("Multiple"), T("session_total"), None, None, N(start), N(end),
                     N(total), T("complete" if done else "incomplete")] + [None] * 8)
        meds = pp["meds"]
        rows.append([T(participant), None, None, None, T("Multiple"), T("dynamics")] + [None] * 10 + [N(x) for x in meds])
        write_csv(csvdir / f"{stem}.csv", rows)
        md += ["", f"Session: {'complete' if done else 'incomplete'}, {fmt_num(total) or '—'} ms. "
               f"Median hold {fmt_num(meds[0]) or '—'} ms, down-down {fmt_num(meds[1]) or '—'} ms, "
               f"up-down {fmt_num(meds[2]) or '—'} ms, up-up {fmt_num(meds[3]) or '—'} ms.", ""]
        (content / f"{stem}.md").write_text("\n".join(md))
        values = [means.get(c + 1) for c in cols]
        # %.2f of the mean itself, as Dossier rounds it (docs/recall-study-data.md: 45 ms is 0.04)
        row = [participant] + ["" if v is None else fmt_seconds(v) for v in values]
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
    write_csv(out / "csv/study-table.csv", [[cell(c) for c in r] for r in rows])
    md = ["---\ntitle: \"Memorization study\"\n---\n", "# Memorization study\n",
          f"{len(who)} participants ({len(table_complete)} complete).\n",
          "| participant | " + " | ".join(f"`{strings[c]}`" for c in cols) + " |",
          "|---|" + "---:|" * 10]
    for r in table_complete + table_incomplete:
        md.append("| " + " | ".join(r) + " |")
    md.append("")
    md += [f"- [{p}](participants/{stem}/)" for stem, p in who]
    (out / "content/_index.md").write_text("\n".join(md) + "\n")


def read_strings(path):
    """The first ten lines of strings.txt (byte-order mark and CR dropped)."""
    text = path.read_text(encoding="utf-8-sig")
    return [line.rstrip("\r") for line in text.split("\n")][:10]


def arguments(doc, batch=None):
    """Both peers' command line: `--strings FILE --logs FOLDER --out FOLDER` (and
    `--batch N`, participants per batch, when `batch` gives its default); returns the
    arguments, the ten strings and the logs (`*.jsonl`, by name)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strings", type=Path, required=True)
    ap.add_argument("--logs", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    if batch is not None:
        ap.add_argument("--batch", type=int, default=batch, help="participants analysed at once")
    a = ap.parse_args()
    return a, read_strings(a.strings), sorted(a.logs.glob("*.jsonl"))
