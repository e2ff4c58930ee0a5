#!/bin/bash
# Builds one project with two dossier binaries and compares the two sites byte for byte
# (docs/perf-study.md: every performance change must leave the output unchanged).
#
#   scripts/study-site-diff.sh REFERENCE_BIN NEW_BIN PROJECT_DIR
#
# The project is copied (its files hard-linked, or copied when the temporary folder is on
# another file system, e.g. a project on a tmpfs) into two temporary folders so its own
# _site and build state are left alone. Prints each binary's wall and CPU time; exits 1
# when the sites differ.
set -euo pipefail
ref=${1:?reference binary}; new=${2:?new binary}; project=${3:?project folder}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in ref new; do
    mkdir "$work/$side"
    if ! cp -al "$project"/. "$work/$side/" 2>/dev/null; then
        # Links cannot cross file systems: drop the links made so far, then copy.
        rm -rf "$work/$side" && mkdir "$work/$side" && cp -a "$project"/. "$work/$side/"
    fi
    rm -rf "$work/$side/_site" "$work/$side/.dossier" "$work/$side/_site.manifest.json"
done
/usr/bin/time -f "reference: %e s wall, %U s user, %S s sys, %M KB" "$ref" build --clean --quiet "$work/ref"
/usr/bin/time -f "new:       %e s wall, %U s user, %S s sys, %M KB" "$new" build --clean --quiet "$work/new"
if diff -r -q "$work/ref/_site" "$work/new/_site"; then
    echo "sites identical"
else
    echo "sites differ"; exit 1
fi
