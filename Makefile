# Bemtevi: `make run` starts the whole product; `make cluster` starts it in cluster mode (PostgreSQL, Kafka, the
# relay, the workers, 2 API processes on one address); `make test` runs every test. All install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY_STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
NODE_STAMP := webapp/node_modules/.installed-$(shell cksum webapp/package-lock.json 2>/dev/null | cut -d' ' -f1)
# Python's bytecode cache, even where the environment turns it off: without it every test worker, server and CLI
# compiles the package and the tests again (pytest's assertion rewriting included), seconds of CPU each.
unexport PYTHONDONTWRITEBYTECODE
WEB_SOURCES := $(shell find webapp/src webapp/public -type f 2>/dev/null) webapp/index.html webapp/package.json \
	webapp/vite.config.ts $(wildcard webapp/tsconfig*.json) webapp/eslint.config.js

.PHONY: run cluster test test-side test-packages test-fast install webapp lint bench chromium wrk postgresql java clean

run: install webapp
	$(BIN)/bemtevi serve

# Cluster mode on this machine (bemtevi/cluster/); Ctrl-C stops everything. BEMTEVI_DATABASE_URL and
# BEMTEVI_KAFKA_BOOTSTRAP point it at existing servers instead of the project's own.
cluster: install webapp postgresql java
	$(BIN)/bemtevi cluster

# The tests start the project's own PostgreSQL cluster and Kafka broker (bemtevi/infra/local_services/) from
# these packages, unless BEMTEVI_TEST_POSTGRES_URL / BEMTEVI_KAFKA_BOOTSTRAP name existing servers.
# `pytest -m "not e2e"` starts at once, on two workers (each test file on one: its module-scoped platforms are
# shared by its tests): those tests mostly wait on PostgreSQL, Kafka and subprocesses (alone, one process used a
# third of a core), so there is room for two of them and for the other side of the run (`test-side`, its output
# after pytest's): the checks (ruff, import contracts, mypy, the generated client, eslint), vitest once the
# client is checked, then the web build and the browser tests (-m e2e, two workers too), which serve
# webapp/dist. The checks and the build run niced: the tests keep the CPU they ask for. vitest and the browser
# tests do not: a niced server and browser beside other busy processes got a few % of a core and missed their
# screens' waits. A failed check fails `make test` all the same.
# --durations=25 prints each run's slowest tests (docs/architecture.md, "Tests and benchmarks").
PYTEST_ARGS := -q --hypothesis-profile=full --durations=25
WORKERS := -n 2 --dist loadfile --no-loadscope-reorder
test: install test-packages
	@side_log=$$(mktemp); \
	$(MAKE) --no-print-directory test-side >$$side_log 2>&1 & side=$$!; \
	$(BIN)/pytest $(PYTEST_ARGS) $(WORKERS) -m "not e2e"; python=$$?; \
	wait $$side; side_status=$$?; \
	echo "--- the checks, vitest, the web build and the browser tests, pytest -m e2e (ran beside pytest)"; \
	cat $$side_log; rm -f $$side_log; test $$python -eq 0 && test $$side_status -eq 0

test-side:
	nice -n 10 $(BIN)/ruff check bemtevi tests bench
	nice -n 10 $(BIN)/lint-imports --no-cache
	nice -n 10 $(BIN)/mypy
	@# The committed RTK Query client must be the one the API's current schema generates (vitest reads it: after).
	cd webapp && nice -n 10 npm run --silent codegen >/dev/null && git diff --exit-code --stat -- src/store/generated \
		|| { echo "webapp/src/store/generated is stale: run 'cd webapp && npm run codegen' and commit it"; exit 1; }
	@web_log=$$(mktemp); { cd webapp && npm test; } >$$web_log 2>&1 & web=$$!; \
	(cd webapp && nice -n 10 npm run lint) && nice -n 10 $(MAKE) --no-print-directory webapp \
		&& $(BIN)/pytest $(PYTEST_ARGS) $(WORKERS) -m e2e; browser=$$?; \
	wait $$web; web_status=$$?; echo "--- vitest (ran beside eslint, the web build and the browser tests)"; \
	cat $$web_log; rm -f $$web_log; test $$browser -eq 0 && test $$web_status -eq 0

# The inner loop: no PostgreSQL, broker, subprocess or browser, hypothesis's `dev` profile (a tenth of the
# examples), one pytest-xdist worker per core and one more (its tests wait at times on their threads and files,
# and the extra worker fills those waits), each test file on one worker (its module-scoped platforms are shared by
# its tests). `make test` runs everything with the full profile, in one process beside the browser's.
test-fast: install
	$(BIN)/pytest -q -n $$(( $$(nproc) + 1 )) --dist loadfile --no-loadscope-reorder \
		-m "not e2e and not postgres and not kafka and not process"

# The Python and the web app's packages install side by side: each mostly waits on downloads and the disk.
install:
	@$(MAKE) --no-print-directory --silent -j2 $(PY_STAMP) $(NODE_STAMP)

$(PY_STAMP): pyproject.toml
	@echo "Installing the Python packages (pyproject.toml)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q -e ".[dev]"
	rm -f $(VENV)/.installed-* && touch $@

$(NODE_STAMP): webapp/package-lock.json
	@echo "Installing the web app's packages (webapp/package-lock.json)"
	cd webapp && npm ci --no-audit --no-fund --loglevel=error
	rm -f webapp/node_modules/.installed-* && touch $@

webapp: webapp/dist/index.html

webapp/dist/index.html: $(NODE_STAMP) $(WEB_SOURCES)
	cd webapp && npm run build

# What `make test` needs of Debian's packages, when the machine has none (as the three targets below check):
# Chromium's headless shell, PostgreSQL's server binaries, Java and Maven, with one package index update for all
# of them.
test-packages:
	@missing=""; \
	command -v chromium-headless-shell >/dev/null 2>&1 || missing="$$missing chromium-headless-shell"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || \
		test -n "$$BEMTEVI_TEST_POSTGRES_URL" || missing="$$missing postgresql"; \
	{ command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; } || \
		test -n "$$BEMTEVI_KAFKA_BOOTSTRAP" || missing="$$missing default-jre-headless maven"; \
	test -z "$$missing" || { \
		echo "Installing$$missing for the tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }

# End-to-end tests drive Debian's Chromium headless shell (the same engine, a quarter less CPU than the
# full browser headless); install it when the machine has none.
chromium:
	@command -v chromium-headless-shell >/dev/null 2>&1 || { \
		echo "Installing Chromium's headless shell for the end-to-end tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; }

# Debian's PostgreSQL server binaries, when the machine has none (the cluster itself is the project's own).
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || \
		test -n "$$BEMTEVI_TEST_POSTGRES_URL" || { \
		echo "Installing PostgreSQL's server binaries for the tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

# Java runs the Kafka broker, whose jars Maven fetches once (ops/kafka/pom.xml).
java:
	@{ command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; } || \
		test -n "$$BEMTEVI_KAFKA_BOOTSTRAP" || { \
		echo "Installing Java and Maven for the Kafka broker"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless maven >/dev/null; }

lint: install
	$(BIN)/ruff check bemtevi tests bench
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	cd webapp && npm run lint

bench: install wrk
	$(BIN)/python bench/event_store.py
	$(BIN)/python bench/lookups.py
	$(BIN)/python bench/credits.py
	$(BIN)/python bench/projector.py

# bench/lookups.py and bench/credits.py drive the server with wrk (Debian's package).
wrk:
	@command -v wrk >/dev/null 2>&1 || { \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

clean:
	rm -rf $(VENV) webapp/node_modules webapp/dist
