"""The SecureSMS GSM 03.38 tables against a second implementation: the `gsm0338` codec."""
import json
import random

import gsm0338  # noqa: F401  (registers the gsm03.38 codec)
import pytest

EXT_PRINTABLE = "^{}\\[~]|€"


@pytest.fixture(scope="module")
def tables(dossier_bin):
    import subprocess
    out = subprocess.run([dossier_bin, "sms", "alphabet", "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def ch(hexcode):
    return chr(int(hexcode[2:], 16))


def test_all_128_basic_code_points_match_gsm0338(tables):
    assert [e["code"] for e in tables["basic"]] == list(range(128))
    for e in tables["basic"]:
        code = e["code"]
        if code == 0x1B:
            # ESC is not a character: the codec reads it as the escape to the extension table
            assert ch(e["scalar"]) == "\x1b"
            assert bytes([0x1B, 0x65]).decode("gsm03.38") == "€"
            continue
        assert bytes([code]).decode("gsm03.38") == ch(e["scalar"]), f"code {code:#04x}"
        assert ch(e["scalar"]).encode("gsm03.38") == bytes([code])


def test_extension_table_matches_gsm0338(tables):
    ours = {e["code"]: ch(e["scalar"]) for e in tables["extension"]}
    assert "".join(sorted(ours.values())) == "".join(sorted(EXT_PRINTABLE))
    for code, c in ours.items():
        assert bytes([0x1B, code]).decode("gsm03.38") == c
        assert c.encode("gsm03.38") == bytes([0x1B, code])


def test_safe_alphabet_is_118_single_septet_characters(tables):
    safe = [ch(h) for h in tables["safe"]]
    assert len(safe) == len(set(safe)) == 118
    excluded = {"@", "Ç", "\n", "\r", "_", "\x1b", " ", '"', "'", "*"}
    assert not excluded & set(safe)
    codes = [c.encode("gsm03.38") for c in safe]
    assert all(len(b) == 1 for b in codes)
    assert [b[0] for b in codes] == sorted(b[0] for b in codes)  # GSM code order


def test_septet_counting_matches_gsm0338(run_dossier):
    rng = random.Random(5)
    pool = [bytes([c]).decode("gsm03.38") for c in range(128) if c != 0x1B] + list(EXT_PRINTABLE)
    for _ in range(25):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 90)))
        expected = len(text.encode("gsm03.38"))
        out = run_dossier("sms", "count", text, check=expected <= 144).stdout
        assert out.startswith(f"{expected} septets used"), (text, out)


def test_count_limits_and_rejections(run_dossier):
    assert run_dossier("sms", "count", "€" * 72).stdout.startswith("144 septets used, 0 left")
    over = run_dossier("sms", "count", "€" * 73, check=False)
    assert over.returncode == 1 and "146 septets used" in over.stdout
    bad = run_dossier("sms", "count", "naïve", check=False)
    assert bad.returncode == 1
    assert "character 3" in bad.stderr and "ï" not in bad.stderr
