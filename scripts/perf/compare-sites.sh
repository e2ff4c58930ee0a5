#!/usr/bin/env bash
# Builds the same project with two dossier binaries and compares the whole output:
# every file of the site and the output manifest, byte for byte.
#
#   scripts/perf/compare-sites.sh OLD_BINARY NEW_BINARY PROJECT [PROJECT…]
#
# Each project is copied into a temp folder per binary (its _site, manifest and
# .dossier removed from the copy), built with `build --clean --quiet`, and the
# two `_site` trees plus `_site.manifest.json` are compared with `diff -r`. Exit status
# 0 when every project's outputs are identical, 1 otherwise. Used for issue #20's page
# work (docs/perf-pages.md): a speed change must not change one byte of a site.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,10p "$0"; exit 2; }
old=$1; new=$2; shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/dossier-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
for project in "$@"; do
    name=$(basename "$project")
    for side in old new; do
        mkdir -p "$work/$side"
        cp -a "$project" "$work/$side/$name"
        rm -rf "$work/$side/$name/_site" "$work/$side/$name/_site.manifest.json" "$work/$side/$name/.dossier"
        bin=$old; [ "$side" = new ] && bin=$new
        "$bin" build --clean --quiet "$work/$side/$name"
    done
    if diff -r "$work/old/$name/_site" "$work/new/$name/_site" >/dev/null \
        && cmp -s "$work/old/$name/_site.manifest.json" "$work/new/$name/_site.manifest.json"; then
        echo "$name: identical ($(find "$work/new/$name/_site" -type f | wc -l) files)"
    else
        echo "$name: DIFFERENT"; diff -r "$work/old/$name/_site" "$work/new/$name/_site" | head -20 || true
        status=1
    fi
    rm -rf "$work/old/$name" "$work/new/$name"
done
exit $status
