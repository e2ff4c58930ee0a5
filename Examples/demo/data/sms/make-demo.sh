#!/usr/bin/env bash
# Regenerates the demo keystores alice.keystore and bob.keystore (DEMO DATA ONLY: their
# password is in demo.password so `dossier build Examples/demo` can open them).
#
#   DOSSIER_BIN=.build-sms/debug/dossier Examples/demo/data/sms/make-demo.sh
#
# Story: Alice and Bob exchange codes, write a few messages; two of Alice's messages
# are lost on the way (Bob's backlog 2); Alice has started adding Carol (pending).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${DOSSIER_BIN:-dossier}"
export DOSSIER_SMS_PASSWORD="$(head -n1 "$here/demo.password")"
a="$here/alice.keystore"; b="$here/bob.keystore"
rm -f "$a" "$b"
at() { export DOSSIER_SMS_NOW="$1"; }
code() { sed -n 's/^Your code for .*: //p'; }

at 2026-03-02T09:00:00Z
"$bin" sms init --keystore "$a" --account alice
"$bin" sms init --keystore "$b" --account bob
ca=$("$bin" sms contact add Bob --keystore "$a" --later | code)
cb=$(DOSSIER_SMS_CODE="$ca" "$bin" sms contact add Alice --keystore "$b" | code)
DOSSIER_SMS_CODE="$cb" "$bin" sms contact add Bob --keystore "$a" >/dev/null
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
echo "demo keystores written to $here"
