#!/usr/bin/env bash
# Times `dossier sms encrypt` and `decrypt` end to end (process start, scrypt unlock,
# one chain step, seal/open, atomic save). The seed asks for under 1 s each.
#
#   Benchmarks/sms/run.sh [RUNS]          (default 10; DOSSIER_BIN picks the binary)
#
# Three keystore costs are measured: the default scrypt cost (N = 2^17, what a user
# gets), the earlier default 2^15, and N = 2^10 (≈ the protocol alone plus process start).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
runs="${1:-10}"
bin="${DOSSIER_BIN:-}"
if [[ -z "$bin" ]]; then
  for cand in "$repo/.build-sms/release/dossier" "$repo/.build-sms/debug/dossier" "$repo/.build/release/dossier" "$repo/.build/debug/dossier"; do
    [[ -x "$cand" ]] && { bin="$cand"; break; }
  done
fi
[[ -x "$bin" ]] || { echo "build dossier first (DOSSIER_ONLY=sms swift build --scratch-path .build-sms)" >&2; exit 1; }
exec python3 - "$bin" "$runs" <<'PY'
import os, re, statistics, subprocess, sys, tempfile, time
bin_, runs = sys.argv[1], int(sys.argv[2])
KEY = re.compile(r"^(SecureSMS-key:\S+)$", re.M)
NUMBER = re.compile(r"Safety number: ([0-9 ]+)")

def sms(ks, *args, inp=None, **env):
    e = dict(os.environ, DOSSIER_SMS_PASSWORD="bench password plover quartz", **env)
    return subprocess.run([bin_, "sms", *args, "--keystore", ks], input=inp, capture_output=True, text=True, env=e, check=True).stdout

def timed(fn):
    t = time.perf_counter(); out = fn(); return time.perf_counter() - t, out

print(f"binary: {bin_}\nruns: {runs}")
print(f"{'scrypt':>10} {'op':>8} {'median s':>9} {'max s':>7}")
for log2n in ("17", "15", "10"):
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a.ks"), os.path.join(d, "b.ks")
        for ks in (a, b):
            sms(ks, "init", "--kdf-log2n", log2n)
        ka = KEY.search(sms(a, "contact", "add", "B", "--later")).group(1)
        kb = KEY.search(sms(b, "contact", "add", "A", "--later")).group(1)
        n = NUMBER.search(sms(b, "contact", "add", "A", "--key", ka)).group(1)
        sms(b, "contact", "add", "A", "--key", ka, "--confirm", n)
        sms(a, "contact", "add", "B", "--key", kb, "--confirm", n)
        text = "Benchmark message with €uro and [brackets], padded to the full block anyway."
        enc, dec = [], []
        for _ in range(runs):
            t, msg = timed(lambda: sms(a, "encrypt", "B", inp=text))
            enc.append(t)
            t, out = timed(lambda: sms(b, "decrypt", "A", inp=msg))
            dec.append(t)
            assert out.rstrip("\n") == text
        for name, xs in (("encrypt", enc), ("decrypt", dec)):
            print(f"{'2^' + log2n:>10} {name:>8} {statistics.median(xs):9.3f} {max(xs):7.3f}")
            if statistics.median(xs) >= 1.0:
                print(f"  over the seed's 1 s budget", file=sys.stderr)
print(subprocess.run([bin_, "sms", "bench", "--count", "2000"], capture_output=True, text=True, check=True).stdout.strip())
PY
