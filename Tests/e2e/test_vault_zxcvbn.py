"""zxcvbn agreement: Dossier's strength estimator against the zxcvbn PyPI package (the oracle).

The corpus (>= 2,000 varied passwords) and zxcvbn's scores for it are committed in
Tests/VaultTests/Fixtures/ (built by scripts/vault/make_strength_corpus.py). This test
1. recomputes the oracle with the installed zxcvbn and checks the committed file matches,
2. scores the corpus with the built binary (`dossier vault score --stdin --json`) and
   requires >= 95 % exact score agreement and never more than 1 apart.
"""
import json
import pathlib
import re
import subprocess

import pytest

zxcvbn = pytest.importorskip("zxcvbn").zxcvbn

REPO = pathlib.Path(__file__).resolve().parents[2]
FIX = REPO / "Tests" / "VaultTests" / "Fixtures"


def corpus():
    return (FIX / "strength-corpus.txt").read_text(encoding="utf-8").splitlines()


def test_committed_oracle_is_zxcvbns_output():
    rows = [line.split("\t") for line in (FIX / "strength-oracle.tsv").read_text(encoding="utf-8").splitlines()]
    pws = corpus()
    assert len(pws) >= 2000
    assert [r[0] for r in rows] == pws
    for pw, score, log10 in rows:
        r = zxcvbn(pw)
        assert int(score) == r["score"], pw
        assert abs(float(log10) - float(r["guesses_log10"])) < 1e-5, pw


def test_scores_agree_with_zxcvbn(run_dossier, dossier_bin):
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+vault\b", out, re.M):
        pytest.skip("this dossier binary was built without the vault domain")
    pws = corpus()
    proc = run_dossier("vault", "score", "--stdin", "--json", input="\n".join(pws) + "\n")
    ours = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(ours) == len(pws)
    agree = 0
    worst = 0
    for pw, mine in zip(pws, ours):
        theirs = zxcvbn(pw)["score"]
        agree += mine["score"] == theirs
        worst = max(worst, abs(mine["score"] - theirs))
    assert agree / len(pws) >= 0.95, f"agreement {agree}/{len(pws)}"
    assert worst <= 1
