# The two commands: `make demo` and `make test`. Each installs what it needs first.

# Headers and libraries the codecs build against (pkg-config finds them).
BUILD_PACKAGES := pkg-config libpng-dev libtiff-dev libjpeg-dev
TEST_PACKAGES := $(BUILD_PACKAGES)

SWIFT ?= swift
DEMO_OUT := out/demo

.PHONY: demo test deps test-deps build lint clean

demo: deps
	$(SWIFT) build -c release --product tessera
	@mkdir -p $(DEMO_OUT)
	@bin=$$($(SWIFT) build -c release --show-bin-path)/tessera; \
	$$bin info Examples/images/astronaut.png && \
	$$bin convert Examples/images/astronaut.png $(DEMO_OUT)/astronaut-16bit.tif --depth 16 --tile 256 --compression deflate && \
	$$bin convert $(DEMO_OUT)/astronaut-16bit.tif $(DEMO_OUT)/astronaut.jpg --quality 90 && \
	echo && echo "Wrote $(DEMO_OUT)/astronaut-16bit.tif (16-bit tiled TIFF) and $(DEMO_OUT)/astronaut.jpg"

test: test-deps lint
	$(SWIFT) test

deps:
	@Scripts/install-deps.sh $(BUILD_PACKAGES)

test-deps:
	@Scripts/install-deps.sh $(TEST_PACKAGES)

build: deps
	$(SWIFT) build

# The committed .swift-format is the style; `swift format format --in-place -r Sources Tests` applies it.
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build out
