"""A static HTML file written while the build copies it (docs/manifest.md, "Links"; the
"input handled late" seam). The links of an HTML file from `static/` are checked in the
very bytes copied into the site, not in a second read of the file: the build is held
right after the copy (`DOSSIER_PAUSE_AT=static-copied:N`, debug builds), the file is
rewritten, and the build goes on. Before, the check read the file again, so a dangling
link in the copy published was missed when the new version had none (and a new
version's dangling link stopped a build whose copy had none)."""
import json
import os
import subprocess

from test_input_written_during_build import held_build

PAGE = "<!doctype html><title>t</title><p><a href=\"{}\">there</a></p>\n"


def project(tmp_path, first_link):
    root = tmp_path / "p"
    (root / "static").mkdir(parents=True)
    (root / "content").mkdir()
    (root / "content" / "index.md").write_text("# Home\n")
    (root / "dossier.yml").write_text("title: Static copy test\noutput: _site\n")
    (root / "static" / "page.html").write_text(PAGE.format(first_link))
    return root


def held_at_the_copy(dossier_bin, root, tmp_path):
    """A build held once static/page.html is copied (it is the only static file)."""
    pause = tmp_path / "pause"
    return held_build(dossier_bin, root, pause, at="static-copied:1"), pause


def test_a_dangling_link_in_the_bytes_copied_is_caught_when_the_file_is_mended_meanwhile(dossier_bin, tmp_path):
    root = project(tmp_path, "missing.html")
    held, pause = held_at_the_copy(dossier_bin, root, tmp_path)
    (root / "static" / "page.html").write_text(PAGE.format("index.html"))   # mended after the copy
    pause.touch()
    out, err = held.communicate(timeout=300)
    # The copy holds the dangling link: the build must not publish it.
    assert held.returncode == 1, (out, err)
    assert "page.html" in err and "missing.html" in err, err
    assert not (root / "_site" / "page.html").exists()
    # The next build reads the mended file and publishes it.
    p = subprocess.run([dossier_bin, "build", "--quiet", str(root)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "index.html" in (root / "_site" / "page.html").read_text()


def test_a_dangling_link_written_after_the_copy_does_not_stop_a_build_whose_copy_is_whole(dossier_bin, tmp_path):
    root = project(tmp_path, "index.html")
    held, pause = held_at_the_copy(dossier_bin, root, tmp_path)
    (root / "static" / "page.html").write_text(PAGE.format("missing.html"))
    pause.touch()
    out, err = held.communicate(timeout=300)
    assert held.returncode == 0, (out, err)
    published = (root / "_site" / "page.html").read_text()
    assert "index.html" in published and "missing.html" not in published
    # The manifest describes the bytes published, so the next build sees the change.
    m = json.loads((root / "_site.manifest.json").read_text())
    entry = next(f for f in m["files"] if f["path"] == "page.html")
    assert entry["size"] == len(published.encode())
    p = subprocess.run([dossier_bin, "build", "--quiet", str(root)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "missing.html" in p.stderr, p.stdout + p.stderr
    assert os.path.exists(root / "_site" / "page.html")
