"""The -q runner of test_cli_quiet.py and test_cli_quiet_secrets.py: which command runs
where (QUIET_TABLE), and what -q must print (Runner)."""
import os
import subprocess

from webdav_server import PASSWORD, USER

# commands `--help` does not list (tools for tests and benchmarks)
HIDDEN = ["markdown", "recall parse", "vault score", "vault bench", "sms alphabet", "sms bench",
          "game fit-exgauss", "game fit-logistic"]

# which test runs each command with -q
QUIET_TABLE = {
    "project": ["new", "check", "build", "serve", "archive", "publish", "version", "markdown"],
    "recall": ["recall simulate", "recall import-desktop", "recall parse", "recall keygen", "recall seal",
               "recall ingest"],
    "experiences": ["experiences validate", "experiences import"],
    "vault": ["vault generate", "vault init", "vault add", "vault edit", "vault note", "vault list", "vault show",
              "vault report", "vault export", "vault import", "vault passwd", "vault sync", "vault rm",
              "vault score", "vault bench"],
    "sms": ["sms init", "sms count", "sms contact add", "sms contact list", "sms encrypt", "sms decrypt",
            "sms contact edit", "sms contact resync", "sms contact rm", "sms passwd", "sms alphabet", "sms bench"],
    "game": ["game keygen", "game simulate", "game seal", "game ingest", "game analyze", "game fit-exgauss",
             "game fit-logistic"],
    "db": ["db migrate", "db import-logs", "db copy"],
}

SECRETS = ["quiet master pass phrase", "second quiet master phrase", "plover quartz minnow 7 lantern", PASSWORD]


class Runner:
    """Runs dossier with -q and checks the outcome; records which commands ran."""

    def __init__(self, dossier_bin, cwd, env):
        self.bin, self.cwd, self.env, self.ran = dossier_bin, cwd, env, []

    def run(self, *args, input=None, env=None):
        full = dict(self.env, **(env or {}))
        return subprocess.run([self.bin, *map(str, args)], cwd=self.cwd, env=full, input=input,
                              capture_output=True, text=True, timeout=300)

    def record(self, args):
        words = [a for a in map(str, args) if not a.startswith("-")]
        for n in (3, 2, 1):
            if " ".join(words[:n]) in {c for g in QUIET_TABLE.values() for c in g}:
                self.ran.append(" ".join(words[:n]))
                return

    def silent(self, *args, input=None, env=None):
        """A command that does something: with -q it prints nothing at all."""
        p = self.run(*args, "-q", input=input, env=env)
        assert p.returncode == 0, f"dossier {' '.join(map(str, args))} -q exited {p.returncode}: {p.stderr}"
        assert p.stdout == "" and p.stderr == "", f"dossier {' '.join(map(str, args))} -q printed:\n{p.stdout}\n{p.stderr}"
        self.record(args)
        return p

    def data(self, *args, input=None, env=None, same=True):
        """A command that prints its result: with -q, only the result (the same bytes when `same`)."""
        p = self.run(*args, "-q", input=input, env=env)
        assert p.returncode == 0, f"dossier {' '.join(map(str, args))} -q exited {p.returncode}: {p.stderr}"
        assert p.stdout != "" and p.stderr == "", f"dossier {' '.join(map(str, args))} -q:\n{p.stdout}\n{p.stderr}"
        if same:
            plain = self.run(*args, input=input, env=env)
            assert plain.returncode == 0 and plain.stdout == p.stdout, (args, plain.stdout, p.stdout)
        for s in SECRETS:
            assert s not in p.stdout and s not in p.stderr
        self.record(args)
        return p.stdout

    def fails_the_same(self, *args, env=None):
        """A failure prints its error with or without -q, with the same exit status."""
        loud, quiet = self.run(*args, env=env), self.run(*args, "-q", env=env)
        assert loud.returncode == quiet.returncode != 0, (loud, quiet)
        assert quiet.stderr.strip() and quiet.stderr == loud.stderr and quiet.stdout == "", (loud, quiet)
        return quiet

    def done(self, group):
        assert sorted(set(self.ran)) == sorted(QUIET_TABLE[group]), (group, sorted(set(self.ran)))



def make_runner(dossier_bin, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), DOSSIER_WEBDAV_USER=USER, DOSSIER_WEBDAV_PASSWORD=PASSWORD)
    env.pop("XDG_DATA_HOME", None)
    return Runner(dossier_bin, tmp_path, env)
