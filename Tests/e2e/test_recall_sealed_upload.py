"""Sealed recall uploads end to end (docs/recall-upload.md): the kit in headless Chromium
seals two participants' sessions — one finished (sealed at Thank You and sent at once),
one closed from the administrator page (Send) — and PUTs them to a real WebDAV drop
(wsgidav on 127.0.0.1); `dossier recall ingest --from` stores them; the site built from
the ingested logs equals, byte for byte, the site built from the same sessions exported
by hand. An independent reader (recall_upload_reader.py, written from the docs alone)
opens and verifies the page's uploads and refuses tampered, truncated, replayed and
wrongly keyed ones — as `dossier recall ingest` does, with the reason. The shared upload
queue keeps a copy offline and sends the same bytes under the same name once online."""
import base64
import functools
import http.server
import json
import pathlib
import shutil
import threading

import pytest

pytest.importorskip("selenium")
pytest.importorskip("wsgidav")
pytest.importorskip("cryptography")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from recall_kit_driver import Player, play_whole_session, start_browser  # noqa: E402
from recall_upload_reader import Reader, Refused  # noqa: E402
from test_recall_kit import STRINGS  # noqa: E402
from test_recall_sealed_screens import LOG, SEED  # noqa: E402
from webdav_server import kit_drop_folder, tree  # noqa: E402

ENV = {"DOSSIER_WEBDAV_USER": "anyone", "DOSSIER_WEBDAV_PASSWORD": "not-checked"}


@pytest.fixture
def drop(tmp_path):
    """An anonymous WebDAV folder with CORS, as docs/recall-kit.md asks of a drop."""
    with kit_drop_folder(tmp_path / "dav", "drop") as drop:
        yield drop


def project(root: pathlib.Path, extra=""):
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("title: Sealed kit\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n" + extra,
                                      encoding="utf-8")
    return root


def wait_text(d, css, prefix, limit=60):
    el = d.find_element("css selector", css)
    WebDriverWait(d, limit).until(lambda _: el.text.startswith(prefix))
    return el.text


def export(d, admin_url, participant, downloads: pathlib.Path):
    """Clicks Export for one participant on the administrator page; the downloaded file."""
    d.get(admin_url)
    before = set(downloads.glob("*.jsonl"))
    d.find_element("xpath", f"//button[normalize-space(.)='Export {participant}']").click()
    WebDriverWait(d, 60).until(lambda _: [f for f in downloads.glob("*.jsonl") if f not in before]
                               and not list(downloads.glob("*.crdownload")))
    (new,) = [f for f in downloads.glob("*.jsonl") if f not in before]
    return new


def test_the_kit_seals_and_sends_and_ingest_stores_what_export_gives(tmp_path, run_dossier, drop):
    folder, url = drop
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    kit_root = project(tmp_path / "kit", f"  kit: true\n  public_key: {tmp_path / 'study.pub'}\n  kit_upload: {url}\n")
    run_dossier("build", kit_root)
    kit = kit_root / "_site" / "recall" / "kit"
    page = (kit / "index.html").read_text(encoding="utf-8")
    assert "PRIVATE" not in page and "shared/seal.js" in page and "shared/upload-queue.js" in page
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    d = start_browser(downloads, False)
    try:
        d.get((kit / "index.html").as_uri())
        play_whole_session(Player(d, False, "P1", STRINGS))
        assert wait_text(d, "#thankyou-status", "Your answers were") == "Your answers were sent to the study."
        d.get((kit / "admin.html").as_uri())
        d.find_element("id", "next-participant").click()
        d.get((kit / "index.html").as_uri())
        p2 = Player(d, False, "P-2 ✓", STRINGS)
        p2.begin()
        t = p2.focus_field(1, 900)
        p2.type(1, STRINGS[0][:2], t + 200)      # practice on Memorize, then the session is left
        d.get((kit / "admin.html").as_uri())
        assert "in progress" in d.find_element("id", "sessions").text
        d.find_element("xpath", "//button[starts-with(., 'Send P-2')]").click()
        assert wait_text(d, "#status", "Sent ").endswith("(sealed).")
        assert "sealed and sent" in d.find_element("id", "sessions").text
        exported = {p: export(d, (kit / "admin.html").as_uri(), p, downloads) for p in ("P1", "P-2 ✓")}
    finally:
        d.quit()

    uploads = sorted(folder.glob("*.rcu"))
    assert len(uploads) == 2 and not list(folder.glob("*.jsonl"))
    captured = tmp_path / "captured"
    shutil.copytree(folder, captured)
    for u in uploads:               # nothing readable of the participant in the drop
        assert b"P1" not in u.name.encode() and b"dossier-recall" not in u.read_bytes()

    # The independent reader opens what the page sealed: the body is the exported log.
    reader = Reader((tmp_path / "study.key").read_bytes())
    bodies = {}
    for u in uploads:
        rec, body, outcome = reader.read(u.name, u.read_bytes())
        assert outcome == "stored" and rec["upload"] == u.name
        bodies[rec["log"]] = body
    assert {f.name: f.read_bytes() for f in exported.values()} == bodies

    # Ingest from the WebDAV drop into a study's logs folder; the drop is emptied.
    study = project(tmp_path / "ingested")
    p = run_dossier("recall", "ingest", "--key", tmp_path / "study.key", "--from", url, "--project", study, env=ENV)
    assert "2 stored, 0 already stored, 0 refused" in p.stdout, p.stdout + p.stderr
    assert list(folder.glob("*.rcu")) == []
    logs = study / "data" / "logs"
    assert {f.name: f.read_bytes() for f in logs.glob("*.jsonl")} == bodies
    assert not [f for f in logs.iterdir() if f.name.startswith(".") and f.name != ".recall-devices"]

    # The same sessions exported by hand build the same site, byte for byte.
    by_hand = project(tmp_path / "by-hand")
    for f in exported.values():
        shutil.copy(f, by_hand / "data" / "logs" / f.name)
    run_dossier("build", study)
    run_dossier("build", by_hand)
    a, b = tree(study / "_site"), tree(by_hand / "_site")
    assert any("participants" in k for k in a) and a == b

    # Ingest again: nothing new, nothing changed.
    shutil.copy(captured / uploads[0].name, folder)
    again = run_dossier("recall", "ingest", "--key", tmp_path / "study.key", "--from", url, "--project", study, env=ENV)
    assert "0 stored, 1 already stored, 0 refused" in again.stdout
    assert {f.name: f.read_bytes() for f in logs.glob("*.jsonl")} == bodies

    check_refusals(tmp_path, run_dossier, captured, reader, bodies)


def check_refusals(tmp_path, run_dossier, captured, reader, bodies):
    """Tampered, truncated, replayed and wrongly keyed copies of the page's uploads are
    refused by the reader and by `dossier recall ingest`, with the reason, and kept."""
    first, second = sorted(captured.glob("*.rcu"))
    data = first.read_bytes()
    other_key = tmp_path / "other"
    run_dossier("recall", "keygen", "--output", other_key, "--bits", "2048")
    flipped = bytearray(data)
    flipped[len(flipped) // 2] ^= 0x01
    bad = {
        "tampered": (first.name, bytes(flipped), "authentication failed"),
        "truncated": (first.name, data[:-40], "authentication failed"),
        "cut short": (first.name, data[:200], "truncated"),
        "replayed": ("rc-" + "0" * 24 + ".rcu", data, "a copied or replayed upload"),
    }
    for what, (name, blob, reason) in bad.items():
        with pytest.raises(Refused):
            Reader((tmp_path / "study.key").read_bytes()).read(name, blob)
        drop = tmp_path / f"bad-{what.replace(' ', '-')}"
        drop.mkdir()
        (drop / name).write_bytes(blob)
        study = project(tmp_path / f"study-{what.replace(' ', '-')}")
        p = run_dossier("recall", "ingest", "--key", tmp_path / "study.key", "--from", drop, "--logs",
                        study / "data" / "logs", check=False)
        assert p.returncode == 1, (what, p.stdout, p.stderr)
        assert f"{name}: refused: " in p.stderr and reason in p.stderr, (what, p.stderr)
        assert (drop / name).read_bytes() == blob, what          # kept for inspection
        assert list((study / "data" / "logs").glob("*.jsonl")) == []
    # Wrongly keyed: opened with another study's key.
    with pytest.raises(Refused, match="wrong key"):
        Reader((other_key.with_suffix(".key")).read_bytes()).read(first.name, data)
    study = project(tmp_path / "study-wrong-key")
    drop = tmp_path / "bad-wrong-key"
    shutil.copytree(captured, drop)
    p = run_dossier("recall", "ingest", "--key", other_key.with_suffix(".key"), "--from", drop, "--logs",
                    study / "data" / "logs", check=False)
    assert p.returncode == 1 and "0 stored, 0 already stored, 2 refused" in p.stdout
    assert "sealed to a different study key" in p.stderr
    assert sorted(f.name for f in drop.glob("*.rcu")) == sorted([first.name, second.name])
    assert "PRIVATE" not in p.stdout + p.stderr


def test_a_sealed_copy_waits_offline_and_goes_out_the_same_when_online(tmp_path, run_dossier, drop):
    """The shared upload queue: offline (DevTools network emulation) the PUT fails and the
    sealed copy waits on the device; back online (the browser's `online` event) the same
    bytes go out under the same name, and ingest stores the log."""
    folder, url = drop
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    root = project(tmp_path / "kit", f"  kit: true\n  public_key: {tmp_path / 'study.pub'}\n  kit_upload: {url}\n")
    run_dossier("build", root)
    admin = (root / "_site" / "recall" / "kit" / "admin.html").as_uri()
    d = start_browser(tmp_path, False)
    try:
        d.get(admin)
        lines = [LOG[0] % json.dumps(STRINGS)] + LOG[1:]
        d.execute_script(SEED, lines, "strings")
        d.execute_cdp_cmd("Network.enable", {})
        d.execute_cdp_cmd("Network.emulateNetworkConditions",
                          {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        d.get(admin)
        d.find_element("xpath", "//button[starts-with(., 'Send P7')]").click()
        assert wait_text(d, "#status", "Not sent yet").startswith("Not sent yet")
        copy = d.execute_script("return JSON.parse(localStorage.getItem('dossier-recall-kit:sealed:s1'))")
        assert copy["sent"] is False and list(folder.iterdir()) == []
        d.execute_cdp_cmd("Network.emulateNetworkConditions",
                          {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        assert wait_text(d, "#status", "Sent ") == f"Sent {copy['name']} (sealed)."
    finally:
        d.quit()
    (sent,) = folder.glob("*.rcu")
    assert sent.name == copy["name"] and sent.read_bytes() == base64.b64decode(copy["bytes"])
    study = project(tmp_path / "study")
    p = run_dossier("recall", "ingest", "--key", tmp_path / "study.key", "--from", url, "--project", study, env=ENV)
    assert "1 stored" in p.stdout
    stored = study / "data" / "logs" / "recall-P7-20261129T090000.jsonl"
    assert stored.read_text(encoding="utf-8") == "\n".join(lines) + "\n"


def test_both_kits_seal_when_served_over_http(tmp_path, run_dossier, drop):
    """The shared scripts are inlined in each kit page, so a page served over http (a
    loopback host: a secure context, as WebCrypto needs) seals as one opened from a file."""
    folder, url = drop
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    root = project(tmp_path / "kit", f"  kit: true\n  public_key: {tmp_path / 'study.pub'}\n  kit_upload: {url}\n")
    run_dossier("game", "simulate", "--players", "3", "--seed", "2", "--obstacles", "10", "--output", root / "game.jsonl")
    (root / "dossier.yml").write_text((root / "dossier.yml").read_text() + "game:\n  telemetry: game.jsonl\n"
                                      f"  kit: true\n  public_key: {tmp_path / 'study.pub'}\n")
    run_dossier("build", root)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root / "_site"))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}/"
    d = start_browser(tmp_path, False)
    try:
        d.get(base + "recall/kit/admin.html")
        d.execute_script(SEED, [LOG[0] % json.dumps(STRINGS)] + LOG[1:], "strings")
        d.get(base + "recall/kit/admin.html")
        d.find_element("xpath", "//button[starts-with(., 'Send P7')]").click()
        assert wait_text(d, "#status", "Sent ").endswith("(sealed).")
        d.get(base + "game/play/index.html")
        ok = d.execute_async_script("""
            var done = arguments[arguments.length - 1];
            Sealer.newSigningKey().then(function (k) {
              return RM.seal.signedPlaintext("0123456789abcdef", "{}\\n", k);
            }).then(function (s) { return Sealer.seal(s.plain, JSON.parse(
              document.getElementById("kit-config").textContent).publicKey); })
              .then(function (b) { done(String.fromCharCode(b[0], b[1], b[2], b[3])); }, function (e) { done(String(e)); });
        """)
        assert ok == "RMU1"
    finally:
        d.quit()
        srv.shutdown()
    (sent,) = folder.glob("*.rcu")
    rec, body, _ = Reader((tmp_path / "study.key").read_bytes()).read(sent.name, sent.read_bytes())
    assert rec["log"] == "recall-P7-20261129T090000.jsonl" and body.startswith(b'{"type":"session"')
