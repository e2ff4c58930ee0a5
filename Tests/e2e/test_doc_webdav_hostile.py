"""docs/webdav.md against hostile server answers: malformed or entity-laden multistatus
XML, non-UTF-8 bytes and names, answers that never end, a Content-Length that lies,
redirects. Each must end in exit 1 naming the server URL and what is wrong (or be
ignored where the doc says so) — and nothing written on the server.
"""
import re
import resource

import pytest

from dav_oracle_server import DavOracle, converged, make_site, publish, respond, rewrite, tree

WRITES = ("PUT", "MOVE", "DELETE", "MKCOL")


def published(run_dossier, tmp_path, dav):
    site = make_site(tmp_path, pages=1)
    assert publish(run_dossier, site, dav.url + "s/").returncode == 0
    dav.clear()
    return site


LAUGHS = (b'<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa">'
          + b"".join(b'<!ENTITY %s "%s">' % (bytes([98 + i]), (b"&" + bytes([97 + i]) + b";") * 10) for i in range(9))
          + b']>\n<D:multistatus xmlns:D="DAV:"><D:response><D:href>/s/&j;</D:href></D:response></D:multistatus>')
XXE = (b'<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
       b'<D:multistatus xmlns:D="DAV:"><D:response><D:href>/s/&x;</D:href></D:response></D:multistatus>')

BAD_XML = [
    ("cut", rewrite(lambda b, r: b[:len(b) // 2]), r"line \d+"),
    ("billion-laughs", respond(207, LAUGHS), r"line 2"),
    ("external-entity", respond(207, XXE), r"line 2"),
    ("latin-1", rewrite(lambda b, r: b.replace(b"encoding='UTF-8'", b"encoding='ISO-8859-1'")
                        .replace(b"caf%C3%A9", "café".encode("latin-1"))), r"line \d+"),
    ("not-xml", respond(207, b"<html><body>Multi-Status</body>"), r"line \d+"),
]


@pytest.mark.parametrize("name,action,where", BAD_XML, ids=[b[0] for b in BAD_XML])
def test_a_listing_the_reader_refuses_is_a_bad_response_naming_the_line(run_dossier, tmp_path, name, action, where):
    """"`MultistatusParser` reads `DAV:multistatus` with Dossier's own XML reader
    (docs/xml.md: namespaces resolved, no DTDs, UTF-8 only) …; an answer the reader
    refuses is a `badResponse` error naming the line": exit 1, `<url>: unexpected answer
    from the server (… line N …)`, nothing written, no entity expanded."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        dav.rule(method="PROPFIND", action=action)
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 1, out.stdout + out.stderr
        m = re.search(re.escape(f"{dav.url}s/: unexpected answer from the server (") + r"(.*)\)$", out.stderr, re.M)
        assert m and re.search(where, m.group(1)), out.stderr
        assert not [r for r in dav.requests if r.method in WRITES]
        assert "root:" not in out.stdout + out.stderr and "aaaaaaaaaa" not in out.stderr
        assert tree(tmp_path / "srv" / "s") == tree(site)


def test_a_listing_that_never_ends_is_stopped_at_its_limit(run_dossier, tmp_path):
    """"**256 MiB** … for every listing (`PROPFIND`) … A body that passes the limit stops
    the transfer at once … and is not retried: `<url>: unexpected answer from the server
    (the answer is longer than 268435456 bytes; stopped reading it)`"."""
    def endless(o, environ, start_response, req):
        o.drain(environ)
        start_response("207 Multi-Status", [("Content-Type", "application/xml")])

        def body():
            yield b'<?xml version="1.0"?><D:multistatus xmlns:D="DAV:">'
            while True:
                yield b" " * (1 << 20)
        return body()
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        dav.rule(method="PROPFIND", action=endless)
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 1
        assert (f"{dav.url}s/: unexpected answer from the server (the answer is longer than 268435456 bytes; "
                "stopped reading it)") in out.stderr
        assert dav.count("PROPFIND") == 1
        assert not [r for r in dav.requests if r.method in WRITES]
        assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 900 * 1024


def test_a_content_length_shorter_than_the_listing_cuts_the_xml(run_dossier, tmp_path):
    """A Content-Length that lies short: the client reads that many bytes, so the
    multistatus is cut — "an answer the reader refuses is a `badResponse` error naming
    the line", never a partial listing acted on."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)

        def short(o, environ, start_response, req):   # declares a third, sends it all
            data = b"".join(o.app(environ, lambda s, h, *a: None))
            start_response("207 Multi-Status", [("Content-Type", "application/xml"),
                                                ("Content-Length", str(len(data) // 3))])
            return [data]
        dav.rule(method="PROPFIND", action=short)
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 1
        assert re.search(re.escape(f"{dav.url}s/: unexpected answer from the server (") + r".*line \d+", out.stderr)
        assert not [r for r in dav.requests if r.method in WRITES]


def test_a_listed_name_that_is_not_utf8_is_never_fetched_under_another_name(run_dossier, tmp_path):
    """"An `href` is turned into a path relative to the base: … percent-decoding is
    applied": `/s/%FF%FE.html` decodes to bytes that are no UTF-8 name. Whatever the
    client does with it (leave it out, or report it), it must not address a *different*
    resource the server never listed — no request for `/s/%25FF%25FE.html` (the literal
    name "%FF%FE.html", which --verify would then GET and DELETE if it existed) — and the
    run must not crash."""
    extra = (b'<D:response><D:href>/s/%FF%FE.html</D:href><D:propstat><D:prop><D:resourcetype/>'
             b'<D:getetag>"x"</D:getetag><D:getcontentlength>3</D:getcontentlength></D:prop>'
             b'<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>')
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        dav.rule(method="PROPFIND", path=lambda p: p == "/s/",
                 action=rewrite(lambda b, r: b.replace(b"</D:multistatus>", extra + b"</D:multistatus>")))
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode in (0, 1), out.stderr
        assert not [r for r in dav.requests if "%25FF" in r.raw], dav.requests


def _hops(n):
    """GET of the manifest answered by a chain of n redirects (?hop=1…n), then served."""
    def act(o, environ, start_response, req):
        hop = int((re.search(r"hop=(\d+)", environ.get("QUERY_STRING", "")) or [0, 0])[1])
        if hop >= n:
            return o.serve(environ, start_response, req)
        req.status = 302
        start_response("302 Found", [("Location", f"{environ['PATH_INFO']}?hop={hop + 1}"),
                                     ("Content-Length", "0")])
        return [b""]
    return act


def test_five_redirects_are_followed_and_a_sixth_is_too_many(run_dossier, tmp_path):
    """"redirects are followed, at most 5"; "47 → too many redirects"."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        dav.rule(method="GET", action=_hops(5))
        out = publish(run_dossier, site, dav.url + "s/", "--dry-run")
        assert out.returncode == 0, out.stderr
        assert dav.count("GET") == 6
        dav.clear()
        dav.rule(method="GET", action=_hops(6))
        out = publish(run_dossier, site, dav.url + "s/", "--dry-run")
        assert out.returncode == 1
        assert f"{dav.url}s/.dossier-manifest.json: " in out.stderr and "too many redirects" in out.stderr
        assert dav.count("GET") == 6


def test_a_redirect_to_another_host_does_not_carry_the_credentials(run_dossier, tmp_path):
    """"libcurl does not send a custom `Authorization` header to another host": a
    redirect from 127.0.0.1 to `localhost` arrives without credentials (and the 401 it
    gets is reported as rejected credentials, exit 1)."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        target = f"http://localhost:{dav.port}/s/.dossier-manifest.json"
        dav.rule(method="GET", nth=1, action=respond(302, b"", headers=(("Location", target),)))
        out = publish(run_dossier, site, dav.url + "s/", "--dry-run")
        first, second = dav.requests[:2]
        assert first.headers.get("authorization") and second.headers.get("host").startswith("localhost")
        assert "authorization" not in second.headers
        assert out.returncode == 1 and "(HTTP 401)" in out.stderr


def test_a_401_is_reported_at_once_without_retry(run_dossier, tmp_path):
    """"Credentials are sent up front, so a 401 answer means they were rejected: it is
    reported as `WebDAVError.unauthorized` at once": one request, exit 1, the message of
    the table, nothing written."""
    with DavOracle(tmp_path / "srv") as dav:
        site = make_site(tmp_path, pages=1)
        out = publish(run_dossier, site, dav.url + "s/", password="not the password 9")
        assert out.returncode == 1
        assert len(dav.requests) == 1 and dav.requests[0].headers.get("authorization", "").startswith("Basic ")
        assert (f"{dav.url}s/.dossier-manifest.json: the server rejected the user name or password (HTTP 401); "
                "check the credentials") in out.stderr
        assert "not the password 9" not in out.stdout + out.stderr
        assert tree(tmp_path / "srv") == {}


def test_the_verified_site_survives_all_of_it(run_dossier, tmp_path):
    """After hostile answers stopped runs, a plain `--verify` on an honest server finds
    no difference ("nothing written on the server" really held)."""
    with DavOracle(tmp_path / "srv") as dav:
        site = published(run_dossier, tmp_path, dav)
        for action in (respond(207, LAUGHS), respond(207, b"<D:multistatus xmlns:D='DAV:'>")):
            dav.clear()
            dav.rule(method="PROPFIND", action=action)
            assert publish(run_dossier, site, dav.url + "s/", "--verify").returncode == 1
        dav.clear()
        out = publish(run_dossier, site, dav.url + "s/", "--verify")
        assert out.returncode == 0 and "0 difference(s)" in out.stdout
        converged(tmp_path / "srv", site)
