# The README's two commands. Each installs what it needs (scripts/setup.sh), builds Release, and runs.
BUILD ?= build
MAKEFLAGS += --no-print-directory
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=
ifdef CI
CMAKE_FLAGS += -DSTRATA_WERROR=ON
endif

.PHONY: all setup build run test test-asan fuzz clean web

all: build

setup:
	@bash scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: every method on the embedded default world, from the default views, into out/.
# The main job: every method on the default world, and the store methods on the shipped Puget Sound DEM as a
# tile store (built once into out/stores/puget-sound; later runs keep its tiles).
run: build
	@$(BUILD)/strata tile data/dem/ps_height_1k.png --units 0.1 --spacing 160 -o out/stores/puget-sound --no-progress >/dev/null
	@$(BUILD)/strata run --out out --dem out/stores/puget-sound

# The page in build-web/ (index.html, strata.js, strata.wasm): the C core and the translated shaders built by
# Debian's emscripten (web/build.py; docs/web.md). Serve the folder (python3 -m http.server) and open it.
web: setup
	@python3 web/build.py --out build-web --jobs $(JOBS)

test: build
	@cd $(BUILD) && STRATA_VALIDATE=1 ctest --output-on-failure -j $(JOBS)

# The unit tests without a GPU, then the CLI tests, under ASan and UBSan. cli_results is left out: its
# interrupted 100000-frame compare did not end within 40 minutes under the sanitizers (12 GB resident when
# stopped), against 103 s for the whole test in the Release build.
test-asan: setup
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && STRATA_VALIDATE=1 ctest --output-on-failure -j $(JOBS) -LE gpu
	@cd build-asan && STRATA_VALIDATE=1 ctest --output-on-failure -j $(JOBS) -L cli -E '^cli_results$$'

clean:
	rm -rf $(BUILD) build-asan build-web out

# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for FUZZ_TIME seconds from the committed
# seeds in fuzz/corpus/<target>/; new inputs go to build-fuzz/corpus/<target>/, crashes to build-fuzz/.
FUZZ_TIME ?= 30
# Inputs are at most 8 KiB, but 256 KiB for the PNG set and 1 MiB for whole worlds, whose seeds are 512x256
# levels: large enough for the size checks against real headers and tables.
FUZZ_TARGETS = vmc vmp vpr pal world_ini dem png_heightmap tile store_meta png_set world control journal
fuzz: setup
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_FUZZ=ON >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target fuzz_all
	@for t in $(FUZZ_TARGETS); do \
	  case $$t in png_set) len=262144;; world) len=1048576;; *) len=8192;; esac; \
	  mkdir -p build-fuzz/corpus/$$t && \
	  (cd build-fuzz && ./fuzz_$$t -max_total_time=$(FUZZ_TIME) -max_len=$$len -print_final_stats=1 \
	     corpus/$$t ../fuzz/corpus/$$t) || exit 1; \
	done
