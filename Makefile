# Plain `make` lists what you can run; the scripts in scripts/ do the work.
.PHONY: help build test fuzz fuzz-smoke start train train-fp16 train-amd eval eval-generalization reports serving-checks gemm-checks bench format check-format device-session

help:
	@echo "make build   - native CLI, tests and benchmarks (build/)"
	@echo "make test    - the whole test suite (what CI runs)"
	@echo "make start   - build the CLI, WASM and site (not the tests) and serve the calculator on :8080"
	@echo "make train   - retrain the NVIDIA FP32 kernel models (train --model nvidia-fp32, 2-4 min, deterministic; core/data/models/README.md)"
	@echo "make train-fp16 - retrain the FP16/BF16 kernel models on the vidur data into core/data/models/"
	@echo "make train-amd - retrain the AMD (MI100/MI210) FP32 kernel models into core/data/models/ (~2 min)"
	@echo "make eval    - accuracy tables (kernels and whole models) (docs/accuracy.md)"
	@echo "make eval-generalization - leave-one-architecture-out protocol and error bands (10-20 min), FP16 A100<->A40, AMD MI100<->MI210 (docs/*.json; then make reports)"
	@echo "make reports - after retraining: regenerate the accuracy-gap ceilings and web/public/accuracy.json"
	@echo "make serving-checks - tilecast serve beside published serving measurements (docs/serving-checks.md)"
	@echo "make gemm-checks - kernel forecasts beside published GEMM timings; each transfer's measured time multiple"
	@echo "make bench   - speed and size benchmarks"
	@echo "make fuzz-smoke - the harnesses on their corpus plus 20 s each with sanitizers (~3 min; part of make test)"
	@echo "make fuzz    - libFuzzer harnesses with ASan + UBSan, 30 min each (FUZZ_SECONDS=N to change; docs/fuzzing.md)"
	@echo "make device-session OUT=DIR - on a GPU machine: the prepared profiled measurements (docs/measure.md, ~7 min)"
	@echo "make format  - format the C++ (clang-format) and the calculator's TypeScript (prettier)"
	@echo "make check-format - fail on formatting drift or TypeScript type errors (make test runs it first)"
	@echo "Diagnoses and trials behind figures in docs/: scripts/experiments/ (README there)"

build:
	bash scripts/build_native.sh

test:
	bash scripts/test.sh

start:
	bash scripts/start.sh

train:
	bash scripts/train.sh

train-fp16:
	bash scripts/train_fp16.sh

train-amd:
	bash scripts/train_amd.sh

eval:
	bash scripts/eval.sh

eval-generalization:
	bash scripts/eval_generalization.sh
	TILECAST_JSON_OUT=docs/fp16-cross-gpu.json bash scripts/eval_fp16_cross_gpu.sh
	TILECAST_JSON_OUT=docs/amd-cross-gpu.json bash scripts/eval_amd_cross_gpu.sh

reports:
	python3 scripts/accuracy_gaps.py
	bash scripts/accuracy_report.sh

serving-checks:
	bash scripts/serving_checks.sh

gemm-checks:
	bash scripts/gemm_checks.sh

bench:
	bash scripts/bench.sh

FUZZ_SECONDS ?= 1800
fuzz-smoke:
	bash scripts/fuzz.sh --smoke

fuzz:
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

device-session:
	@test -n "$(OUT)" || { echo "usage: make device-session OUT=DIR"; exit 2; }
	bash scripts/measure/device_session.sh "$(OUT)"

format:
	bash scripts/format.sh

check-format:
	bash scripts/check_format.sh
