"""Issue #35, site: a dangling link whose target holds `'` is reported at its line, with
the character itself, not the `&#x27;` the page holds (docs/output-manifest.md)."""
import re
import subprocess


def test_a_dangling_link_with_an_apostrophe_names_its_line_and_character(dossier_bin, tmp_path):
    proj = tmp_path / "p"
    subprocess.run([dossier_bin, "new", str(proj)], check=True, capture_output=True)
    (proj / "content" / "quotes.md").write_text("# Quotes\n\nFine.\n\n[a](<it's.md>)\n", encoding="utf-8")
    r = subprocess.run([dossier_bin, "build", str(proj)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert "&#x27;" not in r.stderr and "&#39;" not in r.stderr, r.stderr
    assert re.search(r"content/quotes\.md:5: dangling link 'it's\.(md|html)'", r.stderr), r.stderr

