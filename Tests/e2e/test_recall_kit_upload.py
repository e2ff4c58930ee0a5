"""The kit's administrator page sends a log to a real WebDAV folder (wsgidav on
127.0.0.1, anonymous PUT with CORS, as docs/recall-kit.md describes)."""
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
pytest.importorskip("wsgidav")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from recall_kit_driver import start_browser  # noqa: E402
from test_recall_kit import STRINGS  # noqa: E402
from webdav_server import kit_drop_folder  # noqa: E402


@pytest.fixture
def dav(tmp_path):
    with kit_drop_folder(tmp_path / "dav", "in") as drop:
        yield drop


def test_send_puts_the_log_into_the_webdav_folder(tmp_path, run_dossier, dav):
    folder, url = dav
    root = tmp_path / "kit"
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text(f"recall:\n  strings: data/strings.txt\n  logs: data/logs\n  kit: true\n  kit_upload: {url}\n",
                                      encoding="utf-8")
    run_dossier("build", root)
    kit = root / "_site" / "recall" / "kit"
    d = start_browser(tmp_path, False)
    try:
        d.get((kit / "index.html").as_uri())
        d.find_element("id", "participant").send_keys("U7")
        d.find_element("id", "welcome-done").click()
        d.find_element("id", "begin").click()
        d.get((kit / "admin.html").as_uri())
        d.find_element("xpath", "//button[starts-with(., 'Send U7')]").click()
        status = d.find_element("id", "status")
        WebDriverWait(d, 60).until(lambda _: status.text.startswith(("Sent", "The server", "Could not")))
        assert status.text.startswith("Sent"), status.text
    finally:
        d.quit()
    files = list(folder.glob("recall-U7-*.jsonl"))
    assert len(files) == 1
    lines = files[0].read_text(encoding="utf-8").splitlines()
    assert '"participant":"U7"' in lines[0] and '"button":"begin"' in lines[1]


def test_upload_url_with_credentials_is_refused(tmp_path, run_dossier):
    root = tmp_path / "k"
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("recall:\n  strings: data/strings.txt\n  logs: data/logs\n  kit: true\n"
                                      "  kit_upload: https://alice:s3cret@dav.example.org/in/\n", encoding="utf-8")
    proc = run_dossier("build", root, check=False)
    assert proc.returncode == 1
    assert "dossier.yml:5" in proc.stderr and "must not carry a user name" in proc.stderr
    assert "s3cret" not in proc.stderr + proc.stdout
