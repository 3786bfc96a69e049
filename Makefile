# Foyer: the front door. `make` (or `make help`) lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

SWIFT ?= swift
CONFIGURATION ?= debug
# Quick benchmark sizes by default; `make bench BENCH_FLAGS=--full` for the long run (under 10 minutes once
# built); BENCH_GRPC=0 skips the gRPC comparison (its separate package takes a while to build the first time).
BENCH_FLAGS ?=
BENCH_GRPC ?= 1
# `make soak` runs the stack under a mix of load at 70% of its measured capacity for SOAK_MINUTES minutes (the memory
# check needs at least 3; SOAK_FLAGS passes more, e.g. --json soak.json or --postgres-url URL).
SOAK_MINUTES ?= 10
SOAK_FLAGS ?=
# `make fuzz` runs every fuzz target for FUZZ_SECONDS each; FUZZ_TARGET=name runs one (`foyer-fuzz list` names them).
# One allocation may not exceed FUZZ_MALLOC_LIMIT_MB (the frame limit is 1 MiB; buffers grow by doubling).
FUZZ_SECONDS ?= 30
FUZZ_TARGET ?=
FUZZ_MALLOC_LIMIT_MB ?= 2
# The HTTP contract checker SchemathesisTests runs, pinned, in a virtual environment of its own (its dependencies
# stay apart from the packages above).
SCHEMATHESIS_VERSION := 4.32.5
SCHEMATHESIS := .build-python/bin/schemathesis
# The second, independent verifier of access tokens in the tests (Tests/http/verifiers.py).
JOSERFC_VERSION := 1.6.5
DEB_PACKAGES := liblz4-dev libssl-dev libargon2-dev libsqlite3-dev postgresql pkg-config chromium openssl curl wrk

.PHONY: help
help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-10s\033[0m %s\n", $$1, $$2}'

.PHONY: deps
deps: ## Install what is missing: liblz4, libssl, libargon2, libsqlite3, PostgreSQL, Chromium, openssl, curl, wrk; Python's cryptography, PyJWT, joserfc, PyYAML, check-jsonschema, aiosmtpd, openapi-spec-validator, argon2-cffi, opentelemetry-proto; schemathesis (pinned, in .build-python)
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6 is required (https://www.swift.org/install)"; exit 1; }
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		sudo=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	fi
	@python3 -c 'import cryptography, jwt, yaml, check_jsonschema, aiosmtpd, openapi_spec_validator, openapi_schema_validator, argon2, opentelemetry.proto.collector.trace.v1.trace_service_pb2' 2>/dev/null \
		|| python3 -m pip install --quiet cryptography pyjwt pyyaml check-jsonschema aiosmtpd openapi-spec-validator argon2-cffi opentelemetry-proto \
		|| { echo "could not install Python's cryptography, PyJWT, PyYAML, check-jsonschema, aiosmtpd, openapi-spec-validator, argon2-cffi and opentelemetry-proto (outside checks the tests use)"; exit 1; }
	@# joserfc, pinned: the second verifier of access tokens beside PyJWT (Tests/http/verifiers.py).
	@python3 -c 'import importlib.metadata as m; assert m.version("joserfc") == "$(JOSERFC_VERSION)"' 2>/dev/null \
		|| python3 -m pip install --quiet 'joserfc==$(JOSERFC_VERSION)' \
		|| { echo "could not install Python's joserfc $(JOSERFC_VERSION) (the second token verifier the tests use)"; exit 1; }
	@$(SCHEMATHESIS) --version 2>/dev/null | grep -qF "$(SCHEMATHESIS_VERSION)" \
		|| { python3 -m venv .build-python && .build-python/bin/pip install --quiet "schemathesis==$(SCHEMATHESIS_VERSION)"; } \
		|| { echo "could not install schemathesis $(SCHEMATHESIS_VERSION) into .build-python (SchemathesisTests runs it)"; exit 1; }

.PHONY: build
build: deps ## Build everything (CONFIGURATION=release for optimised binaries)
	$(SWIFT) build -c $(CONFIGURATION)

.PHONY: test
# Tests run one at a time: on two cores, suites running side by side starve each other's timeouts. The formatting
# check and the OpenAPI document's validation come first: they take seconds, and `make format` fixes what the first
# finds. The whole output is kept in .build/test-output.log and, on failure, what failed is printed again last, where
# a CI log's tail shows it.
test: deps lint fuzz-replay ## Check formatting and the OpenAPI documents, replay the fuzz corpus, then run every test, on SQLite and on a throwaway PostgreSQL
	python3 -m openapi_spec_validator docs/openapi.yaml
	python3 -m openapi_spec_validator docs/admin-openapi.yaml
	@pgdir=$$(mktemp -u /tmp/foyer-test-pg.XXXXXX); \
	url=$$(scripts/throwaway-postgres.sh start $$pgdir) || exit 1; \
	trap "scripts/throwaway-postgres.sh stop $$pgdir >/dev/null 2>&1" EXIT; \
	echo "PostgreSQL for tests at $$url"; \
	mkdir -p .build; \
	FOYER_TEST_POSTGRES_URL=$$url $(SWIFT) test --no-parallel 2>&1 | tee .build/test-output.log; \
	status=$${PIPESTATUS[0]}; \
	if [ $$status -ne 0 ]; then \
		echo "make test: failed (exit $$status); what failed, from .build/test-output.log:"; \
		grep -E '✘ Test|Fatal error|\.swift:[0-9]+:[0-9]+: error:|exited with unexpected signal' .build/test-output.log | tail -40; \
	fi; \
	exit $$status

.PHONY: run
run: deps ## Build in release mode and start the stack on loopback (Ctrl-C stops it)
	$(SWIFT) build -c release
	scripts/run-stack.sh

.PHONY: bench
bench: deps ## Print every benchmark table (RPC vs raw NIO and gRPC, LZ4; end to end, cleanup, memory on SQLite and on a throwaway PostgreSQL); write bench-results.json
	$(SWIFT) build -c release
ifeq ($(BENCH_GRPC),0)
	.build/release/foyer-bench --json bench-results.json $(BENCH_FLAGS)
else
	$(SWIFT) build -c release --package-path Benchmarks --product grpc-echo-bench
	Benchmarks/.build/release/grpc-echo-bench --json .build/grpc-bench.json $(if $(findstring --full,$(BENCH_FLAGS)),--seconds 5,)
	.build/release/foyer-bench --grpc .build/grpc-bench.json --json bench-results.json $(BENCH_FLAGS)
endif

.PHONY: soak
soak: deps ## Soak: the release stack under a mix of load at 70% of capacity for SOAK_MINUTES (10); fails on errors or RSS growth
	$(SWIFT) build -c release
	.build/release/foyer-soak --minutes $(SOAK_MINUTES) $(SOAK_FLAGS)

.PHONY: fuzz
fuzz: deps ## Fuzz every parser (frames, service bodies, PROXY, JWT/JWKS, JSON, LZ4) with libFuzzer, FUZZ_SECONDS (30) per target; FUZZ_TARGET=name for one
	$(SWIFT) build -c debug --product foyer-fuzz --scratch-path .build-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -DFOYER_FUZZING -Xswiftc -use-ld=lld
	.build-fuzz/debug/foyer-fuzz seed fuzz-corpus
	set -e; for target in $(or $(FUZZ_TARGET),$$(.build-fuzz/debug/foyer-fuzz list)); do \
		echo "== fuzz target $$target"; \
		FOYER_FUZZ_TARGET=$$target .build-fuzz/debug/foyer-fuzz fuzz-corpus/$$target \
			-max_total_time=$(FUZZ_SECONDS) -max_len=65536 -malloc_limit_mb=$(FUZZ_MALLOC_LIMIT_MB) \
			-rss_limit_mb=2048 -print_final_stats=1; \
	done

.PHONY: fuzz-replay
# Every fuzz target runs once over each input of the committed corpus (fuzz-corpus/), in a normal debug build: the
# inputs that once found a bug, and the seeds, must never crash a parser again. Seconds; `make fuzz` mutates them.
fuzz-replay: deps ## Replay the committed fuzz corpus through every fuzz target (no libFuzzer needed)
	$(SWIFT) build --product foyer-fuzz
	set -e; for target in $$(.build/debug/foyer-fuzz list); do \
		inputs=$$(find fuzz-corpus/$$target -type f 2>/dev/null | sort); \
		if [ -z "$$inputs" ]; then echo "fuzz-replay: no corpus for $$target"; exit 1; fi; \
		FOYER_FUZZ_TARGET=$$target .build/debug/foyer-fuzz $$inputs; \
	done

.PHONY: lint
lint: ## Check formatting with swift format (configuration in .swift-format)
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Shared Services Tests Tools

.PHONY: format
format: ## Format the sources in place
	$(SWIFT) format format --in-place --recursive --parallel Package.swift Shared Services Tests Tools

.PHONY: clean
clean: ## Remove build products
	rm -rf .build .build-fuzz
