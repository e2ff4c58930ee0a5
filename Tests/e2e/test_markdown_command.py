"""`dossier markdown FILE` (the benchmarks' renderer command) is answered before the command
line is parsed when it has no options (start-up, issue #20); the result must be exactly the
parsed command's, errors included."""
import subprocess


def run(bin_, *args):
    return subprocess.run([bin_, *args], capture_output=True, timeout=60)


def test_fast_path_renders_exactly_like_the_parsed_command(dossier_bin, tmp_path):
    md = tmp_path / "doc.md"
    md.write_text("# Title\n\nSome *text* with ~~strike~~ and https://example.org.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Again\n")
    fast = run(dossier_bin, "markdown", str(md))
    parsed = run(dossier_bin, "markdown", "--", str(md))     # a third argument: the full parser
    assert fast.returncode == parsed.returncode == 0
    assert fast.stdout == parsed.stdout and b'<h1 id="title">' in fast.stdout and b"<del>strike</del>" in fast.stdout


def test_fast_path_errors_name_the_file_and_exit_1(dossier_bin, tmp_path):
    missing = tmp_path / "missing.md"
    fast = run(dossier_bin, "markdown", str(missing))
    parsed = run(dossier_bin, "markdown", "--", str(missing))
    assert fast.returncode == parsed.returncode == 1
    assert fast.stderr == parsed.stderr and str(missing).encode() in fast.stderr


def test_output_that_cannot_be_written_is_an_error(dossier_bin, tmp_path):
    """A full disk (/dev/full) is reported and exits 1, on both paths, instead of
    silently losing the HTML."""
    md = tmp_path / "doc.md"
    md.write_text("# Title\n\n" + "Some text.\n\n" * 20000)   # more than one 64 KiB buffer
    for args in (("markdown", str(md)), ("markdown", "--", str(md))):
        with open("/dev/full", "wb") as full:
            r = subprocess.run([dossier_bin, *args], stdout=full, stderr=subprocess.PIPE, timeout=60)
        assert r.returncode == 1, args
        assert b"standard output" in r.stderr and b"No space left on device" in r.stderr, r.stderr
