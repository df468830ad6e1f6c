#!/bin/bash
# The checks that need a GPU machine (none runs in CI, which has no GPU):
# builds envpool there (MuJoCo + classic control; no Atari, whose sdist needs
# the network) and runs, with the GPU as JAX's default device and EGL on the
# GPU's driver:
#   tests/api/test_xla.py                 every jitted program through the CUDA handlers
#   tests/families/mujoco/test_mujoco_render.py  frames vs gymnasium's under EGL (and the rest)
# Run from the repository root on a machine with python3, jax[cuda], cmake,
# ninja, pybind11, pytest, numpy and imageio; the other Python packages come as
# wheels in .whl/ and the GL loader libraries as Debian packages in .gl/
# (both optional when installed). Logs go to $OUT (default /tmp/gpu_check).
set -u
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
if compgen -G ".gl/*.deb" > /dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
EGL_VENDOR=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$EGL_VENDOR" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$EGL_VENDOR
SITE=/tmp/gpu/site-packages  # named so: tests that rebuild a sys.path keep *site-packages entries
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl || exit 1
fi
# envpool from a folder of its own: the tests keep the repository root off sys.path.
mkdir -p /tmp/gpu_pkg && ln -sfn "$PWD/envpool" /tmp/gpu_pkg/envpool
export PYTHONPATH=/tmp/gpu_pkg:$SITE PYTHONUNBUFFERED=1
nvidia-smi -L
python3 -c "import jax, jaxlib, mujoco, gymnasium; print('jax', jax.__version__, jax.devices(), 'mujoco', mujoco.__version__)"
g++ --version | head -1
t0=$(date +%s)
cmake -S . -B /tmp/gpu_build -G Ninja -DCMAKE_BUILD_TYPE=Release -DENVPOOL_ATARI=OFF \
  -DPython_EXECUTABLE="$(command -v python3)" -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" > "$OUT/cmake.txt" 2>&1 \
  || { tail -30 "$OUT/cmake.txt"; exit 1; }
grep "envpool:" "$OUT/cmake.txt"
cmake --build /tmp/gpu_build -j "$(nproc)" > "$OUT/build.txt" 2>&1 || { grep -B2 -A12 "error" "$OUT/build.txt" | head -80; exit 1; }
cp /tmp/gpu_build/_envpool*.so /tmp/gpu_build/cpp/mujoco/envpool_render_server src/envpool/
echo "built in $(( $(date +%s) - t0 )) s"
python3 -c "import envpool, envpool._envpool as e; print('xla', e.has_xla, len(envpool.list_all_envs()), 'ids')"
python3 -m pytest -p no:cacheprovider -q -rs tests/api/test_xla.py --timeout 300 -k "not bench_xla_engine" \
  --junitxml="$OUT/xla.xml" 2>&1 | tail -25
python3 -m pytest -p no:cacheprovider -q -rs tests/families/mujoco/test_mujoco_render.py --timeout 600 \
  --junitxml="$OUT/render.xml" 2>&1 | tail -25
echo "done in $(( $(date +%s) - t0 )) s"
# pixel HalfCheetah (84x84, 8 envs, 2 threads) against gymnasium's SyncVectorEnv, both on EGL
for t in 1 2 4; do
  timeout 100 python3 benchmarks/mujoco_render.py --backend egl --threads $t --rounds 2 --seconds 2 \
    --json "$OUT/render_bench_$t.json" 2>&1 | tail -7
done
echo "all done in $(( $(date +%s) - t0 )) s"
