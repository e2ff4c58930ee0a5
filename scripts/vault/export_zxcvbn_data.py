#!/usr/bin/env python3
"""Export zxcvbn's frequency lists and keyboard adjacency graphs as Vault resources.

Data source: the `zxcvbn` package on PyPI (Python port of dropbox/zxcvbn, MIT licence).
Only *data* is exported; the matching and scoring algorithm is Dossier's own Swift code.

Output (in Sources/Strength/Resources/):
  zxcvbn-<list>.txt        one word per line, in rank order (line 1 = rank 1)
  zxcvbn-adjacency.json    {"qwerty": {"a": ["…", null, …], …}, …} exactly as shipped
Run: python3 scripts/vault/export_zxcvbn_data.py
"""
import json
import pathlib

from zxcvbn.adjacency_graphs import ADJACENCY_GRAPHS
from zxcvbn.frequency_lists import FREQUENCY_LISTS

OUT = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "Strength" / "Resources"
ORDER = ["passwords", "english_wikipedia", "female_names", "surnames", "us_tv_and_film", "male_names"]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    assert list(FREQUENCY_LISTS) == ORDER, list(FREQUENCY_LISTS)
    for name in ORDER:
        words = FREQUENCY_LISTS[name]
        assert all("\n" not in w and w.isascii() for w in words)
        (OUT / f"zxcvbn-{name}.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    (OUT / "zxcvbn-adjacency.json").write_text(
        json.dumps(ADJACENCY_GRAPHS, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
