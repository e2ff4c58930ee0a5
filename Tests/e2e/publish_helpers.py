"""Helpers shared by the publish, archive and vault-sync end-to-end tests."""
import hashlib
import json
import pathlib

PASSWORD = "correct horse"
USER = "alice"


def write_manifest(site: pathlib.Path) -> pathlib.Path:
    """Writes <site>.manifest.json the way `dossier build` does (sorted by path)."""
    files = []
    for p in sorted(site.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            files.append({"path": p.relative_to(site).as_posix(), "sha256": hashlib.sha256(data).hexdigest(),
                          "size": len(data)})
    files.sort(key=lambda f: f["path"])
    out = site.parent / (site.name + ".manifest.json")
    out.write_text(json.dumps({"dossier": "0.1.0", "files": files, "inputs": []}, indent=2), encoding="utf-8")
    return out


def make_site(root: pathlib.Path, pages: int = 12) -> pathlib.Path:
    """A small hand-made site: assets, nested pages, a name with a space and a non-ASCII one."""
    site = root / "_site"
    (site / "assets").mkdir(parents=True, exist_ok=True)
    (site / "assets" / "site.css").write_text("body { font: 16px sans-serif; }\n")
    (site / "index.html").write_text("<h1>Study</h1>\n")
    for i in range(pages):
        d = site / "recall" / f"p{i:02d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "index.html").write_text(f"<h1>Participant {i}</h1>\n" + "x" * (i * 37))
        (d / "data.csv").write_text(f"trial,ms\r\n1,{300 + i}\r\n")
    (site / "notes with space.html").write_text("<p>space</p>\n")
    (site / "café.txt").write_text("crème\n")
    write_manifest(site)
    return site


def tree(folder: pathlib.Path, skip=(".dossier-manifest.json",)):
    """{relative path: bytes} of every file under folder (minus `skip`)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*") if p.is_file() and p.relative_to(folder).as_posix() not in skip}


def env(password=PASSWORD):
    return {"DOSSIER_WEBDAV_PASSWORD": password, "DOSSIER_WEBDAV_USER": USER}
