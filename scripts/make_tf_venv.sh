#!/usr/bin/env bash
# Build the TensorFlow virtualenv the behaviour tests run legacy and migrated code in.
# usage: scripts/make_tf_venv.sh 1.8|1.10|1.12|1.13|1.15|2   (prints the venv's python path)
# 1.8, 1.15 and 2 run the behaviour tests; the others serve scripts/dump_tf_symbols.py.
# Location: $QMIGRATE_VENV_DIR (default ~/.cache/qmigrate)/venv-tf<version>. Idempotent.
set -euo pipefail
version="${1:-1.8}"
root="${QMIGRATE_VENV_DIR:-$HOME/.cache/qmigrate}"
venv="$root/venv-tf$version"
case "$version" in
  1.8)  python_version=3.6.15; packages=("tensorflow==1.8.0" "numpy<1.17" "protobuf<3.20") ;;
  1.10) python_version=3.6.15; packages=("tensorflow==1.10.1" "numpy<1.15" "protobuf<3.20") ;;
  1.12) python_version=3.6.15; packages=("tensorflow==1.12.3" "numpy<1.17" "protobuf<3.20") ;;
  1.13) python_version=3.6.15; packages=("tensorflow==1.13.2" "numpy<1.17" "protobuf<3.20") ;;
  1.15) python_version=3.7.16; packages=("tensorflow==1.15.5" "numpy<1.19" "protobuf<3.20") ;;
  2)    python_version=3.11; packages=("tensorflow-cpu==2.21.0") ;;  # about 1.6 GB
  *) echo "unknown TensorFlow version $version" >&2; exit 2 ;;
esac
if "$venv/bin/python" -c "import tensorflow" >/dev/null 2>&1; then
  echo "$venv/bin/python"; exit 0
fi
if [ "$version" = 2 ]; then
  base="${QMIGRATE_PYTHON_FOR_TF2:-$(command -v python3)}"  # the Python qmigrate itself runs on
else
  base="${QMIGRATE_PYTHON_FOR_TF:-$HOME/.pyenv/versions/$python_version/bin/python}"
fi
[ -x "$base" ] || { echo "Python $python_version not found (looked for $base)" >&2; exit 3; }
mkdir -p "$root"
# Test workers (pytest -n) may ask for the same venv at once: one builds it, the others wait and use it.
exec 9>"$root/.venv-tf$version.lock"
flock 9
if "$venv/bin/python" -c "import tensorflow" >/dev/null 2>&1; then
  echo "$venv/bin/python"; exit 0
fi
rm -rf "$venv"
"$base" -m venv "$venv"
# The venv's own pip (18.1 on 3.6) fails on termcolor; 'pip<22' is a no-op there, so pin it exactly.
[ "$version" = 2 ] || "$venv/bin/pip" install -q --disable-pip-version-check pip==21.3.1 >&2
"$venv/bin/pip" install -q --disable-pip-version-check "${packages[@]}" >&2
"$venv/bin/python" -c "import tensorflow" >/dev/null 2>&1
echo "$venv/bin/python"
