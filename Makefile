# Thin front end over CMake: the README's two commands and a few helpers.
BUILD  ?= build
PREFIX ?= /usr/local
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build demo check install clean gen gen-tools-doc

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/mpiexec -n 4 $(BUILD)/examples/hello

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

PEERS ?= $(or $(UZURA_PEERS_DIR),$(HOME)/.cache/uzura/peers)

# Regenerate the generated sources (needs pympistandard: tools/peers/install.sh tools).
gen:
	tools/peers/install.sh tools
	$(PEERS)/tools/bin/python tools/gen/gen_c_bindings.py
	$(PEERS)/tools/bin/python tools/gen/gen_fortran.py

# docs/tools-interface.md, from what the built uzura_info reads through MPI_T.
gen-tools-doc: build
	python3 tools/gen/gen_tools_doc.py $(BUILD)/bin/uzura_info

clean:
	rm -rf $(BUILD)
