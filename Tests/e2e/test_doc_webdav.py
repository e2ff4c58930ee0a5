"""docs/webdav.md checked against the built binary, from the doc alone: the requests,
their headers, path encoding and multistatus parsing, seen from a real wsgidav server
(dav_oracle_server.py records every request and rewrites answers on cue).

`dossier publish --site` drives the client; `--verify` makes it list every folder.
"""
import base64
import re
import urllib.parse

import pytest

from dav_oracle_server import (PASSWORD, USER, DavOracle, converged, make_site, no_etag, publish, rewrite,
                               status, tree, weak_etag, write_manifest)

KEEP = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,=:@")
PROPS = ("resourcetype", "getetag", "getlastmodified", "getcontentlength")


def published(run_dossier, tmp_path, dav, pages=2):
    site = make_site(tmp_path, pages=pages)
    first = publish(run_dossier, site, dav.url + "s/")
    assert first.returncode == 0, first.stderr
    dav.clear()
    return site


def test_propfind_depth_body_and_trailing_slash(run_dossier, tmp_path):
    """"`PROPFIND`, `Depth: 0` or `1`, body asks for `resourcetype`, `getetag`,
    `getlastmodified`, `getcontentlength` | 207 | the target URL always ends in `/`"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        assert publish(run_dossier, site, dav.url + "s/", "--verify").returncode == 0
        finds = [r for r in dav.requests if r.method == "PROPFIND"]
        assert len(finds) >= 3
        for r in finds:
            assert r.headers.get("depth") in ("0", "1"), r
            for prop in PROPS:
                assert re.search(rb"<(\w+:)?" + prop.encode() + rb"\s*/>", r.body), (prop, r.body)
            if r.headers["depth"] == "1":
                assert r.raw.endswith("/"), r


def test_put_conditions_are_if_none_match_star_then_quoted_if_match(run_dossier, tmp_path):
    """"`PUT`, `If-Match: "<etag>"` or `If-None-Match: *`": the first manifest PUT on an
    empty folder says `If-None-Match: *`, the next publish's marker `If-Match` on the
    manifest's tag, in quotes."""
    with DavOracle(tmp_path / "srv") as dav:
        site = make_site(tmp_path, pages=1)
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        first = [r for r in dav.requests if r.method == "PUT" and r.path.endswith(".dossier-manifest.json")][0]
        assert first.headers.get("if-none-match") == "*"
        tag = dav.etag("s/.dossier-manifest.json")
        dav.clear()
        (site / "index.html").write_text("<h1>v2</h1>\n")
        write_manifest(site)
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        marker = [r for r in dav.requests if r.method == "PUT" and r.path.endswith(".dossier-manifest.json")][0]
        assert marker.headers.get("if-match") == f'"{tag}"'


def test_move_sends_absolute_destination_overwrite_and_tagged_if(run_dossier, tmp_path):
    """"`MOVE`, `Destination: <absolute URL>`, `Overwrite: T`/`F`, with a tag also
    `If: <destination URL> (["<etag>"])` (RFC 4918 §10.4 tagged list)"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        tag = dav.etag("s/index.html")
        (site / "index.html").write_text("<h1>changed</h1>\n")
        write_manifest(site)
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        [move] = [r for r in dav.requests if r.method == "MOVE"]
        dest = dav.url + "s/index.html"
        assert move.headers["destination"] == dest
        assert move.headers["overwrite"] == "T"
        assert move.headers["if"] == f'<{dest}> (["{tag}"])'


def test_delete_of_a_removed_file_carries_if_match(run_dossier, tmp_path):
    """"`delete(path)` | `DELETE` (optional `If-Match`) | 200, 204": a published file's
    deletion is conditional on the tag it was published with."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        tag = dav.etag("s/recall/p01/data.csv")
        (site / "recall" / "p01" / "data.csv").unlink()
        write_manifest(site)
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        [delete] = [r for r in dav.requests if r.method == "DELETE"]
        assert delete.path == "/s/recall/p01/data.csv"
        assert delete.headers.get("if-match") == f'"{tag}"'
        converged(tmp_path / "srv", site)


def test_collections_are_made_top_down_and_405_is_fine(run_dossier, tmp_path):
    """"`makeBaseCollection()` | `MKCOL` of each path prefix of the base URL, top down |
    201 | 405 (exists) is fine"."""
    with DavOracle(tmp_path / "srv") as dav:
        (tmp_path / "srv" / "a" / "b").mkdir(parents=True)
        site = make_site(tmp_path, pages=1)
        out = publish(run_dossier, site, dav.url + "a/b/c/")
        assert out.returncode == 0, out.stderr
        mkcols = [(r.path, r.status) for r in dav.requests if r.method == "MKCOL"][:3]
        assert mkcols == [("/a/", 405), ("/a/b/", 405), ("/a/b/c/", 201)]
        converged(tmp_path / "srv", site, "a/b/c")


@pytest.mark.parametrize("code", [401, 403, 409])
def test_a_refused_mkcol_of_an_ancestor_is_skipped(run_dossier, tmp_path, code):
    """"401/403/409 on an ancestor is skipped, on the base itself an error"."""
    with DavOracle(tmp_path / "srv") as dav:
        (tmp_path / "srv" / "top").mkdir()
        dav.rule(method="MKCOL", path=lambda p: p == "/top/", action=status(code))
        site = make_site(tmp_path, pages=1)
        out = publish(run_dossier, site, dav.url + "top/s/")
        assert out.returncode == 0, out.stderr
        converged(tmp_path / "srv" / "top", site)


def test_a_refused_mkcol_of_the_base_itself_is_an_error(run_dossier, tmp_path):
    """"on the base itself an error" — 403: "METHOD forbidden by the server (HTTP 403);
    the account may not write here", after the URL; exit 1, nothing written."""
    with DavOracle(tmp_path / "srv") as dav:
        dav.rule(method="MKCOL", path=lambda p: p == "/s/", action=status(403))
        site = make_site(tmp_path, pages=1)
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 1
        assert f"{dav.url}s/: MKCOL forbidden by the server (HTTP 403); the account may not write here" in out.stderr
        assert dav.count("PUT") == 0 and tree(tmp_path / "srv") == {}


def test_every_segment_is_percent_encoded_keeping_only_the_listed_characters(run_dossier, tmp_path):
    """"each segment is percent-encoded, keeping only `A–Z a–z 0–9 - . _ ~ ! $ & ' ( ) *
    + , = : @`" — in request targets and in `Destination`."""
    site = make_site(tmp_path, pages=1)
    names = ["a b!$&'()*+,=:@~é[x]^`{|}\".html", "q;r%s.html", "ü dir/ça va.txt"]
    for n in names:
        (site / n).parent.mkdir(exist_ok=True)
        (site / n).write_text(n + "\n")
    write_manifest(site)
    with DavOracle(tmp_path / "srv") as dav:
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 0, out.stderr
        targets = [r.raw for r in dav.requests]
        targets += [urllib.parse.urlsplit(r.headers["destination"]).path for r in dav.requests if r.method == "MOVE"]
        for raw in targets:
            for seg in raw.split("/"):
                assert re.fullmatch(r"(?:[A-Za-z0-9\-._~!$&'()*+,=:@]|%[0-9A-Fa-f]{2})*", seg), raw
                assert not [x for x in re.findall(r"%([0-9A-Fa-f]{2})", seg) if chr(int(x, 16)) in KEEP], raw
        assert tree(tmp_path / "srv" / "s") == tree(site)


def _all_dav_prefix(body, to):
    """Rewrites wsgidav's `D:` prefix to `to:` (or to the default namespace when empty)."""
    if to:
        return body.replace(b"xmlns:D=", b"xmlns:" + to + b"=").replace(b"<D:", b"<" + to + b":") \
            .replace(b"</D:", b"</" + to + b":")
    return body.replace(b"xmlns:D=", b"xmlns=").replace(b"<D:", b"<").replace(b"</D:", b"</")


@pytest.mark.parametrize("prefix", [b"d", b"ns0", b""])
def test_any_namespace_prefix_works(run_dossier, tmp_path, prefix):
    """"so any prefix works (`D:`, `d:`, `ns0:`, a default namespace)": a `--verify` on
    a server answering with that prefix reads every tag (nothing fetched, no
    difference)."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        dav.rule(method="PROPFIND", action=rewrite(lambda b, r: _all_dav_prefix(b, prefix)))
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 0, out.stderr
        assert f"checked {len(tree(site))} file(s) on the server (0 read to compare contents): 0 difference(s)" \
            in out.stdout


def test_properties_under_a_404_propstat_are_ignored(run_dossier, tmp_path):
    """"the properties of every `propstat` whose `status` line is 2xx (properties under a
    `404` propstat are ignored"."""
    bogus = (b'<D:propstat><D:prop><D:getetag>"bogus"</D:getetag><D:getcontentlength>999</D:getcontentlength>'
             b'</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>')
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        dav.rule(method="PROPFIND", action=rewrite(lambda b, r: b.replace(b"</D:response>", bogus)))
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 0, out.stderr
        assert "(0 read to compare contents): 0 difference(s)" in out.stdout


def test_a_weak_listed_etag_is_normalised(run_dossier, tmp_path):
    """"`getetag` is normalised: a `W/` prefix and surrounding quotes are dropped"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        weak = rewrite(lambda b, r: re.sub(rb"<D:getetag>([^<\"]+)</D:getetag>", rb'<D:getetag>W/"\1"</D:getetag>', b))
        dav.rule(method="PROPFIND", action=weak)
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 0, out.stderr
        assert "(0 read to compare contents): 0 difference(s)" in out.stdout


def test_absolute_and_fully_percent_encoded_hrefs_are_understood(run_dossier, tmp_path):
    """"an absolute URL is reduced to its path, percent-decoding is applied, the base
    path is removed"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)

        def absolute(body, req):
            def one(m):
                path = urllib.parse.unquote_to_bytes(m.group(1))
                enc = "/".join("".join(f"%{c:02X}" for c in seg) for seg in path.split(b"/"))
                return f"<D:href>{dav.url[:-1]}{enc}</D:href>".encode()
            return re.sub(rb"<D:href>([^<]+)</D:href>", one, body)
        dav.rule(method="PROPFIND", action=rewrite(absolute))
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 0, out.stderr
        assert f"checked {len(tree(site))} file(s) on the server (0 read to compare contents): 0 difference(s)" \
            in out.stdout


def test_a_listing_leaves_out_members_outside_the_base_or_with_dot_segments(run_dossier, tmp_path):
    """"A listing (`PROPFIND`) **leaves out** every member whose decoded path is not the
    base or below it (`/dav/other/x`, `/dav/sitex/y`), or that has a `.` or `..` segment
    once decoded …; a name that merely contains dots, `..a`, is kept"."""
    root = tmp_path / "srv"
    with DavOracle(root) as dav:
        site = published(run_dossier, tmp_path, dav)
        for rel in ("x.html", "other/x.html", "sx/y.html"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("not the site's\n")
        (root / "s" / "..a").write_text("an extra file of the folder\n")
        hostile = [f"{dav.url}other/x.html", "/other/x.html", "/sx/y.html", "/s/../x.html", "/s/%2E%2E/x.html",
                   "/s/./x.html", "/s/%2e/x.html"]
        extra = b"".join(b'<D:response><D:href>' + h.encode() + b'</D:href><D:propstat><D:prop><D:resourcetype/>'
                         b'<D:getetag>"x"</D:getetag><D:getcontentlength>15</D:getcontentlength></D:prop>'
                         b'<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>' for h in hostile)
        dav.rule(method="PROPFIND", action=rewrite(lambda b, r: b.replace(b"</D:multistatus>",
                                                                             extra + b"</D:multistatus>")))
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 0, out.stderr
        assert "extra   ..a" in out.stdout
        assert "x.html" not in out.stdout + out.stderr
        assert not (root / "s" / "..a").exists()
        for rel in ("x.html", "other/x.html", "sx/y.html"):
            assert (root / rel).read_text() == "not the site's\n"
        assert all(r.path.startswith("/s/") for r in dav.requests), dav.requests
        converged(root, site)


def test_basic_credentials_user_agent_and_no_expect_on_every_request(run_dossier, tmp_path):
    """"HTTP Basic, sent with every request (`Authorization: Basic
    base64(user:password)`)"; "`Expect:` (empty: no `100-continue` wait) on requests
    with a body; `User-Agent: dossier`"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = make_site(tmp_path, pages=1)
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        token = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        assert len(dav.requests) > 10
        for r in dav.requests:
            assert r.headers.get("authorization") == token, r
            assert r.headers.get("user-agent") == "dossier", r
            assert "100-continue" not in r.headers.get("expect", ""), r


def test_verbose_logs_method_url_and_status_for_every_request(run_dossier, tmp_path):
    """"`--verbose` logs `METHOD URL → status` on standard error" (never credentials)."""
    with DavOracle(tmp_path / "srv") as dav:
        site = make_site(tmp_path, pages=1)
        out = publish(run_dossier, site, dav.url + "s/", "--verbose")
        assert out.returncode == 0, out.stderr
        logged = re.findall(r"^([A-Z]+) (http://127\.0\.0\.1:\d+/\S*) → (\d{3})$", out.stderr, re.M)
        seen = [(r.method, "http://127.0.0.1:%d%s" % (dav.port, r.raw), str(r.status)) for r in dav.requests]
        assert sorted(logged) == sorted(seen)
        assert PASSWORD not in out.stderr and base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode() not in out.stderr


def test_wsgidav_strong_tags_need_no_read_back(run_dossier, tmp_path):
    """"wsgidav (file provider) | strong `inode-mtime-size` | same tag | nothing, unless a
    write's answer was lost": a first publish GETs only the manifest."""
    with DavOracle(tmp_path / "srv") as dav:
        site = make_site(tmp_path, pages=2)
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        assert [r.path for r in dav.requests if r.method == "GET"] == ["/s/.dossier-manifest.json"]


def test_a_server_that_retags_on_move_gets_its_moved_files_read_back(run_dossier, tmp_path):
    """"servers that give a new tag on MOVE | strong | another tag | the moved files (`GET`)"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = make_site(tmp_path, pages=2)
        dav.rule(method="PROPFIND", action=rewrite(
            lambda b, r: re.sub(rb"<D:getetag>([^<]+)</D:getetag>", rb"<D:getetag>\1-moved</D:getetag>", b)))
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 0, out.stderr
        gets = sorted(r.path[3:] for r in dav.requests if r.method == "GET" and "dossier-manifest" not in r.path)
        assert gets == sorted(tree(site))
        converged(tmp_path / "srv", site)


@pytest.mark.parametrize("answer", [weak_etag, no_etag], ids=["weak", "absent"])
def test_without_a_strong_put_tag_every_file_and_manifest_is_read_back(run_dossier, tmp_path, answer):
    """"servers whose tag is weak (`W/…`) or absent | — | — | every file and manifest
    written: a `GET`, compared by SHA-256"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = make_site(tmp_path, pages=2)
        dav.rule(method="PUT", action=rewrite(lambda b, r: b, answer))
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 0, out.stderr
        gets = [r.path[3:] for r in dav.requests if r.method == "GET"]
        assert sorted(g for g in gets if g != ".dossier-manifest.json") == sorted(tree(site))
        # the first look (404), the dirty marker's read-back, the clean manifest's
        assert gets.count(".dossier-manifest.json") >= 3
        converged(tmp_path / "srv", site)
