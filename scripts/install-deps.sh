#!/usr/bin/env bash
# Installs what Dossier's build, demo and tests need and is missing: every Debian
# package listed in scripts/deps/*.apt and every PyPI package in scripts/deps/*.pip.
# Safe to run again: it only installs what is not there yet.
set -euo pipefail
cd "$(dirname "$0")/deps"

want_apt=()
for f in *.apt; do
  [ -e "$f" ] || continue
  while read -r pkg _; do
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || want_apt+=("$pkg")
  done < "$f"
done
if [ ${#want_apt[@]} -gt 0 ]; then
  # shellcheck disable=SC2207
  want_apt=($(printf '%s\n' "${want_apt[@]}" | sort -u))
  echo "Installing Debian packages: ${want_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${want_apt[@]}" >/dev/null
fi

want_pip=()
want_nodeps=()   # lines written as "NAME --no-deps": installed without their dependencies
for f in *.pip; do
  [ -e "$f" ] || continue
  while read -r pkg flag _; do
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
    name="${pkg%%[<>=!]*}"
    python3 -m pip show -q "$name" >/dev/null 2>&1 && continue
    if [ "$flag" = "--no-deps" ]; then want_nodeps+=("$pkg"); else want_pip+=("$pkg"); fi
  done < "$f"
done
if [ ${#want_nodeps[@]} -gt 0 ]; then
  echo "Installing PyPI packages without dependencies: ${want_nodeps[*]}"
  python3 -m pip install -q --disable-pip-version-check --no-deps "${want_nodeps[@]}"
fi
if [ ${#want_pip[@]} -gt 0 ]; then
  # shellcheck disable=SC2207
  want_pip=($(printf '%s\n' "${want_pip[@]}" | sort -u))
  echo "Installing PyPI packages: ${want_pip[*]}"
  python3 -m pip install -q --disable-pip-version-check "${want_pip[@]}"
fi
