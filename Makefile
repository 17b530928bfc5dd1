# The README's two commands. Each installs what it needs (scripts/setup.sh), builds Release, and runs.
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=
ifdef CI
CMAKE_FLAGS += -DSTRATA_WERROR=ON
endif

.PHONY: all setup build run test test-asan fuzz clean

all: build

setup:
	@bash scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: every method on the embedded default world, from the default views, into out/.
run: build
	@$(BUILD)/strata run --out out

test: build
	@cd $(BUILD) && STRATA_VALIDATE=1 ctest --output-on-failure -j $(JOBS)

test-asan: setup
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && STRATA_VALIDATE=1 ctest --output-on-failure -j $(JOBS) -LE gpu

clean:
	rm -rf $(BUILD) build-asan out
