# Plain `make` lists what you can run; the scripts in scripts/ do the work.
.PHONY: help build test start train eval eval-generalization reports bench format

help:
	@echo "make build   - native CLI, tests and benchmarks (build/)"
	@echo "make test    - the whole test suite (what CI runs)"
	@echo "make start   - build everything and serve the calculator on :8080"
	@echo "make train   - retrain the kernel predictor (2-4 min, deterministic) into core/data/"
	@echo "make eval    - accuracy tables (kernels and whole models) for the README"
	@echo "make eval-generalization - train without each architecture, evaluate it; error bands (15-20 min)"
	@echo "make reports - after retraining: regenerate the accuracy-gap ceilings and web/public/accuracy.json"
	@echo "make bench   - speed and size benchmarks"
	@echo "make format  - clang-format the C++ sources"

build:
	bash scripts/build_native.sh

test:
	bash scripts/test.sh

start:
	bash scripts/start.sh

train:
	bash scripts/train.sh

eval:
	bash scripts/eval.sh

eval-generalization:
	bash scripts/eval_generalization.sh

reports:
	python3 scripts/accuracy_gaps.py
	bash scripts/accuracy_report.sh

bench:
	bash scripts/bench.sh

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')
