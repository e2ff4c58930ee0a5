"""`dossier vault sync` checked against docs/vault-sync.md alone (an independent reading).

A wsgidav server on 127.0.0.1, behind a recording middleware that can answer, hide or hold
a request, stands in for the WebDAV folder. Vaults are written and read by a small
implementation of docs/vault-format.md (scrypt logN 10: fast, and accepted by the bounds
check), so every expected value — blob names, sizes, manifest bytes and MAC, the merge
result item by item, conflict-copy ids — is computed here from the docs, never copied
from the program's output. `test_doc_vault_sync_more.py` holds the refusals.
"""
import base64
import hashlib
import hmac
import json
import os
import struct
import subprocess
import threading
import time
import unicodedata
import urllib.parse
import uuid

import pytest
from cheroot import wsgi
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from wsgidav.wsgidav_app import WsgiDAVApp

from conftest import dossier_path

MASTER = "sync doc check: violet otter 47 lanterns"
CANARY = "dav-CANARY-7Qz9-never-print"
NOW = int(time.time() * 1000)
T0 = NOW - 10 * 86400_000


# MARK: - the vault format, from docs/vault-format.md

def hkdf(key, info):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(key)


_KEYS = {}


def keys_for(salt, password=MASTER):
    if (salt, password) not in _KEYS:
        master = hashlib.scrypt(unicodedata.normalize("NFC", password).encode(), salt=salt, n=2 ** 10, r=8, p=1,
                                dklen=32)
        _KEYS[(salt, password)] = {n: hkdf(master, f"dossier-vault/{n}/v1".encode())
                                   for n in ("header", "body", "item")}
    return _KEYS[(salt, password)]


def canon(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def item(title, *, kind="entry", modified=T0, username="", password="", text="", iid=None):
    return {"created": T0, "deleted": False, "details": "", "folder": "", "id": iid or str(uuid.uuid4()).upper(),
            "kind": kind, "modified": modified, "password": password, "passwordChanged": T0, "text": text,
            "title": title, "username": username, "website": ""}


def tombstone(it, modified):
    return {"created": it["created"], "deleted": True, "details": "", "folder": "", "id": it["id"],
            "kind": it["kind"], "modified": modified, "password": "", "passwordChanged": it["passwordChanged"],
            "text": "", "title": "", "username": "", "website": ""}


def new_vault(path, items, password=MASTER):
    salt = os.urandom(32)
    hdr = {"cipher": "AES-256-GCM", "format": 1, "kdf": {"algorithm": "scrypt", "logN": 10, "p": 1, "r": 8,
                                                        "rounds": 0, "salt": base64.b64encode(salt).decode()},
           "vaultID": str(uuid.uuid4()).upper()}
    hj = canon(hdr)
    pre = b"DOSSIERV" + struct.pack(">I", len(hj)) + hj
    pre += hmac.new(keys_for(salt, password)["header"], pre, hashlib.sha256).digest()
    write_payload(path, pre, {"format": 1, "items": items}, password)


def write_payload(path, header_bytes, payload, password=MASTER):
    salt = base64.b64decode(json.loads(header_bytes[12:-32])["kdf"]["salt"])
    payload = dict(payload, items=sorted(payload["items"], key=lambda i: i["id"]))
    nonce = os.urandom(12)
    body = AESGCM(keys_for(salt, password)["body"]).encrypt(nonce, canon(payload), header_bytes)
    path.write_bytes(header_bytes + nonce + body)


def read_vault(path, password=MASTER):
    """(header bytes, payload dict, keys) of a vault file."""
    data = path.read_bytes()
    assert data[:8] == b"DOSSIERV"
    n = struct.unpack(">I", data[8:12])[0]
    header = data[:44 + n]
    hdr = json.loads(data[12:12 + n])
    k = keys_for(base64.b64decode(hdr["kdf"]["salt"]), password)
    assert hmac.compare_digest(hmac.new(k["header"], data[:12 + n], hashlib.sha256).digest(), data[12 + n:44 + n])
    plain = AESGCM(k["body"]).decrypt(data[44 + n:56 + n], data[56 + n:], header)
    return header, json.loads(plain), k


def items_of(path):
    return {i["id"]: i for i in read_vault(path)[1]["items"]}


def edit_items(path, *changed):
    """Write items into a vault file with the times given (a local edit at a chosen `modified`)."""
    header, payload, _ = read_vault(path)
    by_id = {i["id"]: i for i in payload["items"]}
    for it in changed:
        by_id[it["id"]] = it
    write_payload(path, header, dict(payload, items=list(by_id.values())))


def padded_length(n):
    if n <= 512:
        return 512
    if n <= 65536:
        p = 1024
        while p < n:
            p *= 2
        return p
    return -(-n // 65536) * 65536


def seal(it, vault_id, item_key):
    """The blob docs/vault-sync.md "Blobs" describes, byte for byte."""
    plain = canon(it)
    plain += b" " * (padded_length(len(plain)) - len(plain))
    first = b"DOSVITEM" + uuid.UUID(vault_id).bytes + uuid.UUID(it["id"]).bytes
    k_nonce = hkdf(item_key, b"dossier-vault/sync-nonce/v1")
    nonce = hmac.new(k_nonce, first + plain, hashlib.sha256).digest()[:12]
    return first + nonce + AESGCM(item_key).encrypt(nonce, plain, first)


def open_blob(blob, item_key):
    return json.loads(AESGCM(item_key).decrypt(blob[40:52], blob[52:], blob[:40]))


def rev_of(blob):
    return hashlib.sha256(blob).hexdigest()[:16]


def manifest_bytes(items_map, vault_id, version, item_key):
    k_man = hkdf(item_key, b"dossier-vault/sync-manifest/v1")
    body = {"format": 2, "items": items_map, "vaultID": vault_id, "version": version}
    mac = hmac.new(k_man, b"dossier-vault-sync-manifest\n" + canon(body), hashlib.sha256).hexdigest()
    return canon(dict(body, mac=mac))


def conflict_copy_id(loser, vault_path):
    """docs/vault-sync.md 'A round' step 3: HMAC-SHA256 under K_copy = HKDF(item key, conflict-copy/v1)."""
    k_copy = hkdf(read_vault(vault_path)[2]["item"], b"dossier-vault/conflict-copy/v1")
    seed = b"conflict-copy\n" + loser["id"].encode() + b"\n" + canon(loser)
    digest = bytearray(hmac.new(k_copy, seed, hashlib.sha256).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(digest))).upper()


# MARK: - a WebDAV server that records, answers, hides or holds requests

class Dav:
    def __init__(self, root):
        self.root = root
        self.log, self.rules, self.lock = [], [], threading.Lock()
        conf = {"host": "127.0.0.1", "port": 0, "provider_mapping": {"/": str(root)}, "verbose": 0,
                "logging": {"enable": False, "enable_loggers": []}, "lock_storage": True,
                "http_authenticator": {"domain_controller": None, "accept_basic": True, "accept_digest": False,
                                       "default_to_digest": False, "trusted_auth_header": None},
                "simple_dc": {"user_mapping": {"*": {"alice": {"password": CANARY},
                                                     "bob": {"password": CANARY}}}}}
        self.app = WsgiDAVApp(conf)
        self.server = wsgi.Server(("127.0.0.1", 0), self.handle)
        self.server.prepare()
        self.port = self.server.bind_addr[1]
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()

    def url(self, folder):
        return f"http://127.0.0.1:{self.port}/{folder}/"

    def handle(self, env, start_response):
        auth = env.get("HTTP_AUTHORIZATION", "")
        user = base64.b64decode(auth[6:]).decode().split(":")[0] if auth.startswith("Basic ") else ""
        entry = {"method": env["REQUEST_METHOD"], "path": urllib.parse.unquote(env.get("PATH_INFO", "")),
                 "user": user, "if_match": env.get("HTTP_IF_MATCH"), "if_none_match": env.get("HTTP_IF_NONE_MATCH"),
                 "depth": env.get("HTTP_DEPTH"), "status": None, "etag": None}
        with self.lock:
            self.log.append(entry)
            action = next((a for a in (r(entry) for r in list(self.rules)) if a), None)
        if action and "hold" in action:
            arrived, release = action["hold"]
            arrived.set()
            release.wait(60)
        if action and "status" in action:
            length = int(env.get("CONTENT_LENGTH") or 0)
            if length:
                env["wsgi.input"].read(length)
            entry["status"] = action["status"]
            start_response(f"{action['status']} Injected", [("Content-Length", "0")])
            return [b""]

        def recording_start(status, headers, exc_info=None):
            entry["status"] = int(status.split()[0])
            if action and action.get("strip_etag"):
                headers = [(h, v) for h, v in headers if h.lower() != "etag"]
            entry["etag"] = next((v for h, v in headers if h.lower() == "etag"), None)
            return start_response(status, headers, exc_info)

        return self.app(env, recording_start)

    def take(self):
        with self.lock:
            out, self.log[:] = list(self.log), []
        return out

    def stop(self):
        self.server.stop()


@pytest.fixture(scope="module")
def dav(tmp_path_factory):
    root = tmp_path_factory.mktemp("davroot")
    server = Dav(root)
    yield server
    server.stop()


@pytest.fixture
def folder(dav, request):
    name = "f-" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:12]
    dav.rules.clear()
    dav.take()
    yield name, dav.url(name), dav.root / name
    dav.rules.clear()


# MARK: - running the CLI

def run(*args, env=None, input=None, home=None):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DOSSIER_", "NETRC", "SSL_CERT"))}
    full.update(DOSSIER_VAULT_PASSWORD=MASTER, DOSSIER_WEBDAV_PASSWORD=CANARY, DOSSIER_ENTRY_PASSWORD="pw-entry")
    if home:
        full["HOME"] = str(home)
    full.update(env or {})
    full = {k: v for k, v in full.items() if v is not None}
    proc = subprocess.run([dossier_path(), *map(str, args)], env=full, input=input, capture_output=True, text=True,
                          timeout=120)
    assert CANARY not in proc.stdout + proc.stderr, "the WebDAV password was printed"
    return proc


def sync(vault, url, user="alice", *extra, env=None):
    return run("vault", "sync", vault, "--to", url, "--user", user, *extra, env=env, home=vault.parent)


def server_files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def writes(log):
    return [e for e in log if e["method"] in ("PUT", "DELETE", "MKCOL", "MOVE", "PROPPATCH", "COPY")]


def live(items):
    return {i: it for i, it in items.items() if not it["deleted"]}


@pytest.fixture
def pair(tmp_path, folder, dav):
    """Device A (pushed first) and B (joined from the server), with four items."""
    a, b = tmp_path / "a" / "v.dvault", tmp_path / "b" / "v.dvault"
    a.parent.mkdir()
    b.parent.mkdir()
    its = [item("Mail", username="jo", password="p1"), item("Bank", username="al", password="p2"),
           item("Memo", kind="note", text="hello"), item("Shop", username="sh", password="p3")]
    new_vault(a, its)
    name, url, root = folder
    assert sync(a, url).returncode == 0
    assert sync(b, url, "bob").returncode == 0
    dav.take()
    return a, b, url, root, {it["title"]: it for it in its}


# MARK: - tests

def test_first_push_lays_out_the_folder_as_documented(tmp_path, folder, dav):
    name, url, root = folder
    vault = tmp_path / "v.dvault"
    its = [item("Mail", username="jo", password="p1"), item("Memo", kind="note", text="x" * 700)]
    gone = tombstone(item("Old"), T0 + 5)
    new_vault(vault, its + [gone])
    header, payload, k = read_vault(vault)
    vid = json.loads(header[12:-32])["vaultID"]
    proc = sync(vault, url)
    assert proc.returncode == 0, proc.stderr
    files = server_files(root)
    assert files["vault.header"] == header
    expected = {}
    for it in payload["items"]:
        blob = seal(it, vid, k["item"])
        expected[it["id"]] = rev_of(blob)
        assert files[f"items/{it['id']}-{rev_of(blob)}.item"] == blob
        assert len(blob) == 40 + padded_length(len(canon(it))) + 28
    assert len(files[f"items/{gone['id']}-{expected[gone['id']]}.item"]) == 580
    assert sorted(f for f in files if f.startswith("items/")) == sorted(
        f"items/{i}-{r}.item" for i, r in expected.items())
    assert files["manifest.json"] == manifest_bytes(expected, vid, 1, k["item"])
    assert files["manifest.pending.json"] == files["manifest.json"]
    log = dav.take()
    assert (log[0]["method"], log[0]["path"], log[0]["status"]) == ("GET", f"/{name}/manifest.json", 404)
    puts = [e["path"].rsplit("/", 1)[-1] for e in log if e["method"] == "PUT"]
    assert puts[-2:] == ["manifest.pending.json", "manifest.json"], puts
    assert all(p.endswith(".item") for p in puts[:-2] if p != "vault.header")
    for e in log:
        if e["method"] == "PUT" and e["path"].endswith((".item", "vault.header", "/manifest.json")):
            assert e["if_none_match"] == "*", e
    pending = next(e for e in log if e["path"].endswith("manifest.pending.json"))
    assert pending["if_none_match"] is None and pending["if_match"] is None
    state = json.loads((tmp_path / "v.dvault.sync.json").read_text())
    assert isinstance(state, dict) and CANARY not in json.dumps(state) and "1" in json.dumps(state)
    assert not any(e["method"] == "DELETE" for e in log)


def test_new_device_is_built_from_the_server_and_a_resync_writes_nothing(pair, dav):
    a, b, url, root, its = pair
    header_a, payload_a, _ = read_vault(a)
    header_b, payload_b, _ = read_vault(b)
    assert header_b == header_a
    assert payload_b["items"] == payload_a["items"]
    before = server_files(root)
    a_bytes = a.read_bytes()
    for dev, user in ((a, "alice"), (b, "bob")):
        proc = sync(dev, url, user)
        assert proc.returncode == 0, proc.stderr
        log = dav.take()
        assert [(e["method"], e["path"].rsplit("/", 1)[-1]) for e in log] == [("GET", "manifest.json")]
    assert server_files(root) == before
    assert items_of(a) == {i["id"]: i for i in payload_a["items"]}
    assert len(a.read_bytes()) == len(a_bytes)


def _conflict_lines(text):
    return sorted(line for line in text.splitlines() if line.startswith("conflict: item "))


def test_the_merge_rule_item_by_item_with_conflict_copies(pair, dav):
    """Explicit `modified` times on both devices; A syncs first, then B, then A."""
    a, b, url, root, its = pair
    mail, bank, memo, shop = its["Mail"], its["Bank"], its["Memo"], its["Shop"]
    t = T0 + 1000
    a_mail = dict(mail, username="a-mail", modified=t + 1)   # loses to B's later edit: copy of A's
    b_mail = dict(mail, username="b-mail", modified=t + 2)
    a_bank = dict(bank, username="a-bank", modified=t + 5)   # wins over B's earlier edit: copy of B's
    b_bank = dict(bank, username="b-bank", modified=t + 3)
    a_memo = tombstone(memo, t + 7)                          # tie with an edit: the tombstone wins
    b_memo = dict(memo, text="b-memo", modified=t + 7)
    a_shop = dict(shop, username="shop-zzz", modified=t + 9)  # full tie: larger encoding wins
    b_shop = dict(shop, username="shop-aaa", modified=t + 9)
    edit_items(a, a_mail, a_bank, a_memo, a_shop)
    edit_items(b, b_mail, b_bank, b_memo, b_shop)
    pa = sync(a, url)
    assert pa.returncode == 0 and not _conflict_lines(pa.stdout + pa.stderr)
    pb = sync(b, url, "bob")
    assert pb.returncode == 0, pb.stderr
    pa2 = sync(a, url)
    assert pa2.returncode == 0, pa2.stderr
    ia, ib = items_of(a), items_of(b)
    assert ia == ib
    copies = copies_by_source(ia)
    winners = {mail["id"]: b_mail, bank["id"]: a_bank, memo["id"]: a_memo, shop["id"]: a_shop}
    for iid, want in winners.items():
        assert ia[iid] == want, iid
    for loser in (a_mail, b_bank, b_memo, b_shop):
        key = (loser["title"] + " (conflict copy)", loser["modified"], loser["username"], loser["text"])
        assert key in copies, (loser["title"], sorted(copies))
        cid = copies[key]
        assert ia[cid] == dict(loser, id=cid, title=f"{loser['title']} (conflict copy)")
        assert cid[14] == "5" and cid[19] in "89AB", cid
        lines = _conflict_lines(pb.stdout + pb.stderr)
        short, copy_short = loser["id"][:8].lower(), cid[:8].lower()
        assert any(line.startswith(f"conflict: item {short} ") and copy_short in line and "(conflict copy)" in line
                   for line in lines), (loser["title"], lines)
    assert len(ia) == 8
    assert len(_conflict_lines(pb.stdout + pb.stderr)) == 4, pb.stdout + pb.stderr


def copies_by_source(items):
    return {(it["title"], it["modified"], it["username"], it["text"]): iid for iid, it in items.items()
            if it["title"].endswith(" (conflict copy)")}
