"""A real PostgreSQL server for Dossier's end-to-end tests (not a test itself).

``PgServer`` runs the Debian ``postgresql`` package's own ``initdb`` and ``pg_ctl``
(``/usr/lib/postgresql/<version>/bin``) in a fresh temp folder, listening only on
127.0.0.1 at a free port, with password authentication (``scram-sha-256``) for every
connection, so a wrong password is refused the way a real deployment refuses it. No
Unix socket is made (``unix_socket_directories = ''``): every client goes over TCP.

PostgreSQL refuses to run as root. When the tests run as root the server runs as the
``nobody`` user (through ``setpriv``); the temp folder is made in ``/tmp`` (not in
pytest's 0700 ``tmp_path``) and handed to that user.

Used from Python::

    with PgServer() as pg:
        db = pg.create_database("study")        # a fresh, empty database
        env = pg.client_env(db)                 # PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE
        url = pg.url(db)                        # postgres://user@127.0.0.1:port/db (no password)
        pg.psql(db, "select 1")                 # the test side's own client (psql), an oracle
        pg.stop(mode="immediate")               # a crash / a server gone mid-command
        pg.start()                              # the same data back

Run as a script (``python3 Tests/e2e/pg_server.py``) it starts a server, prints a
libpq conninfo (``host=… port=… user=… password=… dbname=…``) on one line, and keeps
the server until standard input closes or Ctrl-C: handy for ``DOSSIER_TEST_PG``, the
variable the Swift unit tests of the PostgreSQL store read. ``pg_server.py --run CMD …``
runs CMD with ``DOSSIER_TEST_PG`` set and stops the server after it (``make
test-swift`` runs ``swift test`` so).
"""
import glob
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SUPERUSER = "dossier_test"


def postgres_bin_dir():
    """The newest /usr/lib/postgresql/<version>/bin holding initdb, or None."""
    found = []
    for path in glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        version = pathlib.Path(path).parent.parent.name
        try:
            found.append((int(version.split(".")[0]), pathlib.Path(path).parent))
        except ValueError:
            continue
    if not found:
        return None
    return max(found)[1]


def missing_reason():
    """Why no server can be started here (a sentence), or None when one can."""
    if postgres_bin_dir() is None:
        return "PostgreSQL server binaries not found: apt install postgresql (scripts/deps/store.apt)"
    if shutil.which("psql") is None and not (postgres_bin_dir() / "psql").exists():
        return "psql not found: apt install postgresql-client"
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """One throw-away PostgreSQL cluster (see the module docstring)."""

    def __init__(self, password=None, user=SUPERUSER):
        reason = missing_reason()
        if reason:
            raise RuntimeError(reason)
        self.bin = postgres_bin_dir()
        self.user = user
        # Letters and digits only: the password must never need quoting, and the tests
        # search every output for it.
        self.password = password or ("pw" + secrets.token_hex(12))
        self.port = None
        self.as_root = os.geteuid() == 0
        self.base = pathlib.Path(tempfile.mkdtemp(prefix="dossier-pg-", dir="/tmp"))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self.running = False
        self._databases = 0
        if self.as_root:
            import pwd
            ent = pwd.getpwnam("nobody")
            self.uid, self.gid = ent.pw_uid, ent.pw_gid
            os.chown(self.base, self.uid, self.gid)
        self._initdb()

    # MARK: - running the server's own tools

    def _as_owner(self, argv):
        """argv run as the cluster's owner (nobody when the tests run as root)."""
        if not self.as_root:
            return argv
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--", *argv]

    def _run_owner(self, argv, **kw):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": str(self.base)}
        return subprocess.run(self._as_owner(argv), cwd=self.base, env=env, capture_output=True,
                              text=True, **kw)

    def _initdb(self):
        pwfile = self.base / "pwfile"
        pwfile.write_text(self.password + "\n", encoding="utf-8")
        if self.as_root:
            os.chown(pwfile, self.uid, self.gid)
        os.chmod(pwfile, 0o600)
        proc = self._run_owner([str(self.bin / "initdb"), "-D", str(self.data), "-U", self.user,
                                f"--pwfile={pwfile}", "--auth=scram-sha-256", "--encoding=UTF8",
                                "--locale=C", "--no-sync"], timeout=120)
        pwfile.unlink()
        if proc.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{proc.stdout}\n{proc.stderr}")
        # fsync off (a test's data need not survive the machine), but every commit is
        # written to the WAL before it is acknowledged (synchronous_commit stays on): a
        # server stopped with "immediate" — a crash — keeps every acknowledged commit.
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\n# dossier test server\nlisten_addresses = '127.0.0.1'\n"
                       "unix_socket_directories = ''\nfsync = off\n"
                       "full_page_writes = off\nmax_connections = 60\nshared_buffers = 16MB\n"
                       "password_encryption = 'scram-sha-256'\n")
        # Only TCP from loopback, always with a password.
        (self.data / "pg_hba.conf").write_text(
            "host all all 127.0.0.1/32 scram-sha-256\n", encoding="utf-8")

    def start(self, attempts=5):
        """Starts (or restarts) the server; a new free port is tried if one was taken."""
        if self.running:
            return self
        last = ""
        for _ in range(attempts):
            port = self.port or free_port()
            proc = self._run_owner([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                                    "-o", f"-p {port}", "-w", "-t", "60", "start"], timeout=90)
            if proc.returncode == 0:
                self.port = port
                self.running = True
                return self
            last = proc.stdout + proc.stderr + self._log_tail()
            if self.port is not None:   # a restart must keep its port (clients know it)
                time.sleep(0.2)
                continue
        raise RuntimeError(f"pg_ctl start failed:\n{last}")

    def stop(self, mode="fast"):
        """Stops the server: "fast" (clients cut, clean shut-down) or "immediate" (a crash)."""
        if not self.running:
            return
        proc = self._run_owner([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w",
                                "-t", "60", "stop"], timeout=90)
        self.running = False
        if proc.returncode != 0:
            raise RuntimeError(f"pg_ctl stop failed:\n{proc.stdout}\n{proc.stderr}")

    def close(self):
        try:
            self.stop(mode="immediate")
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def _log_tail(self):
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-2000:]
        except OSError:
            return ""

    # MARK: - what clients need

    def client_env(self, dbname=None, password=True):
        """The standard libpq variables for this server (PGPASSWORD unless password=False)."""
        env = {"PGHOST": "127.0.0.1", "PGPORT": str(self.port), "PGUSER": self.user,
               "PGCONNECT_TIMEOUT": "10", "PGSSLMODE": "disable"}
        if dbname:
            env["PGDATABASE"] = dbname
        if password:
            env["PGPASSWORD"] = self.password
        return env

    def url(self, dbname, with_password=False):
        """postgres://user@127.0.0.1:port/dbname (the password only when asked for)."""
        cred = f"{self.user}:{self.password}" if with_password else self.user
        return f"postgres://{cred}@127.0.0.1:{self.port}/{dbname}"

    def conninfo(self, dbname):
        return (f"host=127.0.0.1 port={self.port} user={self.user} password={self.password} "
                f"dbname={dbname} sslmode=disable connect_timeout=10")

    def write_pgpass(self, folder):
        """A ~/.pgpass-format file for this server in `folder` (mode 0600); its path."""
        path = pathlib.Path(folder) / "pgpass"
        path.write_text(f"127.0.0.1:{self.port}:*:{self.user}:{self.password}\n", encoding="utf-8")
        os.chmod(path, 0o600)
        return path

    def psql(self, dbname, sql, check=True):
        """Runs `sql` with psql (the test side's independent client); its stdout (unaligned,
        tuples only, fields split by a tab)."""
        psql = shutil.which("psql") or str(self.bin / "psql")
        env = dict(os.environ)
        env.update(self.client_env(dbname))
        proc = subprocess.run([psql, "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                               "-c", sql], env=env, capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise RuntimeError(f"psql failed ({sql[:80]}):\n{proc.stderr}")
        return proc.stdout

    def create_database(self, name=None):
        """A fresh empty database (named `name`, or db1, db2, …); its name."""
        if name is None:
            self._databases += 1
            name = f"db{self._databases}"
        self.psql("postgres", f'create database "{name}"')
        return name


def run_with_server(argv):
    """Runs `argv` with DOSSIER_TEST_PG naming a fresh database of a server started for
    it (`make test-swift`), or without when no server can be started here; its status."""
    reason = missing_reason()
    if reason:
        print(f"pg_server.py: {reason}; running without DOSSIER_TEST_PG", file=sys.stderr)
        return subprocess.run(argv).returncode
    with PgServer() as server:
        env = dict(os.environ, DOSSIER_TEST_PG=server.conninfo(server.create_database("dossier")))
        return subprocess.run(argv, env=env).returncode


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--run":
        sys.exit(run_with_server(sys.argv[2:]))
    with PgServer() as server:
        db = server.create_database("dossier")
        print(server.conninfo(db), flush=True)
        try:
            sys.stdin.read()
        except KeyboardInterrupt:
            pass
