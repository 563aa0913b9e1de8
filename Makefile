# engramsim: the two commands are `make run` and `make test`. Every target installs missing
# Debian packages first (tools/install-deps.sh is idempotent and quiet when nothing is missing).
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
ENGRAMSIM  := $(BUILD)/bin/engramsim

# ccache keys on the compiler's command line. With the repository root as base folder, ccache
# rewrites absolute paths under it to relative ones, and with NOHASHDIR the -g build (the ASan one)
# does not hash the build folder, so a clone in another folder (CI) reuses what this one compiled.
export CCACHE_BASEDIR   := $(CURDIR)
export CCACHE_NOHASHDIR := 1

FUZZ_BUILD ?= build-fuzz
# 20 targets, 2 at a time: about 10 minutes in all (docs/fuzzing.md).
FUZZ_SECONDS ?= 60

.PHONY: all deps build run test test-fast test-asan bench fuzz clean

all: build

deps:
	@tools/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@tools/run-default.sh $(ENGRAMSIM)

# The whole suite, twice: the normal build, then under AddressSanitizer + UBSan (without the
# benchmark programs, whose smoke runs the normal build already makes).
test: test-fast test-asan

test-fast: build
	ENGRAMSIM_WITH_BROWSER=1 tools/install-deps.sh
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENGRAMSIM_SANITIZE=ON -DENGRAMSIM_CUDA=OFF -DENGRAMSIM_BENCHMARKS=OFF $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE no-sanitizer

bench: build
	@tools/run-benchmarks.sh $(BUILD)

# Every libFuzzer target of tests/fuzz for FUZZ_SECONDS each (clang build in FUZZ_BUILD); summary in
# $(FUZZ_BUILD)/fuzz/summary.txt. Needs clang and libFuzzer (tools/run-fuzz.sh says which package).
fuzz: deps
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) tools/run-fuzz.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
