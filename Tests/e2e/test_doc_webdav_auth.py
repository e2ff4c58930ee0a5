"""docs/webdav.md "Authentication" and "HTTP transport": where credentials come from,
netrc syntax, credentials in URLs, plain http, and that no credential ever shows in an
output or a file written; libcurl and CA-file refusals before any request.
"""
import base64
import os
import subprocess

import pytest

from dav_oracle_server import (DavOracle, converged, dav_env, files_containing, make_site, publish, tree)

CANARY = "Canary-pw 7Qz!x"


def clean_env(tmp_path, **more):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOSSIER_WEBDAV", "NETRC", "SSL_CERT"))}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(more)
    return env


def run(dossier_bin, *args, env, pass_fds=()):
    return subprocess.run([dossier_bin, *map(str, args)], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300, pass_fds=pass_fds)


def no_secret_anywhere(tmp_path, secret, *texts):
    forms = [secret, urllib_quote(secret), base64.b64encode(f"alice:{secret}".encode()).decode()]
    for f in forms:
        assert not files_containing(tmp_path, f.encode()), f
        for t in texts:
            assert f not in t


def urllib_quote(s):
    import urllib.parse
    return urllib.parse.quote(s, safe="")


@pytest.mark.parametrize("with_env_password", [True, False], ids=["password-set", "no-other-password"])
@pytest.mark.parametrize("command", ["publish", "vault-sync"])
def test_a_url_with_a_password_is_refused_outright(dossier_bin, tmp_path, command, with_env_password):
    """"a URL with a password in it is refused outright": exit 1 with the refusal (also
    when no other password is set: outright, not after asking for one), no request
    sent, and the password in no output and no file written."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv", password=CANARY) as dav:
        url = dav.url.replace("http://", f"http://alice:{urllib_quote(CANARY)}@") + "s/"
        env = clean_env(tmp_path, DOSSIER_WEBDAV_USER="alice", DOSSIER_VAULT_PASSWORD="master pw of the vault 1")
        if with_env_password:
            env["DOSSIER_WEBDAV_PASSWORD"] = "another-pw"
        args = ["publish", "--site", site, "--to", url] if command == "publish" else \
            ["vault", "sync", tmp_path / "v.dvault", "--to", url]
        out = run(dossier_bin, *args, env=env)
        assert out.returncode == 1
        assert "never put a password in the URL" in out.stderr
        assert dav.requests == []
        no_secret_anywhere(tmp_path, CANARY, out.stdout, out.stderr)


def test_a_url_with_only_a_user_name_works_or_is_refused_before_any_write(run_dossier, tmp_path):
    """Only a password is refused in a URL ("a URL with a password in it is refused
    outright"); `http://alice@host/` must then either publish completely or be refused
    before anything is written — never a half-done publish (`MOVE` with a `Destination`
    the server rejects)."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv") as dav:
        out = publish(run_dossier, site, dav.url.replace("http://", "http://alice@") + "s/")
        if out.returncode == 0:
            converged(tmp_path / "srv", site)
        else:
            assert not [r for r in dav.requests if r.method in ("PUT", "MOVE", "DELETE", "MKCOL")], out.stderr


def test_credentials_over_plain_http_to_another_host_are_refused(run_dossier, tmp_path):
    """"Credentials are refused over plain `http` unless the host is loopback": a TEST-NET
    address is refused before any connection (which would time out)."""
    site = make_site(tmp_path, pages=1)
    out = publish(run_dossier, site, "http://192.0.2.10:9/s/")
    assert out.returncode == 1
    assert "refusing to send a password over plain http" in out.stderr


@pytest.mark.parametrize("host,name", [("127.0.0.1", "localhost"), ("127.0.0.2", None), ("::1", None)])
def test_loopback_hosts_may_take_credentials_over_http(run_dossier, tmp_path, host, name):
    """"unless the host is loopback (`localhost`, `127.*`, `::1`)"."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv", host=host) as dav:
        url = f"http://{name}:{dav.port}/s/" if name else dav.url + "s/"
        out = publish(run_dossier, site, url)
        assert out.returncode == 0, out.stderr
        converged(tmp_path / "srv", site)


def test_user_and_password_sources_in_their_order(dossier_bin, tmp_path):
    """"user from `--user`, else `DOSSIER_WEBDAV_USER`, else the netrc entry's `login`;
    password from `DOSSIER_WEBDAV_PASSWORD` or the file descriptor in
    `DOSSIER_WEBDAV_PASSWORD_FD` when set, else a netrc-style file"."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv", user="bob", password="pw-bob") as dav:
        url = dav.url + "s/"
        netrc = tmp_path / "n.rc"
        netrc.write_text("machine 127.0.0.1 login bob password pw-wrong\n")
        base = ["publish", "--site", site, "--to", url, "--netrc", netrc]
        ok = run(dossier_bin, *base, "--user", "bob",
                 env=clean_env(tmp_path, DOSSIER_WEBDAV_USER="carol", DOSSIER_WEBDAV_PASSWORD="pw-bob"))
        assert ok.returncode == 0, ok.stderr                                 # --user before the variable
        env_user = run(dossier_bin, *base, env=clean_env(tmp_path, DOSSIER_WEBDAV_USER="bob",
                                                         DOSSIER_WEBDAV_PASSWORD="pw-bob"))
        assert env_user.returncode == 0, env_user.stderr                     # the variable's password first
        netrc_login = run(dossier_bin, *base, env=clean_env(tmp_path, DOSSIER_WEBDAV_PASSWORD="pw-bob"))
        assert netrc_login.returncode == 0, netrc_login.stderr               # user: the netrc entry's login
        r, w = os.pipe()
        os.write(w, b"pw-bob\n")
        os.close(w)
        fd = run(dossier_bin, *base, "--user", "bob", env=clean_env(tmp_path, DOSSIER_WEBDAV_PASSWORD_FD=str(r)),
                 pass_fds=(r,))
        os.close(r)
        assert fd.returncode == 0, fd.stderr
        for r in dav.requests:
            assert r.headers["authorization"] == "Basic " + base64.b64encode(b"bob:pw-bob").decode()


def test_netrc_file_order_and_default_entry(dossier_bin, tmp_path):
    """"a netrc-style file (`--netrc FILE`, else `$NETRC`, else `~/.netrc` if present; the
    `machine <host>` entry, else `default`)"."""
    site = make_site(tmp_path, pages=1)
    right = "machine other.example login x password y\ndefault login bob password pw-bob\n"
    wrong = "machine 127.0.0.1 login bob password nope\n"
    with DavOracle(tmp_path / "srv", user="bob", password="pw-bob") as dav:
        args = ["publish", "--site", site, "--to", dav.url + "s/"]
        (tmp_path / "right.rc").write_text(right)
        (tmp_path / "wrong.rc").write_text(wrong)
        home_rc = tmp_path / "home" / ".netrc"
        env = clean_env(tmp_path, NETRC=str(tmp_path / "wrong.rc"))
        home_rc.write_text(wrong)
        assert run(dossier_bin, *args, "--netrc", tmp_path / "right.rc", env=env).returncode == 0
        assert run(dossier_bin, *args, env=env).returncode == 1                       # $NETRC before ~/.netrc
        assert run(dossier_bin, *args, env=clean_env(tmp_path, NETRC=str(tmp_path / "right.rc"))).returncode == 0
        home_rc.write_text(right)
        assert run(dossier_bin, *args, env=clean_env(tmp_path)).returncode == 0
        assert run(dossier_bin, *args, "--netrc", tmp_path / "wrong.rc", env=clean_env(tmp_path)).returncode == 1


def test_netrc_syntax(dossier_bin, tmp_path):
    """"netrc syntax: white-space separated tokens; `machine NAME`, `default`, `login`,
    `password`, `account` (ignored); `macdef NAME` skips to the next empty line; `#`
    starts a comment at the start of a token; `"…"` quotes a token with spaces"."""
    site = make_site(tmp_path, pages=1)
    (tmp_path / "n.rc").write_text(
        "# machine 127.0.0.1 login eve password commented-out\n"
        "macdef init\nmachine 127.0.0.1 login mallory password in-a-macro\ncd /pub\n\n"
        "machine other.example login x password y\n"
        "machine\t127.0.0.1\n  login bob account ignored-account #login eve\n  password \"pw with spaces\"\n"
        "default login nobody password nothing\n")
    with DavOracle(tmp_path / "srv", user="bob", password="pw with spaces") as dav:
        out = run(dossier_bin, "publish", "--site", site, "--to", dav.url + "s/", "--netrc", tmp_path / "n.rc",
                  env=clean_env(tmp_path))
        assert out.returncode == 0, out.stderr
        converged(tmp_path / "srv", site)


def test_no_credential_in_any_output_or_file(dossier_bin, tmp_path):
    """"Final errors …, each naming the URL and never a credential"; `--verbose` "never
    credentials": a publish, a failed one (wrong password) and a vault sync, all with
    --verbose; the password, its URL-encoded and its Basic forms appear nowhere — not on
    standard output or error, not in any file under the test's folder."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv", password=CANARY) as dav:
        env = clean_env(tmp_path, DOSSIER_WEBDAV_USER="alice", DOSSIER_WEBDAV_PASSWORD=CANARY,
                        DOSSIER_VAULT_PASSWORD="master pw of the vault 1")
        texts = []
        out = run(dossier_bin, "publish", "--site", site, "--to", dav.url + "s/", "--verbose", env=env)
        assert out.returncode == 0, out.stderr
        texts += [out.stdout, out.stderr]
        bad = run(dossier_bin, "publish", "--site", site, "--to", dav.url + "s/", "--verbose",
                  env=dict(env, DOSSIER_WEBDAV_PASSWORD=CANARY + "x"))
        assert bad.returncode == 1
        texts += [bad.stdout, bad.stderr]
        vault = tmp_path / "v.dvault"
        import test_doc_vault_sync as tv   # a fast vault (scrypt logN 10) from the sync doc's oracle
        tv.new_vault(vault, [tv.item("Mail", password="entry-pw")])
        sync = run(dossier_bin, "vault", "sync", vault, "--to", dav.url + "v/", "--verbose",
                   env=dict(env, DOSSIER_VAULT_PASSWORD=tv.MASTER))
        assert sync.returncode == 0, sync.stderr
        texts += [sync.stdout, sync.stderr]
        no_secret_anywhere(tmp_path, CANARY, *texts)


def test_vault_sync_remembers_the_user_of_its_last_successful_sync(dossier_bin, tmp_path):
    """"vault sync also remembers the user of its last successful sync": a second sync
    without `--user` or `DOSSIER_WEBDAV_USER` authenticates as that user."""
    import test_doc_vault_sync as tv
    vault = tmp_path / "v.dvault"
    tv.new_vault(vault, [tv.item("Mail", password="entry-pw")])
    with DavOracle(tmp_path / "srv", user="bob", password="pw-bob") as dav:
        env = clean_env(tmp_path, DOSSIER_WEBDAV_PASSWORD="pw-bob", DOSSIER_VAULT_PASSWORD=tv.MASTER)
        first = run(dossier_bin, "vault", "sync", vault, "--to", dav.url + "v/", "--user", "bob", env=env)
        assert first.returncode == 0, first.stderr
        dav.clear()
        again = run(dossier_bin, "vault", "sync", vault, env=env)
        assert again.returncode == 0, again.stderr
        token = "Basic " + base64.b64encode(b"bob:pw-bob").decode()
        assert dav.requests and all(r.headers.get("authorization") == token for r in dav.requests)


def test_without_libcurl_nothing_is_sent(run_dossier, tmp_path):
    """"with `DOSSIER_LIBCURL`: `libcurl not found: DOSSIER_LIBCURL=<file> cannot be
    loaded`), exit status 1" — before sending anything."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv") as dav:
        lib = tmp_path / "no-such-libcurl.so"
        out = publish(run_dossier, site, dav.url + "s/", env={"DOSSIER_LIBCURL": str(lib)})
        assert out.returncode == 1
        assert f"libcurl not found: DOSSIER_LIBCURL={lib} cannot be loaded" in out.stderr
        assert dav.requests == []


CA_CASES = [
    ("missing", lambda p: p / "nope.pem", "no such file"),
    ("folder", lambda p: p, "is a folder; give a PEM file of certificates"),
    ("no-pem", lambda p: (p / "x.pem").write_text("not a certificate\n") and p / "x.pem",
     "holds no PEM certificate (-----BEGIN CERTIFICATE-----)"),
]


@pytest.mark.parametrize("how", ["flag", "env"])
@pytest.mark.parametrize("kind,make,reason", CA_CASES, ids=[c[0] for c in CA_CASES])
def test_a_bad_ca_file_fails_before_any_request(run_dossier, tmp_path, how, kind, make, reason):
    """"Before any request it must exist, be a regular file, be readable, and contain
    `-----BEGIN CERTIFICATE-----` …; otherwise the command fails with `certificate
    authority file: --ca-file PATH: no such file` (or `is a folder; …`, `holds no PEM
    certificate …`; … `SSL_CERT_FILE PATH: …` when it came from the variable), exit 1"."""
    site = make_site(tmp_path, pages=1)
    (tmp_path / "ca").mkdir()
    path = make(tmp_path / "ca")
    with DavOracle(tmp_path / "srv") as dav:
        if how == "flag":
            out = publish(run_dossier, site, dav.url + "s/", "--ca-file", path)
            label = f"--ca-file {path}"
        else:
            out = publish(run_dossier, site, dav.url + "s/", env={"SSL_CERT_FILE": str(path)})
            label = f"SSL_CERT_FILE {path}"
        assert out.returncode == 1
        assert f"certificate authority file: {label}: {reason}" in out.stderr
        assert dav.requests == [] and tree(tmp_path / "srv") == {}
