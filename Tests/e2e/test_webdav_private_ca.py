"""https to a WebDAV server whose certificate comes from a private certificate authority
(a CA made here with `cryptography`; real wsgidav over TLS on 127.0.0.1).

Trust is chosen as docs/publish.md says: `--ca-file` first, then `SSL_CERT_FILE`, then
the system's store — so without either, the private CA is not trusted and every command
fails with a clear certificate error before writing anything.
"""
import datetime
import json
import ipaddress
import os
import pathlib
import subprocess

import pytest

from webdav_server import PASSWORD, USER, WebDAVServer, make_site, tree

WRITES = {"PUT", "MOVE", "DELETE", "MKCOL", "PROPPATCH", "COPY", "LOCK"}
VAULT_ENV = {"DOSSIER_VAULT_PASSWORD": "master pw for tests", "DOSSIER_ENTRY_PASSWORD": "entry-pw-1"}


def make_ca(folder: pathlib.Path, name: str):
    """A CA certificate and a server certificate for 127.0.0.1 it signed: (ca.pem, cert.pem, key.pem)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """The server's CA (trusted when given) and an unrelated CA (never the right one)."""
    root = tmp_path_factory.mktemp("pki")
    ca, cert, key = make_ca(root / "private", "private")
    other, _, _ = make_ca(root / "other", "other")
    return {"ca": ca, "cert": cert, "key": key, "other": other}


@pytest.fixture
def server(pki, tmp_path):
    with WebDAVServer(tmp_path / "srv", tls=(pki["cert"], pki["key"])) as dav:
        yield dav


def run(dossier_bin, *args, ssl_cert_file=None, extra_env=None):
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE")}
    env.update({"DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER})
    if ssl_cert_file is not None:
        env["SSL_CERT_FILE"] = str(ssl_cert_file)
    env.update(extra_env or {})
    return subprocess.run([dossier_bin, *map(str, args)], env=env, capture_output=True, text=True, timeout=300)


def assert_certificate_error(proc, dav):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "TLS failure" in proc.stderr and "certificate" in proc.stderr, proc.stderr
    assert "--ca-file" in proc.stderr, "the message says how to trust a private CA"
    assert PASSWORD not in proc.stderr + proc.stdout
    assert not any(m in WRITES for m, _ in dav.requests())


def test_publish_refuses_the_private_ca_until_trusted_by_option_or_environment(dossier_bin, pki, server, tmp_path):
    site = make_site(tmp_path, pages=2)
    url = server.url + "site/"
    assert url.startswith("https://")
    assert_certificate_error(run(dossier_bin, "publish", "--site", site, "--to", url), server)
    # a CA file of another authority is no better
    assert_certificate_error(run(dossier_bin, "publish", "--site", site, "--to", url, "--ca-file", pki["other"]), server)

    ok = run(dossier_bin, "publish", "--site", site, "--to", url, "--ca-file", pki["ca"])
    assert ok.returncode == 0, ok.stderr
    assert tree(tmp_path / "srv" / "site") == tree(site)

    (site / "index.html").write_text("<h1>Changed</h1>\n")
    from webdav_server import write_manifest
    write_manifest(site)
    ok = run(dossier_bin, "publish", "--site", site, "--to", url, ssl_cert_file=pki["ca"])
    assert ok.returncode == 0, ok.stderr
    assert tree(tmp_path / "srv" / "site") == tree(site)

    verify = run(dossier_bin, "publish", "--site", site, "--to", url, "--verify", ssl_cert_file=pki["ca"])
    assert verify.returncode == 0, verify.stderr
    assert "0 difference(s)" in verify.stdout


def test_ca_file_option_comes_before_ssl_cert_file(dossier_bin, pki, server, tmp_path):
    site = make_site(tmp_path, pages=1)
    url = server.url + "site/"
    # the option wins over a wrong environment variable …
    ok = run(dossier_bin, "publish", "--site", site, "--to", url, "--ca-file", pki["ca"], ssl_cert_file=pki["other"])
    assert ok.returncode == 0, ok.stderr
    # … and a wrong option is not rescued by a right variable
    bad = run(dossier_bin, "publish", "--site", site, "--to", url, "--verify", "--ca-file", pki["other"], ssl_cert_file=pki["ca"])
    assert bad.returncode == 1 and "TLS failure" in bad.stderr, bad.stderr


def test_missing_or_unusable_ca_file_is_a_clear_error_before_any_request(dossier_bin, server, tmp_path):
    site = make_site(tmp_path, pages=1)
    url = server.url + "site/"
    missing = tmp_path / "nope" / "ca.pem"
    p = run(dossier_bin, "publish", "--site", site, "--to", url, "--ca-file", missing)
    assert p.returncode == 1 and f"--ca-file {missing}: no such file" in p.stderr, p.stderr
    p = run(dossier_bin, "publish", "--site", site, "--to", url, ssl_cert_file=missing)
    assert p.returncode == 1 and f"SSL_CERT_FILE {missing}: no such file" in p.stderr, p.stderr
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    p = run(dossier_bin, "publish", "--site", site, "--to", url, "--ca-file", junk)
    assert p.returncode == 1 and "holds no PEM certificate" in p.stderr, p.stderr
    if os.geteuid() != 0:   # root reads any file
        locked = tmp_path / "locked.pem"
        locked.write_text("-----BEGIN CERTIFICATE-----\n")
        locked.chmod(0)
        p = run(dossier_bin, "publish", "--site", site, "--to", url, "--ca-file", locked)
        assert p.returncode == 1 and "cannot be read" in p.stderr, p.stderr
    assert server.requests() == []


def test_vault_sync_trusts_the_private_ca_only_when_given(dossier_bin, pki, server, tmp_path):
    probe = subprocess.run([dossier_bin, "vault", "sync", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("built without the vault domain")
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    for args in (("init", a), ("add", a, "--title", "Mail", "--username", "me")):
        p = run(dossier_bin, "vault", *args, extra_env=VAULT_ENV)
        assert p.returncode == 0, p.stderr
    url = server.url + "v/"
    bad = run(dossier_bin, "vault", "sync", a, "--to", url, extra_env=VAULT_ENV)
    assert_certificate_error(bad, server)
    assert not (tmp_path / "srv" / "v").exists()
    ok = run(dossier_bin, "vault", "sync", a, "--to", url, "--ca-file", pki["ca"], extra_env=VAULT_ENV)
    assert ok.returncode == 0, ok.stderr
    assert "1 pushed" in ok.stdout, ok.stdout
    # a second device, created from the server's copy, trusting the CA through the environment
    ok = run(dossier_bin, "vault", "sync", b, "--to", url, ssl_cert_file=pki["ca"], extra_env=VAULT_ENV)
    assert ok.returncode == 0, ok.stderr
    listed = run(dossier_bin, "vault", "list", b, extra_env=VAULT_ENV)
    assert "Mail" in listed.stdout, listed.stdout


def test_vault_sync_remembers_its_ca_file_for_later_syncs_and_auto_sync(dossier_bin, pki, server, tmp_path):
    probe = subprocess.run([dossier_bin, "vault", "sync", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("built without the vault domain")
    a = tmp_path / "a.dvault"
    state_file = tmp_path / "a.dvault.sync.json"
    for args in (("init", a), ("add", a, "--title", "Mail", "--username", "me")):
        p = run(dossier_bin, "vault", *args, extra_env=VAULT_ENV)
        assert p.returncode == 0, p.stderr
    url = server.url + "v/"
    # a failed sync remembers nothing
    bad = run(dossier_bin, "vault", "sync", a, "--configure", url, "--user", USER, "--auto", "--ca-file", pki["other"],
              extra_env=VAULT_ENV)
    assert bad.returncode == 1 and "TLS failure" in bad.stderr, bad.stderr
    assert not state_file.exists()
    ok = run(dossier_bin, "vault", "sync", a, "--configure", url, "--user", USER, "--auto", "--ca-file", pki["ca"],
             extra_env=VAULT_ENV)
    assert ok.returncode == 0, ok.stderr
    state = json.loads(state_file.read_text())
    assert state["caFile"] == str(pki["ca"].resolve())
    # later syncs and auto-sync at unlock trust it without the option, before SSL_CERT_FILE
    again = run(dossier_bin, "vault", "sync", a, ssl_cert_file=pki["other"], extra_env=VAULT_ENV)
    assert again.returncode == 0, again.stderr
    listed = run(dossier_bin, "vault", "list", a, ssl_cert_file=pki["other"], extra_env=VAULT_ENV)
    assert listed.returncode == 0 and "Mail" in listed.stdout, listed.stderr
    assert "auto-sync: synced with" in listed.stderr and "auto-sync failed" not in listed.stderr, listed.stderr
    # the option still comes first: a wrong one is not rescued by the remembered file
    wrong = run(dossier_bin, "vault", "sync", a, "--ca-file", pki["other"], extra_env=VAULT_ENV)
    assert wrong.returncode == 1 and "TLS failure" in wrong.stderr, wrong.stderr
    assert json.loads(state_file.read_text())["caFile"] == str(pki["ca"].resolve())
    # a remembered file that has gone is a clear error that names where it came from
    moved = tmp_path / "moved-ca.pem"
    moved.write_bytes(pki["ca"].read_bytes())
    ok = run(dossier_bin, "vault", "sync", a, "--ca-file", moved, extra_env=VAULT_ENV)
    assert ok.returncode == 0, ok.stderr
    moved.unlink()
    gone = run(dossier_bin, "vault", "sync", a, extra_env=VAULT_ENV)
    assert gone.returncode == 1, gone.stderr
    assert f"--ca-file remembered in a.dvault.sync.json {moved}: no such file" in gone.stderr, gone.stderr
    # --ca-file '' forgets it (here the environment then trusts the CA for that run)
    forget = run(dossier_bin, "vault", "sync", a, "--ca-file", "", ssl_cert_file=pki["ca"], extra_env=VAULT_ENV)
    assert forget.returncode == 0, forget.stderr
    assert "caFile" not in json.loads(state_file.read_text())
    untrusted = run(dossier_bin, "vault", "list", a, extra_env=VAULT_ENV)
    assert untrusted.returncode == 0 and "Mail" in untrusted.stdout, untrusted.stderr
    assert "warning: auto-sync failed" in untrusted.stderr and "TLS failure" in untrusted.stderr, untrusted.stderr
    for out in (ok, again, listed, wrong, gone, forget, untrusted):
        assert PASSWORD not in out.stdout + out.stderr
    assert PASSWORD not in state_file.read_text()


def test_game_ingest_from_https_uses_the_ca_file(dossier_bin, pki, server, tmp_path):
    keygen = run(dossier_bin, "game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    assert keygen.returncode == 0, keygen.stderr
    (tmp_path / "srv" / "drop").mkdir(parents=True)
    args = ["game", "ingest", "--key", tmp_path / "study.key", "--from", server.url + "drop/", "--db", tmp_path / "s.sqlite"]
    bad = run(dossier_bin, *args)
    assert_certificate_error(bad, server)
    ok = run(dossier_bin, *args, "--ca-file", pki["ca"])
    assert ok.returncode == 0, ok.stderr
    assert "0 stored" in ok.stdout


def test_without_libcurl_the_error_says_what_to_install(dossier_bin, server, tmp_path):
    site = make_site(tmp_path, pages=1)
    p = run(dossier_bin, "publish", "--site", site, "--to", server.url + "site/",
            extra_env={"DOSSIER_LIBCURL": str(tmp_path / "no-libcurl.so.4")})
    assert p.returncode == 1
    assert "libcurl not found" in p.stderr, p.stderr
    assert server.requests() == []
