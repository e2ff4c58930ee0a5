"""Helpers for the hostile-input tests: running the binary under limits, new projects, folder snapshots."""
import pathlib
import resource
import subprocess


def limited():
    """preexec_fn: 2 GiB of address space, 60 s of CPU."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def run(dossier_bin, *args, timeout=120, cwd=None):
    return subprocess.run([dossier_bin, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limited, cwd=cwd)


def new_project(dossier_bin, folder: pathlib.Path, manifest: str | None = None) -> pathlib.Path:
    subprocess.run([dossier_bin, "new", str(folder)], check=True, capture_output=True)
    if manifest is not None:
        (folder / "dossier.yml").write_text(manifest)
    return folder


def snapshot(folder: pathlib.Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
