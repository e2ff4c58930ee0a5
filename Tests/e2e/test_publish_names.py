"""Long names and names a server refuses (issue #42).

Before: the temporary upload name `.<name>.dossier-upload` of a 239–255-byte name was
too long for the server's file system and the user saw only "PUT failed with HTTP 500".
"""
from test_publish_cut import rules
from test_publish_faults import assert_published, publish
from webdav_server import WebDAVServer, make_site, write_manifest

LONG = "é" * 122 + "x.html"         # 250 bytes in UTF-8


def test_a_250_byte_file_name_publishes(dossier_bin, tmp_path):
    site = make_site(tmp_path / "one", pages=1)
    assert len(LONG.encode()) == 250
    (site / "recall" / LONG).write_text("<p>long</p>\n")
    write_manifest(site)
    srv = tmp_path / "srv"
    with WebDAVServer(srv) as dav:
        publish(dossier_bin, site, dav.url + "s/")
        assert_published(srv / "s", site)
        assert (srv / "s" / "recall" / LONG).read_text() == "<p>long</p>\n"
        temps = [p for m, p in dav.requests() if m == "PUT" and p.endswith(".dossier-upload") and "/recall/." in p
                 and p.count("/") == 3]
        assert any(len(p.rsplit("/", 1)[1].encode()) == 32 for p in temps), temps


def test_a_name_the_server_refuses_gets_a_plain_message(dossier_bin, tmp_path):
    site = make_site(tmp_path / "one", pages=1)
    (site / "recall" / LONG).write_text("<p>long</p>\n")
    write_manifest(site)
    faults = rules(tmp_path / "f.json", {"method": "PUT", "path": "/recall/.", "fault": "500"})
    srv = tmp_path / "srv"
    with WebDAVServer(srv, faults=faults) as dav:
        # Only the long name's temporary upload is refused (the other files go to /recall/p00/).
        p = publish(dossier_bin, site, dav.url + "s/", check=False)
        assert p.returncode == 1, p.stderr
        assert "the server refused to store this file" in p.stderr and "250 bytes long" in p.stderr, p.stderr
        assert "rename the file" in p.stderr and "HTTP 500" in p.stderr
        assert "Traceback" not in p.stderr and "NSCocoaErrorDomain" not in p.stderr
