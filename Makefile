# Thin front door: everything real is in CMake.  `make demo` and `make check`
# work on a fresh Debian 12 machine as root (they install what is missing).
BUILD ?= build
JOBS  ?= $(shell nproc)
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

.PHONY: all deps build demo check bench clean

all: build

deps:
	@sh scripts/install-deps.sh $(DEPS_FLAGS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHYPROF_WERROR=ON

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@sh scripts/demo.sh $(BUILD)

check: DEPS_FLAGS = --browser
check: build
	@rc=0; (cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 900) || rc=$$?; \
	sh scripts/ctest-skips.sh $(BUILD); exit $$rc

bench: build
	@sh bench/run_all.sh $(BUILD)

clean:
	rm -rf $(BUILD)
