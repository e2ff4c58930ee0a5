#!/usr/bin/env bash
# Builds the `dossier` that `make install` ships (static release) of one git revision,
# for `make bench-compare` (Benchmarks/compare.py, docs/benchmarks.md), and prints its path.
#
#   bash Benchmarks/build_rev.sh c79845f     # -> Benchmarks/work/bins/<full hash>/dossier
#   bash Benchmarks/build_rev.sh --working-tree   # -> .build-release/release/dossier
#
# A revision is checked out in a temporary `git worktree` under Benchmarks/work/, its
# packages resolved from copies of this checkout's .build/checkouts and .build/repositories
# (no network), built with `swift build -c release --static-swift-stdlib --product dossier`,
# and the binary kept in Benchmarks/work/bins/<commit>/dossier; the worktree is removed
# afterwards. A binary already there is reused (one commit, one binary).
# --working-tree builds the files as they are now, as `make bench` does (.build-release).
# Progress goes to stderr; the one line on stdout is the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
swift=${SWIFT:-swift}
build_flags=(-c release --static-swift-stdlib --product dossier)

if [[ "${1:-}" == "--working-tree" ]]; then
  "$swift" build "${build_flags[@]}" --scratch-path .build-release >&2
  echo "$repo/.build-release/release/dossier"
  exit 0
fi

rev=${1:?usage: build_rev.sh <revision> | --working-tree}
commit=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "build_rev: no commit '$rev'" >&2; exit 1; }
work=$repo/Benchmarks/work     # not $BENCH_WORK: binaries are kept apart from benchmark data
bin=$work/bins/$commit/dossier
if [[ -x "$bin" ]]; then
  echo "build_rev: reusing $bin" >&2
  echo "$bin"
  exit 0
fi

src=$work/src-$commit
cleanup() {
  git worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
  git worktree prune
}
trap cleanup EXIT
cleanup
echo "build_rev: checking out $commit in $src" >&2
git worktree add --detach --quiet "$src" "$commit"
# The package checkouts of this clone, so that resolving needs no network.
mkdir -p "$src/.build-release"
for d in checkouts repositories; do
  [[ -d .build/$d ]] && cp -a ".build/$d" "$src/.build-release/"
done
echo "build_rev: building $commit (swift build ${build_flags[*]})" >&2
(cd "$src" && "$swift" build "${build_flags[@]}" --scratch-path .build-release >&2)
mkdir -p "$(dirname "$bin")"
cp "$src/.build-release/release/dossier" "$bin.partial"
mv "$bin.partial" "$bin"
git -C "$src" log -1 --format='%H %cI %s' > "$(dirname "$bin")/commit.txt"
echo "$bin"
