#!/usr/bin/env bash
# The recall log reader's cost in instructions (docs/json-lines.md, "Speed"): the reader
# before the one JSON scanner (git d689e86^), the shared scanner's reader (`scanPlain`)
# and the fast path (`scan`), each reading every line of the first N logs of a folder
# into LineFields with the same loop (Entry.swift, compiled into both), counted by
# callgrind.
#
#   bash Benchmarks/scanner/callgrind.sh LOGDIR [N]      # N defaults to 50
#
# Builds a small package in a temporary folder (this folder's Package.swift.txt and
# Swift files, the repository's Sources/JSONLines and recall reader linked in, the old
# reader from git) with `swift build -c release`; prints, per reader, the instructions
# of the whole process and of its reading function (inclusive).
set -euo pipefail
logs=$(cd "${1:?log folder}" && pwd); n=${2:-50}
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is missing (scripts/deps/bench.apt)" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/OldReader" "$work/Sources/NewReader" "$work/Sources/scanbench"
cp "$here/Package.swift.txt" "$work/Package.swift"
ln -s "$repo/Sources/JSONLines" "$work/Sources/JSONLines"
for f in JSONLineScanner LineWord CompactLineReader; do ln -s "$repo/Sources/RecallStudy/$f.swift" "$work/Sources/NewReader/"; done
for f in JSONLineScanner LineWord; do git -C "$repo" show "d689e86^:Sources/RecallStudy/$f.swift" > "$work/Sources/OldReader/$f.swift"; done
cp "$here/Entry.swift" "$work/Sources/OldReader/Entry.swift"
cp "$here/Entry.swift" "$work/Sources/NewReader/Entry.swift"
cp "$here/main.swift" "$work/Sources/scanbench/main.swift"
(cd "$work" && swift build -c release >/dev/null)
for which in old plain fast; do
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$which" "$work/.build/release/scanbench" "$which" "$logs" "$n" \
    >/dev/null 2>&1
  total=$(callgrind_annotate "$work/cg.$which" 2>/dev/null | awk '/PROGRAM TOTALS/ && !x {print $1; x = 1}')
  reading=$(callgrind_annotate --inclusive=yes "$work/cg.$which" 2>/dev/null | awk '/scanAll/ && !x {print $1; x = 1}')
  echo "$which: $total instructions in all, $reading in the reading function"
done
