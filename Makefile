# seqlab: set up, run the demo, test, benchmark.
#   make demo    set up, then a 5-gram, an LSTM and a small GPT play Shannon's game on the KJV Bible
#   make test    set up, then pytest, the C++ tests, and the C++ tests under ASan/UBSan
#   make bench   set up, then the benchmarks against PyTorch, KenLM and gensim
# `make setup` is idempotent: on a machine that has everything it takes a few seconds.

PYTHON ?= python
PIP    := $(PYTHON) -m pip --disable-pip-version-check

# Debian packages: headers for the C++ core, GoogleTest, the demo's data (bible-kjv: the
# King James Bible; wamerican: a word list), ccache and a compiler; Boost, zlib, bz2 and lzma
# to build KenLM's lmplz from its PyPI sdist (tests/ and benchmarks/ compare n-gram models with it);
# graphviz's `dot` renders seqlab.viz.autograd_graph in the notebooks.
APT_PACKAGES := libxtensor-dev libxtensor-blas-dev libxsimd-dev libgtest-dev \
                bible-kjv wamerican ccache build-essential graphviz \
                libboost-program-options-dev libboost-system-dev libboost-thread-dev \
                libboost-test-dev zlib1g-dev libbz2-dev liblzma-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The editable install is redone only when a build input is newer than this stamp, a
# folder under python/ changed (a module was added or removed), or seqlab._core does not
# import. Edits to existing Python files under python/seqlab are used in place.
INSTALL_STAMP := build/py/.seqlab-installed
BUILD_INPUTS  := CMakeLists.txt pyproject.toml requirements-dev.txt cpp

# The C++ test builds skip the Python module (build/py has it).
CMAKE_TEST_FLAGS := -G Ninja -DSEQLAB_BUILD_TESTS=ON -DSEQLAB_BUILD_PYTHON=OFF

.DEFAULT_GOAL := help
.PHONY: help setup system-deps python-deps install demo test pytest cpp-test asan-test bench clean

help:
	@echo "make demo    set up, then a 5-gram, an LSTM and a small GPT play Shannon's game on the KJV Bible"
	@echo "make test    set up, then run pytest, the C++ tests and the sanitizer build"
	@echo "make bench   set up, then benchmark seqlab against PyTorch (matmul, per-op overhead)"
	@echo "make setup   install system packages, Python packages and seqlab (editable)"

setup: system-deps python-deps install

system-deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing Debian packages:$$missing"; \
	    $(SUDO) apt-get update && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $(APT_PACKAGES); \
	else \
	    echo "Debian packages: all installed"; \
	fi

python-deps:
	$(PIP) install --root-user-action=ignore -q -r requirements-dev.txt

install:
	@if [ -f $(INSTALL_STAMP) ] \
	    && [ -z "$$(find $(BUILD_INPUTS) -newer $(INSTALL_STAMP) 2>/dev/null | head -n 1)" ] \
	    && [ -z "$$(find python -type d -newer $(INSTALL_STAMP) 2>/dev/null | head -n 1)" ] \
	    && $(PYTHON) -c "import seqlab._core" 2>/dev/null; then \
	    echo "seqlab: editable install is up to date"; \
	else \
	    echo "seqlab: building and installing (editable, build dir build/py)"; \
	    $(PIP) install --root-user-action=ignore --no-build-isolation -e . -Cbuild-dir=build/py \
	    && touch $(INSTALL_STAMP); \
	fi

demo: setup
	$(PYTHON) -m seqlab.demo

test: setup
	$(MAKE) --no-print-directory pytest cpp-test asan-test

pytest:
	$(PYTHON) -m pytest tests -v

cpp-test:
	cmake -S . -B build/cpp $(CMAKE_TEST_FLAGS) -DCMAKE_BUILD_TYPE=Release
	cmake --build build/cpp
	ctest --test-dir build/cpp --output-on-failure

# SEQLAB_SANITIZE adds -fsanitize=address,undefined -fno-sanitize-recover=all.
asan-test:
	cmake -S . -B build/asan $(CMAKE_TEST_FLAGS) -DSEQLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build build/asan
	UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/asan --output-on-failure

bench: setup
	$(PYTHON) benchmarks/matmul.py
	$(PYTHON) benchmarks/overhead.py
	$(PYTHON) benchmarks/elementwise.py
	$(PYTHON) benchmarks/ngram.py
	$(PYTHON) benchmarks/word2vec.py
	$(PYTHON) benchmarks/recurrent.py
	$(PYTHON) benchmarks/transformer.py
	$(PYTHON) benchmarks/hub.py

clean:
	rm -rf build
