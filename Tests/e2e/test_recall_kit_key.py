"""`recall: public_key:` and `kit_keep:` in dossier.yml (docs/recall-section.md): the kit
page carries the public key (and never a private one); a new key at the same path is in
the next build's kit page (its summary is otherwise reused); bad values are refused with
the line and what to do."""
import base64
import re

from cryptography.hazmat.primitives import serialization

STRINGS = ["ab1", "Qz2", "k9w", "m3p", "x7yv", "p4d", "c8n", "t5e", "w2r", "h6gj"]


def project(root, extra):
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("recall:\n  strings: data/strings.txt\n  logs: data/logs\n" + extra, encoding="utf-8")
    return root


def page_key(root):
    html = (root / "_site" / "recall" / "kit" / "index.html").read_text(encoding="utf-8")
    return re.search(r'"publicKey":"([A-Za-z0-9+/=]+)"', html).group(1)


def spki(pub):
    key = serialization.load_pem_public_key(pub.read_bytes())
    return base64.b64encode(key.public_bytes(serialization.Encoding.DER,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)).decode()


def test_a_new_key_at_the_same_path_reaches_the_kit_page(tmp_path, run_dossier):
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    root = project(tmp_path / "p", f"  kit: true\n  public_key: {tmp_path / 'study.pub'}\n")
    run_dossier("build", root)
    first = page_key(root)
    assert first == spki(tmp_path / "study.pub")
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048", "--force")
    run_dossier("build", root)
    assert page_key(root) == spki(tmp_path / "study.pub") != first


def test_bad_sealing_settings_are_refused(tmp_path, run_dossier):
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    cases = [
        ("  kit: true\n  kit_keep: sealed\n", "dossier.yml:5", "kit_keep: sealed needs public_key"),
        (f"  kit: true\n  public_key: {tmp_path / 'study.pub'}\n  kit_keep: always\n", "dossier.yml:6",
         "kit_keep must be plain or sealed"),
        (f"  kit: true\n  public_key: {tmp_path / 'study.key'}\n", "dossier.yml:5", "holds a private key"),
        (f"  public_key: {tmp_path / 'study.pub'}\n", "dossier.yml:4", "public_key needs kit: true"),
    ]
    for i, (extra, where, what) in enumerate(cases):
        root = project(tmp_path / f"bad{i}", extra)
        p = run_dossier("build", root, check=False)
        assert p.returncode == 1 and where in p.stderr and what in p.stderr, (extra, p.stderr)
        assert "PRIVATE KEY" not in p.stderr + p.stdout
        assert not (root / "_site").exists()
