#!/usr/bin/env bash
# Regenerates the demo keystores alice.keystore and bob.keystore (DEMO DATA ONLY: their
# password is in demo.password so `dossier build Examples/demo` can open them).
#
#   DOSSIER_BIN=.build/debug/dossier Examples/demo/data/sms/make-demo.sh
#
# Needs a debug build (it fixes the clock with DOSSIER_SMS_NOW, which release builds
# ignore). Story: Alice and Bob exchange key messages and compare the safety number,
# write a few messages; two of Alice's messages are lost on the way (Bob's backlog 2);
# Alice has started adding Carol (pending).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${DOSSIER_BIN:-dossier}"
export DOSSIER_SMS_PASSWORD="$(head -n1 "$here/demo.password")"
a="$here/alice.keystore"; b="$here/bob.keystore"
rm -f "$a" "$b" "$a.lock" "$b.lock"
at() { export DOSSIER_SMS_NOW="$1"; }
key() { grep '^SecureSMS-key:'; }
number() { sed -n 's/^Safety number: //p'; }

at 2026-03-02T09:00:00Z
"$bin" sms init --keystore "$a" --account alice --kdf-log2n 15
"$bin" sms init --keystore "$b" --account bob --kdf-log2n 15
ka=$("$bin" sms contact add Bob --keystore "$a" --later | key)
kb=$("$bin" sms contact add Alice --keystore "$b" --later | key)
n=$("$bin" sms contact add Alice --keystore "$b" --key "$ka" | number)
"$bin" sms contact add Alice --keystore "$b" --key "$ka" --confirm "$n" >/dev/null
"$bin" sms contact add Bob --keystore "$a" --key "$kb" --confirm "$n" >/dev/null
at 2026-03-02T09:05:00Z
m=$(echo "The delivery arrives Thursday at the north gate." | "$bin" sms encrypt Bob --keystore "$a")
echo "$m" | "$bin" sms decrypt Alice --keystore "$b" >/dev/null
at 2026-03-02T09:12:00Z
m=$(echo "Understood. I will be there by 6." | "$bin" sms encrypt Alice --keystore "$b")
echo "$m" | "$bin" sms decrypt Bob --keystore "$a" >/dev/null
at 2026-03-03T17:40:00Z
echo "Lost message one" | "$bin" sms encrypt Bob --keystore "$a" >/dev/null
echo "Lost message two" | "$bin" sms encrypt Bob --keystore "$a" >/dev/null
m=$(echo "Did my last two texts arrive?" | "$bin" sms encrypt Bob --keystore "$a")
echo "$m" | "$bin" sms decrypt Alice --keystore "$b" >/dev/null
at 2026-03-04T08:00:00Z
"$bin" sms contact add Carol --keystore "$a" --later >/dev/null
rm -f "$a.lock" "$b.lock"
echo "demo keystores written to $here"
