"""`dossier new` into a folder that already holds files (docs/manifest.md, "A new
project"): it never overwrites someone's file — before, a folder with its own
`content/index.md` but no `dossier.yml` had that file replaced without a word — and a
`new` stopped part way by a full disk (here a file-size limit with SIGXFSZ ignored, so a
write fails with EFBIG) is finished by running it again."""
import os
import resource
import signal
import subprocess


def new(dossier_bin, folder, fsize=None):
    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run([dossier_bin, "new", str(folder)], capture_output=True, text=True, timeout=120,
                          preexec_fn=limited if fsize else None)


def files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_a_file_of_ones_own_is_never_overwritten_and_nothing_is_written(dossier_bin, tmp_path):
    folder = tmp_path / "notes"
    (folder / "content").mkdir(parents=True)
    mine = "my own notes, months of work\n"
    (folder / "content" / "index.md").write_text(mine)
    (folder / "templates").mkdir()
    (folder / "templates" / "README.md").mkdir()   # a folder where a file would go
    p = new(dossier_bin, folder)
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"{folder / 'content' / 'index.md'}: already exists; `dossier new` never overwrites a file" in p.stderr
    assert "templates/README.md: already exists" in p.stderr
    assert "nothing was written" in p.stderr
    assert (folder / "content" / "index.md").read_text() == mine
    assert files(folder) == ["content/index.md"]


def test_a_new_stopped_by_a_full_disk_is_finished_by_running_it_again(dossier_bin, tmp_path):
    folder = tmp_path / "study"
    stopped = new(dossier_bin, folder, fsize=600)   # the Markdown files fit, dossier.yml does not
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    assert "dossier.yml: cannot write: the file is too large" in stopped.stderr, stopped.stderr
    assert not (folder / "dossier.yml").exists()   # written last: the folder is not yet a project
    partial = files(folder)
    assert partial, "the limit should let the first files through"
    again = new(dossier_bin, folder)
    assert again.returncode == 0, again.stdout + again.stderr
    assert {"dossier.yml", "content/index.md", "content/methods.md", "templates/README.md"} <= set(files(folder))
    built = subprocess.run([dossier_bin, "build", "--quiet", str(folder)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    assert new(dossier_bin, folder).returncode == 1   # now a project: refused as before
