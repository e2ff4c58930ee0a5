"""The editor tells a caretaker at once what the build would say about the door graph, image
sizes, the size budget and sound levels (Site/experiences/checks.js mirrors
Sources/Experiences/Graph.swift and Media.swift), and it sets a door's arrival direction.

- Parity: the same experiences and media go through `dossier experiences validate --json`
  and through DossierChecks in Chromium; every warning message and every measured level
  must be the same (levels to 1e-9 dB).
- In the editor: sounds chosen from the device get the loudness warning the build gives
  for the saved zip, word for word.
- Arrival direction: turning the target panorama in the editor and pressing "Use this
  direction" writes targetYaw/targetPitch; the build accepts the saved file and the viewer
  arrives facing that way.
- Served over http, an opened site experience's media are read back and go into the zip.

WAV and image files are generated (experiences_media.py), never committed."""
import base64
import functools
import http.server
import json
import re
import shutil
import subprocess
import threading
import zipfile

import pytest

from experiences_media import jpeg, png, tone, wav
from test_experiences_editor import build_site, make_driver, wait, MEDIA, REPO

from selenium.webdriver.common.by import By  # noqa: E402


MEDIA_FILES = {
    "media/p16.png": png(2000, 1000),
    "media/wide.jpg": jpeg(6000, 3000),
    "media/square.png": png(1024, 1024),
    "media/odd.jpg": jpeg(5000, 2000),
    "media/quiet16.wav": wav(tone(0.02)),
    "media/quiet8.wav": wav(tone(0.03), bits=8),
    "media/mid24.wav": wav(tone(0.05), bits=24, extra_chunk=True),
    "media/loud32.wav": wav(tone(0.9), bits=32),
    "media/loudf32.wav": wav(tone(0.8), bits=32, fmt=3),
    "media/f64-stereo.wav": wav(tone(0.04, channels=2), bits=64, fmt=3, channels=2),
    "media/ext16.wav": wav(tone(0.6), extensible=True),
    "media/truncated.wav": wav(tone(0.7), truncate=1001),
    "media/silent.wav": wav([0.0] * 800),
    "media/adpcm.wav": wav(tone(0.5), fmt=2),
    "media/clip.mp3": b"ID3\x04\0\0\0\0\0\0" + bytes(64),
    # Around the 10 dB threshold: three quiet clips, one 11 dB and one 9 dB louder.
    "media/base-a.wav": wav(tone(0.02)),
    "media/base-b.wav": wav(tone(0.02)),
    "media/base-c.wav": wav(tone(0.02)),
    "media/plus11.wav": wav(tone(0.02 * 10 ** (11 / 20))),
    "media/plus9.wav": wav(tone(0.02 * 10 ** (9 / 20))),
}


def sound(i, media):
    return {"id": f"s{i}", "kind": "sound", "yaw": 10 * i, "pitch": 0, "label": f"Sound {i}", "media": media}


def door(i, target):
    return {"id": f"d{i}", "kind": "door", "yaw": -20 - 10 * i, "pitch": 0, "label": f"Door {i}", "target": target}


EXPERIENCES = {
    # Graph: p3 unreachable and final; p2 a dead end. Loudness: three loud clips among quiet ones.
    "graph.json": {"title": "Graph walk", "kind": "custom", "owner": "ana", "panoramas": [
        {"id": "p1", "title": "One", "image": "media/p16.png", "triggers": [
            door(1, "p2"), sound(1, "media/quiet16.wav"), sound(2, "media/quiet8.wav"), sound(3, "media/mid24.wav")]},
        {"id": "p2", "title": "Two", "image": "media/wide.jpg", "triggers": [
            sound(4, "media/loud32.wav"), sound(5, "media/loudf32.wav"), sound(6, "media/f64-stereo.wav")]},
        {"id": "p3", "title": "Three", "image": "media/square.png", "triggers": [
            door(2, "p1"), sound(7, "media/ext16.wav"), sound(8, "media/truncated.wav"), sound(9, "media/silent.wav"),
            sound(10, "media/adpcm.wav"), sound(11, "media/clip.mp3")]}]},
    # Two measured clips (an even median of one), explicit first and final panoramas, a loop.
    "pair.json": {"title": "Pair", "kind": "custom", "owner": "ana", "firstPanorama": "b", "finalPanorama": "a", "panoramas": [
        {"id": "a", "title": "A", "image": "media/odd.jpg", "triggers": [sound(1, "media/quiet16.wav"), door(1, "b")]},
        {"id": "b", "title": "B", "image": "media/p16.png", "triggers": [sound(2, "media/ext16.wav"), door(2, "a")]}]},
    # The loudness threshold itself: 11 dB over the median warns, 9 dB does not.
    "threshold.json": {"title": "Threshold", "kind": "custom", "owner": "ana", "panoramas": [
        {"id": "t", "title": "T", "image": "media/square.png", "triggers": [
            sound(1, "media/base-a.wav"), sound(2, "media/base-b.wav"), sound(3, "media/base-c.wav"),
            sound(4, "media/plus11.wav"), sound(5, "media/plus9.wav")]}]},
    # Over the 40 MB budget (the big file is made below).
    "big.json": {"title": "Big one", "kind": "custom", "owner": "bo", "panoramas": [
        {"id": "x", "title": "X", "image": "media/p16.png", "triggers": [sound(1, "media/big.mp3")]}]},
}
BIG = 40 * 1000 * 1000 + 1


@pytest.fixture(scope="module")
def checked_project(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("xe-checks")
    (root / "media").mkdir()
    for path, data in MEDIA_FILES.items():
        (root / path).write_bytes(data)
    with open(root / "media/big.mp3", "wb") as f:
        f.write(b"ID3\x04\0\0\0\0\0\0")
        f.truncate(BIG)
    for name, x in EXPERIENCES.items():
        (root / name).write_text(json.dumps(x, indent=2))
    files = [str(root / n) for n in EXPERIENCES]
    proc = subprocess.run([dossier_bin, "experiences", "validate", "--json", *files], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return root, json.loads(proc.stdout), proc.stderr.splitlines()


@pytest.fixture(scope="module")
def editor_page(tmp_path_factory, dossier_bin):
    dentist = json.loads((REPO / "Examples/demo/data/experiences/dentist.json").read_text())
    return build_site(tmp_path_factory.mktemp("xe-checks-site"), dossier_bin, {"dentist.json": dentist})


def messages_by_file(stderr_lines, root):
    """validate's stderr, `path:line: warning: message`, grouped by file name."""
    out = {}
    for line in stderr_lines:
        assert line.startswith(str(root)), line
        m = re.match(r"([^:/]+\.json)(?::\d+)?: warning: (.*)$", line[len(str(root)) + 1:])
        assert m, line
        out.setdefault(m.group(1), []).append(m.group(2))
    return out


def test_graph_sizes_budget_and_levels_match_the_build(checked_project, editor_page, tmp_path):
    root, reports, stderr = checked_project
    swift = messages_by_file(stderr, root)
    # The fixture covers every kind of check (a test that cannot fail otherwise).
    text = "\n".join(stderr)
    for needle in ("cannot be reached from the first panorama", "is a dead end", "can never be finished",
                   "px wide; above 4096", "twice as wide as high", "dB louder", "over the budget"):
        assert needle in text, needle
    louder = [m for m in swift.get("threshold.json", []) if "dB louder" in m]
    assert len(louder) == 1 and "plus11.wav" in louder[0] and "11.0 dB louder" in louder[0], louder
    media_b64 = {p: base64.b64encode(d).decode() for p, d in MEDIA_FILES.items()}
    drv = make_driver(tmp_path)
    try:
        drv.get((editor_page / "experiences/editor/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        got = drv.execute_script("""
            var exps = arguments[0], media = arguments[1], sizes = arguments[2], big = arguments[3];
            var bytes = {};
            Object.keys(media).forEach(function (p) {
                var s = atob(media[p]), b = new Uint8Array(s.length);
                for (var i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
                bytes[p] = b;
            });
            var huge = new Uint8Array(big); huge.set([0x49, 0x44, 0x33, 4]); bytes["media/big.mp3"] = huge;
            var out = {};
            Object.keys(exps).forEach(function (name) {
                var x = exps[name];
                out[name] = {
                    messages: DossierChecks.graph(x).concat(DossierChecks.media(x, bytes, sizes[name])).map(function (m) { return m.message; }),
                    levels: {}
                };
            });
            Object.keys(bytes).forEach(function (p) {
                if (!/\\.wav$/.test(p)) return;
                try { out.levels = out.levels || {}; out.levels[p] = DossierChecks.wavLevel(bytes[p]); }
                catch (e) { out.levels[p] = {error: e.message}; }
            });
            return out;
        """, EXPERIENCES, media_b64, {n: (root / n).stat().st_size for n in EXPERIENCES}, BIG)
    finally:
        drv.quit()
    for name in EXPERIENCES:
        assert got[name]["messages"] == swift.get(name, []), name
    # Every level the build measured, the page measures the same; what it could not, the page says why.
    seen = 0
    for report in reports:
        for item in report["media"]["items"]:
            if not item["path"].endswith(".wav"):
                continue
            js = got["levels"][item["path"]]
            if "level" in item and item["level"] is not None:
                lv = item["level"]
                for key in ("sampleRate", "channels", "bitsPerSample", "frames"):
                    assert js[key] == lv[key], (item["path"], key)
                for key in ("rmsDBFS", "peakDBFS"):
                    if lv.get(key) is None:
                        assert js[key] is None, (item["path"], key)
                    else:
                        assert abs(js[key] - lv[key]) < 1e-9, (item["path"], key, js[key], lv[key])
                seen += 1
            else:
                assert js["error"] == item["levelNote"], item["path"]
    assert seen >= 9


def test_format_one_decimal_rounds_like_c(editor_page, tmp_path):
    """The messages' %.1f (Swift's String(format:) on glibc): exact binary ties (x.25, x.75) go to even."""
    values = [0.25, 0.75, 1.25, -0.25, -2.75, 10.05, 12.349999, -0.04, 3.0, 17.45]
    drv = make_driver(tmp_path)
    try:
        drv.get((editor_page / "experiences/editor/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        got = drv.execute_script("return arguments[0].map(DossierChecks.formatOneDecimal);", values)
    finally:
        drv.quit()
    # Python's %-formatting of a double is correctly rounded with ties to even, like glibc's
    # (coreutils' printf is not an oracle here: it reads its arguments as long double).
    assert got == ["%.1f" % v for v in values]


# MARK: - In the editor

def open_site_experience(drv, page_url):
    drv.get(page_url)
    wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
    drv.find_element(By.ID, "xe-open-site").click()
    wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "editing")
    wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")


def saved_zip(downloads, name):
    path = downloads / name
    wait(None, lambda _: path.exists() and not list(downloads.glob("*.crdownload")))
    return path


def test_sounds_chosen_in_the_editor_get_the_builds_loudness_warning(editor_page, dossier_bin, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    quiet, loud = tmp_path / "whisper.wav", tmp_path / "shout.wav"
    quiet.write_bytes(wav(tone(0.01)))
    loud.write_bytes(wav(tone(0.9)))
    drv = make_driver(downloads)
    try:
        open_site_experience(drv, (editor_page / "experiences/editor/index.html").as_uri())
        before = [e.text for e in drv.find_elements(By.CSS_SELECTOR, ".xe-problem")]
        assert not any("dB louder" in t for t in before), before   # from file:// the site's clips are not read
        for f in (quiet, loud):
            drv.find_element(By.ID, "xe-tool-sound").click()
            drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'center'})")
            r = drv.execute_script("var r = document.getElementById('xe-stage').getBoundingClientRect(); return [r.left + r.width / 2 + arguments[0], r.top + r.height / 2];",
                                   -80 if f == quiet else 80)
            for kind in ("mousePressed", "mouseReleased"):
                drv.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": r[0], "y": r[1], "button": "left", "clickCount": 1})
            wait(drv, lambda d: d.find_elements(By.ID, "xe-trigger-file"))
            drv.find_element(By.ID, "xe-trigger-file").send_keys(str(f))
            wait(drv, lambda d: f.stem in d.find_element(By.ID, "xe-trigger").text)
        wait(drv, lambda d: any("dB louder" in e.text for e in d.find_elements(By.CSS_SELECTOR, ".xe-problem.xe-warning")))
        editor_msgs = [e.text[len("Warning: "):] for e in drv.find_elements(By.CSS_SELECTOR, ".xe-problem.xe-warning") if "dB louder" in e.text]
        drv.find_element(By.ID, "xe-save").click()
        z = saved_zip(downloads, "dentist.zip")
    finally:
        drv.quit()
    # The saved zip, unzipped over the project's experiences: the build's loudness warnings
    # for the same clips are word for word the editor's (the site's own clips were not read
    # from file://, so compare against a project holding only the clips chosen in the editor).
    proj = tmp_path / "proj"
    proj.mkdir()
    with zipfile.ZipFile(z) as zf:
        zf.extractall(proj)
    x = json.loads((proj / "dentist.json").read_text())
    chosen = {p for p in zf.namelist() if p.endswith(".wav")}
    assert len(chosen) == 2
    for p in x["panoramas"]:
        p["triggers"] = [t for t in p["triggers"] if t.get("kind") != "sound" or t.get("media") in chosen]
    (proj / "media").mkdir(exist_ok=True)
    for f in MEDIA.iterdir():
        if not (proj / "media" / f.name).exists():
            shutil.copy(f, proj / "media" / f.name)
    (proj / "only-chosen.json").write_text(json.dumps(x, indent=2))
    proc = subprocess.run([dossier_bin, "experiences", "validate", str(proj / "only-chosen.json")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    build_msgs = [line.split("warning: ", 1)[1] for line in proc.stderr.splitlines() if "dB louder" in line]
    assert build_msgs and editor_msgs == build_msgs


def test_a_doors_arrival_direction_is_chosen_by_turning_the_target(editor_page, dossier_bin, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    drv = make_driver(downloads)
    try:
        open_site_experience(drv, (editor_page / "experiences/editor/index.html").as_uri())
        door_marker = drv.find_element(By.CSS_SELECTOR, ".xe-marker[data-kind='door']")
        drv.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus();", door_marker)
        idx = int(door_marker.get_attribute("data-index"))
        drv.execute_script("arguments[0].dispatchEvent(new PointerEvent('pointerdown', {bubbles: true, pointerId: 7, button: 0}));"
                           "arguments[0].dispatchEvent(new PointerEvent('pointerup', {bubbles: true, pointerId: 7, button: 0}));", door_marker)
        wait(drv, lambda d: d.find_element(By.ID, "xe-trigger").get_attribute("data-kind") == "door")
        assert "starts" in drv.find_element(By.ID, "xe-arrival-text").text
        drv.find_element(By.ID, "xe-arrival-choose").click()
        stage = drv.find_element(By.ID, "xe-stage")
        target = stage.get_attribute("data-arrival")
        assert target == "hall"
        wait(drv, lambda d: stage.get_attribute("data-ready") == "true")
        # The target is shown without its markers (nothing to drag by mistake).
        markers_before = len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker"))
        for _ in range(7):   # 7 × 5° to the right, 2 × 5° up
            stage.send_keys("\ue014")
        for _ in range(2):
            stage.send_keys("\ue013")
        wait(drv, lambda d: stage.get_attribute("data-yaw") == "35.00" and stage.get_attribute("data-pitch") == "10.00")
        assert len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker")) == markers_before == 0
        drv.find_element(By.ID, "xe-arrival-use").click()
        wait(drv, lambda d: not d.find_element(By.ID, "xe-stage").get_attribute("data-arrival"))
        doc = drv.execute_script("return window.dossierEditor.serialize();")
        chosen_door = doc["panoramas"][0]["triggers"][idx]
        assert (chosen_door["target"], chosen_door["targetYaw"], chosen_door["targetPitch"]) == ("hall", 35, 10)
        assert "35°, 10°" in drv.find_element(By.ID, "xe-arrival-text").text
        # Cancel leaves it as it was.
        drv.find_element(By.ID, "xe-arrival-choose").click()
        for _ in range(3):
            drv.find_element(By.ID, "xe-stage").send_keys("\ue012")
        drv.find_element(By.ID, "xe-arrival-cancel").click()
        doc = drv.execute_script("return window.dossierEditor.serialize();")
        assert doc["panoramas"][0]["triggers"][idx]["targetYaw"] == 35
        drv.find_element(By.ID, "xe-save").click()
        z = saved_zip(downloads, "dentist.zip")
    finally:
        drv.quit()
    # The build accepts it, and the viewer arrives in the hall facing 35°, 10°.
    proj = tmp_path / "proj"
    data = proj / "data" / "experiences"
    (data / "media").mkdir(parents=True)
    for f in MEDIA.iterdir():
        shutil.copy(f, data / "media" / f.name)
    with zipfile.ZipFile(z) as zf:
        zf.extractall(data)
    (proj / "dossier.yml").write_text("title: Arrival\noutput: _site\nexperiences:\n  input: data/experiences\n")
    proc = subprocess.run([dossier_bin, "build", str(proj)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    drv = make_driver(tmp_path)
    try:
        drv.get((proj / "_site/experiences/dentist/index.html").as_uri())
        viewer = lambda d: d.find_element(By.ID, "xp-viewer")  # noqa: E731
        wait(drv, lambda d: viewer(d).get_attribute("data-ready") == "true")
        assert viewer(drv).get_attribute("data-panorama") == "waiting"
        drv.find_element(By.CSS_SELECTOR, f"#xp-list [data-trigger='{chosen_door['id']}']").click()
        wait(drv, lambda d: d.find_element(By.ID, "xp-warn").get_attribute("open") is not None)
        drv.find_element(By.ID, "xp-warn-no").click()
        wait(drv, lambda d: viewer(d).get_attribute("data-panorama") == "hall")
        wait(drv, lambda d: viewer(d).get_attribute("data-yaw") == "35.00" and viewer(d).get_attribute("data-pitch") == "10.00")
    finally:
        drv.quit()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_served_over_http_the_site_media_go_into_the_download(editor_page, tmp_path):
    handler = functools.partial(_Quiet, directory=str(editor_page))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    drv = make_driver(downloads)
    try:
        open_site_experience(drv, f"http://127.0.0.1:{server.server_port}/experiences/editor/index.html")
        used = {"media/waiting.jpg", "media/hall.jpg", "media/chair.jpg", "media/hello.wav", "media/open-wide.wav",
                "media/drill.wav", "media/dentist.mp4"}
        wait(drv, lambda d: d.execute_script(
            "return Object.keys(window.dossierEditor.known ? window.dossierEditor.known() : {}).length") == len(used))
        drv.find_element(By.ID, "xe-title").send_keys("!")   # a change, so there is something to save
        drv.find_element(By.ID, "xe-title").send_keys("\ue003")
        drv.find_element(By.ID, "xe-save").click()
        z = saved_zip(downloads, "dentist.zip")
    finally:
        drv.quit()
        server.shutdown()
        server.server_close()
    with zipfile.ZipFile(z) as zf:
        names = set(zf.namelist())
        assert names == used | {"dentist.json"}
        for p in used:
            assert zf.read(p) == (MEDIA / p.split("/")[-1]).read_bytes(), p
