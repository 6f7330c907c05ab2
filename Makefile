# SyncLab — two commands: `make run` (the main job on the default scenario) and `make test`.
SWIFT ?= swift
SYNCLAB := .build/release/synclab
DEFAULT_SCENARIO := Scenarios/v115-pausing.json
# Scenarios whose reports are committed under Reports/ and checked by CI, in the gallery's
# story order; Reports/README.md indexes them (notes from docs/gallery.md).
REPORTED := original-plan v115-idealised v115-pausing v115-uptime fix-subsecond-timestamp fix-rtt-half fix-aligned-ticks \
            fix-continuous-clock recommended multistore-80 outage-fixed-retry outage-backoff leap-second-step leap-second-smear
# The gallery's search (docs/search.md): the cheapest design meeting the recommended design's
# budgets, written to Reports/search/. Exit 1 (no design meets) still writes the report.
SEARCH := Scenarios/search/gallery.json
INDEX = $(SYNCLAB) index $(addprefix $(1)/,$(REPORTED)) --title "SyncLab gallery" --notes docs/gallery.md --out $(1)/README.md

# One optimised build serves the tests, `run`, the reports and CI: the lab's code in release
# (simulation-heavy tests run many times faster than in debug), with testability so the tests'
# `@testable import` works. `build` and `test` pass the same flags, so neither rebuilds what the
# other built; the tests run with --skip-build because `swift test` adds flags of its own.
BUILD_FLAGS := -c release -Xswiftc -enable-testing

.PHONY: all build run test tsan reports check-reports schema quantile-tables bench docs api-check api-baseline fuzz fuzz-smoke fuzz-replay clean

all: build

build:
	$(SWIFT) build $(BUILD_FLAGS) --product synclab

# Simulate the default scenario (v1.1.5 as shipped) and write Reports/v115-pausing/.
run: build
	$(SYNCLAB) run $(DEFAULT_SCENARIO)

# Every test: unit, model, end-to-end and command-line (docs/ci.md: what it costs). Some of
# them: make test TEST_ARGS="--filter ProgressAndHelpTests".
test:
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	$(SWIFT) test $(BUILD_FLAGS) --skip-build $(TEST_ARGS)

# Regenerate every committed report.
reports: build
	@for s in $(REPORTED); do $(SYNCLAB) run Scenarios/$$s.json --out Reports/$$s > /dev/null || exit 1; done
	@$(call INDEX,Reports) > /dev/null
	@$(SYNCLAB) search $(SEARCH) --out Reports/search --quiet > /dev/null; test $$? -le 1
	@echo "reports regenerated: $(REPORTED), Reports/README.md and Reports/search"

# Reports whose runs use one thread whatever --threads says (the original plan's players share
# its database, so its population is one shard): check-reports runs them beside the others.
ONE_SHARD := original-plan

# Fail if a committed report differs from what the code produces now. The search's files name
# no folder (best.json stands alone), so it is checked in a temporary folder like the runs.
check-reports: build
	@tmp=$$(mktemp -d); status=0; \
	for s in $(ONE_SHARD); do \
	  ( $(SYNCLAB) run Scenarios/$$s.json --out $$tmp/$$s > /dev/null 2>&1; echo $$? > $$tmp/$$s.status ) & \
	done; \
	for s in $(filter-out $(ONE_SHARD),$(REPORTED)) wait $(ONE_SHARD); do \
	  if [ $$s = wait ]; then wait; continue; fi; \
	  if [ -f $$tmp/$$s.status ]; then [ "$$(cat $$tmp/$$s.status)" = 0 ] || { echo "run failed: $$s"; status=1; continue; }; \
	  else $(SYNCLAB) run Scenarios/$$s.json --out $$tmp/$$s > /dev/null 2>&1 || { echo "run failed: $$s"; status=1; continue; }; fi; \
	  rm -f $$tmp/$$s/.synclab-report; \
	  diff -r -x .synclab-report Reports/$$s $$tmp/$$s > /dev/null || { echo "Reports/$$s is out of date: run 'make reports'"; status=1; }; \
	done; \
	$(call INDEX,$$tmp) > /dev/null && diff Reports/README.md $$tmp/README.md > /dev/null \
	  || { echo "Reports/README.md is out of date: run 'make reports'"; status=1; }; \
	rm -rf $$tmp; \
	tmp=$$(mktemp -d .search-check.XXXXXX); \
	$(SYNCLAB) search $(SEARCH) --out $$tmp/search --quiet > /dev/null 2>&1; \
	if [ $$? -gt 1 ]; then echo "search failed: $(SEARCH)"; status=1; \
	else rm -f $$tmp/search/.synclab-report; diff -r -x .synclab-report Reports/search $$tmp/search > /dev/null \
	  || { echo "Reports/search is out of date: run 'make reports'"; status=1; }; fi; \
	rm -rf $$tmp; \
	if [ $$status -eq 0 ]; then echo "reports up to date: $(REPORTED) and search"; fi; exit $$status

# Regenerate Scenarios/scenario.schema.json and the app-team example's schema from the plug-in
# registries (a test fails when either is stale).
schema: build
	$(SYNCLAB) schema --out Scenarios/scenario.schema.json
	SYNCLAB_RECORD=1 $(SWIFT) test --package-path examples/app-team --filter AppSchemaTests

# Rewrite the correlated link presets' quantile tables, shipped as resources
# (Sources/SyncLab/Resources/QuantileTables, docs/links.md): after a preset's delay law changes
# (a test fails while a shipped table no longer matches a build).
quantile-tables:
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	SYNCLAB_WRITE_QUANTILE_TABLES=$(CURDIR)/Sources/SyncLab/Resources/QuantileTables \
	  $(SWIFT) test $(BUILD_FLAGS) --skip-build --filter ShippedQuantileTablesTests

# The suites whose shards run on threads of their own and meet at the fleet, under
# ThreadSanitizer, in a build folder of their own (docs/ci.md#threadsanitizer). A data race or a
# wait past its bound fails; the suites use small populations, so this takes minutes, not hours.
TSAN_FLAGS := -c release -Xswiftc -enable-testing -Xswiftc -DSYNCLAB_NO_PREFETCH --sanitize=thread --scratch-path .build-tsan
TSAN_SUITES := FleetCoordinatorTests|ShardLivenessTests|ShardingTests|ClientDesignShardingTests|ConcurrentMapTests
tsan:
	$(SWIFT) build $(TSAN_FLAGS) --build-tests
	TSAN_OPTIONS="halt_on_error=1" $(SWIFT) test $(TSAN_FLAGS) \
	  --skip-build --filter '$(TSAN_SUITES)'

# Benchmarks (not part of `test`): fixed workloads, median of 3, appended to bench/results.csv.
bench: build
	Scripts/bench.sh

# The fuzz targets (Fuzz/, docs/fuzzing.md): each reader of input and what it feeds, under
# libFuzzer, for FUZZ_SECONDS each (60). `fuzz-smoke` is CI's short budget, two targets at a
# time, from a fixed seed (the same inputs every time, as far as 15 s reach); `fuzz-replay`
# runs each saved finding once. Exit 1 when a target finds something.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) Scripts/fuzz.sh
fuzz-smoke:
	FUZZ_SECONDS=15 FUZZ_JOBS=2 FUZZ_ARGS=-seed=1 Scripts/fuzz.sh
fuzz-replay:
	Scripts/fuzz.sh --replay

# The library's reference (Sources/SyncLab/SyncLab.docc, docs/library.md links it) as a DocC
# archive in .build/docs: the toolchain's symbol-graph extractor and docc, no package plug-in.
# Open .build/docs/SyncLab.doccarchive in Xcode, or serve it: `docc preview` needs the catalog too.
SYMBOL_GRAPHS := .build/symbol-graphs
TRIPLE = $(shell $(SWIFT) -print-target-info | sed -n 's/.*"triple": "\(.*\)",/\1/p' | head -1)
docs: build
	rm -rf $(SYMBOL_GRAPHS) .build/docs && mkdir -p $(SYMBOL_GRAPHS) .build/docs
	swift-symbolgraph-extract -module-name SyncLab -I $$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/Modules \
	  -target $(TRIPLE) -minimum-access-level public -output-dir $(SYMBOL_GRAPHS)
	docc convert Sources/SyncLab/SyncLab.docc --additional-symbol-graph-dir $(SYMBOL_GRAPHS) \
	  --fallback-display-name SyncLab --fallback-bundle-identifier org.synclab.SyncLab \
	  --output-path .build/docs/SyncLab.doccarchive --warnings-as-errors
	@echo "wrote .build/docs/SyncLab.doccarchive"

# The public API against the committed baseline (.ci/api; docs/library.md#versions-and-the-api-check),
# and re-recording it after an intended change.
api-check: build
	Scripts/api-check.sh
api-baseline: build
	Scripts/api-check.sh --record

clean:
	rm -rf .build
