# The two commands: `make demo` and `make test`. Each installs what it needs first.

# Headers and libraries the codecs build against (pkg-config finds them).
BUILD_PACKAGES := pkg-config libpng-dev libtiff-dev libjpeg-dev liblcms2-dev libwebp-dev libgif-dev libheif-dev
# The schema test checks every graph in Graphs/ with a real JSON Schema validator; the plugin and C API
# tests compile C with cc and build the C example plugin with make; the metadata tests read what
# Tessera writes with exiftool; the random-graph tests lay TIFFs out in strips and tiles with libtiff-tools.
# The Vision plugin's tests fetch its pinned runtime with pip download and unzip (Plugins/Vision/Makefile)
# and build its barcode reader against zxing-cpp (libzxing-dev).
# The Python package's tests use NumPy and read PNG files with Pillow; one installs it into a venv.
# The `tessera serve` page is tested in headless Chromium driven by Selenium (Scripts/serve-browser-test.py).
# The hostile-file tests measure each decode's time and peak memory with /usr/bin/time.
TEST_PACKAGES := $(BUILD_PACKAGES) python3 python3-jsonschema python3-yaml gcc make libimage-exiftool-perl time libtiff-tools \
	python3-pip unzip libzxing-dev python3-numpy python3-pil python3-venv python3-setuptools \
	chromium chromium-driver python3-selenium

SWIFT ?= swift
# Debug builds compile the C (the vector loops and the codec shims) optimized: the tests spend most of
# their time in those loops, and at -O0 they ran 2 to 3 times slower. Every debug build here passes it,
# so that switching between targets never rebuilds.
DEBUG_FLAGS ?= -Xcc -O2
# The showcase graph; its outputs go to out/graphs/.
DEMO_GRAPH := Graphs/spotlight.yaml

.PHONY: demo demo-vision test deps test-deps build lint docs clean libtessera python fuzz asan tsan cluster-test \
	api-check api-list api-docs

# Coverage-guided fuzzing (libFuzzer, AddressSanitizer) of graph files and the decoders: Fuzz/ and
# Scripts/fuzz.sh. `make fuzz` runs each campaign FUZZ_SECONDS; `make test` runs each briefly, so the
# targets keep building and the seeds keep passing.
FUZZ_SECONDS ?= 600
FUZZ_CHECK_SECONDS ?= 10

demo: deps
	$(SWIFT) build -c release --product tessera
	@mkdir -p out/graphs
	@bin=$$($(SWIFT) build -c release --show-bin-path)/tessera; \
	$$bin validate $(DEMO_GRAPH) && \
	$$bin run $(DEMO_GRAPH)

# The Vision plugin's showcase: the passport photo of Apple's face-detection tutorial, on the bundled
# portrait. Plugins/Vision's make fetches its pinned runtime (OpenVINO and MediaPipe's models, about
# 95 MB from PyPI, checked by SHA-256) the first time.
demo-vision: deps
	$(SWIFT) build -c release --product tessera
	$(MAKE) -C Plugins/Vision
	@mkdir -p out/graphs
	@bin=$$($(SWIFT) build -c release --show-bin-path)/tessera; \
	$$bin run Plugins/Vision/passport.yaml --plugin Plugins/Vision/libvision.so

test: test-deps lint
	@start=$$(date +%s); $(SWIFT) build --build-tests $(DEBUG_FLAGS) && \
	echo "test: the build took $$(( $$(date +%s) - start )) s"
	@start=$$(date +%s); $(SWIFT) test --skip-build $(DEBUG_FLAGS) && \
	echo "test: swift test took $$(( $$(date +%s) - start )) s"
	@$(MAKE) --no-print-directory api-check
	@$(MAKE) --no-print-directory cluster-test
	@echo "Fuzzing each target briefly (make fuzz runs them longer):"
	@start=$$(date +%s); FUZZ_QUICK=1 Scripts/fuzz.sh $(FUZZ_CHECK_SECONDS) && \
	echo "test: fuzzing took $$(( $$(date +%s) - start )) s"

# `tessera batch` as a Slurm array job of 3 tasks on a real single-node Slurm (Debian's slurm-wlm and
# munge, started and stopped by Scripts/cluster-test.sh, about 20 s). It needs root; without it (status
# 77) it is skipped, saying why.
cluster-test: test-deps
	$(SWIFT) build $(DEBUG_FLAGS) --product tessera
	@Scripts/cluster-test.sh $$($(SWIFT) build --show-bin-path)/tessera; status=$$?; \
	if [ $$status -eq 77 ]; then echo "cluster-test: skipped"; else exit $$status; fi

deps:
	@Scripts/install-deps.sh $(BUILD_PACKAGES)

test-deps:
	@Scripts/install-deps.sh $(TEST_PACKAGES)

build: deps
	$(SWIFT) build $(DEBUG_FLAGS)

# The committed .swift-format is the style; `swift format format --in-place -r Sources Tests` applies it
# (and to the Swift of Examples/ and Plugins/).
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift Examples/Embedding \
		Plugins/Vignette/Sources Plugins/Vignette/Tests Plugins/Vignette/Package.swift \
		Plugins/Vision/Sources Plugins/Vision/Package.swift Fuzz/Sources Fuzz/Package.swift

# Regenerates what is derived from the node declarations: the schema, the node reference and the
# node list in Docs/Guide.md. A test fails when the committed copies are stale.
docs: build
	@bin=$$($(SWIFT) build --show-bin-path)/tessera; \
	export TESSERA_PLUGIN_PATH=; \
	$$bin schema > tessera.schema.json && \
	$$bin nodes --markdown > Docs/Nodes.md && \
	python3 Scripts/update-guide-nodes.py

# The public Swift API, one line per symbol, in Docs/API/public-symbols.txt (Scripts/api-symbols.py reads
# the built modules): api-check fails while the built API differs from the committed list, so an API
# change is a visible diff; api-list rewrites the list.
api-check:
	$(SWIFT) build $(DEBUG_FLAGS) --target Tessera
	$(SWIFT) build $(DEBUG_FLAGS) --target TesseraPluginSDK
	$(SWIFT) build $(DEBUG_FLAGS) --target TesseraTesting
	python3 Scripts/api-symbols.py --check

api-list:
	$(SWIFT) build $(DEBUG_FLAGS) --target Tessera
	$(SWIFT) build $(DEBUG_FLAGS) --target TesseraPluginSDK
	$(SWIFT) build $(DEBUG_FLAGS) --target TesseraTesting
	python3 Scripts/api-symbols.py > Docs/API/public-symbols.txt

# The embedding API's DocC (Sources/Tessera/Tessera.docc), in .build/plugins/Swift-DocC/outputs/. SwiftPM's
# symbol extraction leaves out the modules `Tessera` re-exports, so the script extracts them and DocC
# reads that graph instead; any warning (an unresolved link) fails.
api-docs:
	$(SWIFT) build $(DEBUG_FLAGS) --target Tessera
	python3 Scripts/api-symbols.py --graphs .build/api-symbol-graphs
	$(SWIFT) package generate-documentation --target Tessera --additional-symbol-graph-dir .build/api-symbol-graphs \
		--warnings-as-errors

# The C API as out/lib/libtessera.so with its header out/include/tessera.h (Examples/Python uses it).
libtessera: deps
	$(SWIFT) build -c release --product TesseraC
	@mkdir -p out/lib out/include
	cp $$($(SWIFT) build -c release --show-bin-path)/libTesseraC.so out/lib/libtessera.so
	cp Sources/CTessera/include/tessera.h out/include/

# The Python package with the library in it: `make python`, then `pip install ./python` (in a venv).
python: libtessera
	cp out/lib/libtessera.so python/tessera/libtessera.so

clean:
	rm -rf .build .build-asan Fuzz/.build out python/tessera/libtessera.so python/build python/*.egg-info

# Node benchmarks: Benchmarks/ is a nested package (ordo-one/benchmark) that runs a 4K graph per node
# through the library, in release mode, with its own .build. One table per metric, every node a row.
# The peers comparison is separate: Scripts/compare-peers.sh.
.PHONY: bench
bench: deps
	cd Benchmarks && $(SWIFT) package benchmark --no-progress --grouping metric

fuzz: test-deps
	Scripts/fuzz.sh $(FUZZ_SECONDS)

# The codec tests (and the C shims under them) with AddressSanitizer, and UndefinedBehaviorSanitizer on
# the C (Swift has no -sanitize=undefined on Linux; its own arithmetic traps), in a build folder of
# their own. Any report fails the run.
asan: test-deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/Scripts/lsan-suppressions.txt $(SWIFT) test --sanitize=address \
		-Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
		-Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined --scratch-path .build-asan --filter TesseraIOTests

# The engine and graph tests (the scheduler, its caches and kept images, the workers) under
# ThreadSanitizer, in a build folder of their own. Any report fails the run.
tsan: test-deps
	@start=$$(date +%s); $(SWIFT) build --build-tests --sanitize=thread $(DEBUG_FLAGS) --scratch-path .build-tsan && \
	echo "tsan: the build took $$(( $$(date +%s) - start )) s"
	@start=$$(date +%s); TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(SWIFT) test --skip-build \
		--sanitize=thread $(DEBUG_FLAGS) --scratch-path .build-tsan --filter TesseraEngineTests && \
	echo "tsan: the tests took $$(( $$(date +%s) - start )) s"
