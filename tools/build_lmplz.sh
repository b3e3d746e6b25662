#!/usr/bin/env bash
# Builds KenLM's lmplz and build_binary from the source that the kenlm package on PyPI ships
# (the same version as the installed kenlm Python module), once: later calls print the cached
# bin directory. Used by tests/test_ngram_kenlm.py and benchmarks/ngram.py; the Debian build
# dependencies (Boost, zlib, bz2, lzma) are in the Makefile's APT_PACKAGES. Notes: docs/kenlm-lmplz.md.
#   usage: tools/build_lmplz.sh [DIR]   (default build/kenlm); prints DIR/<version>/bin
set -euo pipefail
PYTHON=${PYTHON:-python}
DIR=$(realpath -m "${1:-build/kenlm}")
VERSION=$("$PYTHON" -c "import importlib.metadata as m; print(m.version('kenlm'))")
OUT="$DIR/$VERSION"
if [ -x "$OUT/bin/lmplz" ] && [ -x "$OUT/bin/build_binary" ]; then
    echo "$OUT/bin"
    exit 0
fi
mkdir -p "$DIR"
WORK=$(mktemp -d "$DIR/.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
{
    # --no-binary kenlm (not :all:): only kenlm itself must come as source.
    "$PYTHON" -m pip download --disable-pip-version-check --no-deps --no-binary kenlm "kenlm==$VERSION" -d "$WORK/sdist"
    tar xzf "$WORK"/sdist/kenlm-*.tar.gz -C "$WORK"
    SRC=$(find "$WORK" -maxdepth 1 -type d -name 'kenlm-*' | head -n 1)
    cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$WORK/build" --target lmplz build_binary -j 2
    mkdir -p "$OUT/bin.tmp"
    cp "$WORK/build/bin/lmplz" "$WORK/build/bin/build_binary" "$OUT/bin.tmp/"
    rm -rf "$OUT/bin"
    mv "$OUT/bin.tmp" "$OUT/bin"
} >"$DIR/build.log" 2>&1 || { echo "building lmplz failed; see $DIR/build.log" >&2; tail -n 30 "$DIR/build.log" >&2; exit 1; }
echo "$OUT/bin"
