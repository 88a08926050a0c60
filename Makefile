# Agent Loop by Hand — task runner. Everything runs inside .venv, made on first use.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-stamp
# Open a browser only where there is a screen; otherwise print the URL and token.
LAB_FLAGS ?= $(if $(or $(DISPLAY),$(filter Darwin,$(shell uname -s))),,--no-browser)

.PHONY: venv lab lab-instructor test test-mutants test-hub test-latest test-real quick lint bench release grade check clean bytecode

# requirements.lock pins every version (CONTRIBUTING.md); pyproject.toml's ranges stay the source.
# A fresh install took 3 min 43 s (942 MB, a loaded 2-core machine, 2026-12-06; a learner saw 2).
# make test-latest installs without the lock: LOCK (from its command line only, never the
# environment) is what pip is given in its place.
LOCK    := -c requirements.lock
$(STAMP): pyproject.toml requirements.lock
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found " + sys.version.split()[0] + "); set PY=/path/to/python3.11")'
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@echo "Installing the workbook and its tools into $(VENV), about 1 GB (the first run takes a few minutes)..."
	@$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	@$(BIN)/python -m pip install -q --disable-pip-version-check $(LOCK) -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# The learner's language (docs/TRANSLATING.md): `make lab LANG=ru` opens the Russian edition,
# chapters/ru/, and so does a Russian locale (LANG=ru_RU.UTF-8, or LC_ALL, LC_MESSAGES) or
# AGENT_LOOP_LANG=ru; any other locale (en_US.UTF-8, C.UTF-8), or a language with no released
# edition, opens chapters/ as before. A LANG typed on make's command line wins over the locale; a
# bare code (ru) is no locale, so the lab itself then runs with LANG=C.UTF-8.
LAB_LOCALE = $(if $(filter command line,$(origin LANG)),$(LANG),$(or $(AGENT_LOOP_LANG),$(LC_ALL),$(LC_MESSAGES),$(LANG)))
LAB_LANG   = $(firstword $(subst _, ,$(subst ., ,$(subst @, ,$(subst -, ,$(LAB_LOCALE))))))
EDITION    = $(if $(filter-out en C POSIX,$(LAB_LANG)),$(if $(wildcard chapters/$(LAB_LANG)/*/),$(LAB_LANG)))
LAB_ENV    = $(if $(EDITION),AGENT_LOOP_LANG=$(EDITION) $(if $(findstring _,$(LANG))$(findstring .,$(LANG)),,LANG=C.UTF-8 ))

# The student's lab: lab/student/ hides nbgrader's instructor tools and keeps Validate (lab/README.md).
lab: venv
	$(LAB_ENV)JUPYTER_CONFIG_PATH="$(CURDIR)/lab/student$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	$(BIN)/jupyter lab --notebook-dir=chapters$(if $(EDITION),/$(EDITION)) --ip=127.0.0.1 --allow-root $(LAB_FLAGS)

# Every nbgrader tool (Formgrader, Create Assignment, the Nbgrader menu), rooted at the repository
# so the Formgrader finds the course (lab/instructor/; WORKSPACE=dir shows that graded workspace);
# PATH has the venv's `alembic`, which nbgrader runs to make a new gradebook.
lab-instructor: venv
	PATH="$(CURDIR)/$(BIN):$$PATH" AUTOGRADER_WORKSPACE="$(WORKSPACE)" JUPYTER_CONFIG_PATH="$(CURDIR)/lab/instructor$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	$(BIN)/jupyter lab --notebook-dir=. --ip=127.0.0.1 --allow-root $(LAB_FLAGS)

# CI's command runs the linter first (issue 26): a lint finding fails `make test`.
test: lint
# Every test and gate (README, CI), spread over the cores by pytest-xdist: the gates share one
# worker (they read one graded batch, which runs its own GATES_WORKERS processes: one each, there).
XDIST   ?= -n auto --dist loadgroup
# Bytecode is compiled once, here, and kept (a shell that sets PYTHONDONTWRITEBYTECODE would
# otherwise make every kernel, judge and test process compile the workbook and rewrite the tests
# again): the judge and the kernels run with it set and read what this wrote.
BYTECODE = PYTHONDONTWRITEBYTECODE=
# Of the mutants, make test grades each exercise's first (every exercise's gates still run: full
# marks, zero, a mutant caught by a hidden and a visible test), and of the red team's attacks each
# chapter's first (tests/attacks.py); make test-mutants grades the others.
# With GATES_ONLY (authoring a chapter) it grades all of that chapter's.
GATES_MUTANTS ?= $(if $(GATES_ONLY),all,first)
test: venv bytecode
	$(BYTECODE) GATES_MUTANTS=$(GATES_MUTANTS) $(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# Every other mutant (about 550 of 660), each caught by its exercise's hidden and visible tests and
# by no other exercise's, every other attack (9 of 28), each earning nothing, and every hostile case
# graded on a cluster worker; .ci/run runs this after make test, so no CI run leaves one out. Then
# the lab: every solution and first mutant run as a learner's kernel runs it (`check`), each
# visible test's verdict the graded one (tests/test_gates_lab.py; the batch make test cached).
test-mutants: venv bytecode
	$(BYTECODE) GATES_MUTANTS=rest $(BIN)/python -m pytest $(PYTEST_ARGS) \
		tests/test_gates_grading.py::test_mutant_loses_points_on_its_exercise_only \
		tests/test_gates_visible.py::test_mutant_fails_a_visible_test_of_its_exercise \
		tests/test_boundary_attacks.py::test_an_attack_on_the_boundary_earns_nothing \
		tests/test_cluster.py::test_every_hostile_case_scores_on_a_worker_what_it_scores_locally
	$(BYTECODE) GATES_MUTANTS=first GATES_LAB=1 $(BIN)/python -m pytest $(PYTEST_ARGS) tests/test_gates_lab.py

bytecode: venv
	@$(BIN)/python -m compileall -q autograder workbook bench  # one process: a pool of -j 0 cost 1.8 s, 0.3 s this way
	@$(BIN)/python -m compileall -q -l tests  # top level only: never a chapter's source under tests/pilot

# The newest versions pyproject.toml's ranges admit, not the lock's, in a venv of their own
# (.venv-latest, upgraded each run), then make test there but the browser tests: does the course
# still work with what a `pip install` without the lock gets? Run it before moving
# requirements.lock, and when a package the course takes a range of (openai, anthropic,
# openai-agents, pydantic-ai, mcp, nbgrader, jupyterlab) releases; a range whose newest version
# fails is narrowed in pyproject.toml until the course follows (CONTRIBUTING.md).
LATEST_ARGS ?= -m "not browser"
test-latest:
	rm -f .venv-latest/.installed-stamp
	$(MAKE) test VENV=.venv-latest LOCK="--upgrade --upgrade-strategy eager" PYTEST_ARGS='$(LATEST_ARGS)'
	@.venv-latest/bin/python -m pip freeze --exclude-editable | grep -vxFf requirements.lock | sed 's/^/newer than the lock: /' || true

# The hub rehearsal (tests/browser/test_hub.py, docs/HUB.md): a hostile class on a real JupyterHub,
# with throw-away Unix accounts, so root, `.[hub]` and configurable-http-proxy (.ci/run installs
# them, and runs this after `make test`); about 190 s and 170 s of CPU on 2 cores.
test-hub: venv bytecode
	$(BYTECODE) HUB_REHEARSAL=1 $(BIN)/python -m pytest tests/browser/test_hub.py $(PYTEST_ARGS)

# A maintainer's inner loop (< 2 minutes): the library tests that start no process (the others are
# listed in tests/process_tests.txt; a test that starts one unlisted fails here, saying so; those
# marked `costly`, a fuzz and a 25 MB output, are left to make test for their time), and the
# fast-runner gates and static gates of the chapters changed since QUICK_BASE (solutions/,
# chapters/, mutants; uncommitted too).
QUICK_BASE ?= HEAD
TOUCHED = $(shell { git diff --name-only $(QUICK_BASE) --; git ls-files -o --exclude-standard; } 2>/dev/null \
	| sed -nE 's#^(tests/pilot/)?(solutions|chapters|autograder/mutants)/([0-9][0-9]_[^/]+)/.*#\3#p' | sort -u | paste -sd, -)
quick: venv bytecode
	$(BYTECODE) QUICK_TIER=1 GATES_PIPELINE=0 GATES_ONLY=$(or $(TOUCHED),none) $(BIN)/python -m pytest $(XDIST) \
		-m "((not slow and not browser) or fastgate) and not process and not costly" $(PYTEST_ARGS)

# The third tier (before a release, or after a change to the judge or the link; ~25 minutes on 2
# cores): every solution, stub and mutant through the sandboxed pipeline as well as the fast runner,
# and each compared (tests/test_gates_grading.py). It found the last place where the two differed:
# a test that changed its own copy of a result, which never reaches the kernel. It also grades the
# rebound variants of every chapter (tests/test_gates_rebound.py; make test: chapters 08 and 18).
test-real: venv bytecode
	$(BYTECODE) GATES_REAL=all $(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# Dead code (issue 47): vulture over the code and everything that uses it (tests, chapters, the hub
# and lab configs); what it cannot see used is listed, with the reason, in vulture_whitelist.py.
VULTURE = $(BIN)/vulture autograder workbook bench tests solutions hub lab vulture_whitelist.py \
	--exclude autograder/mutants,autograder/sample_cohort,autograder/work --ignore-names 'test_*,pytest_*,pytestmark'
lint: venv
	$(BIN)/ruff check .
	$(VULTURE)

bench: venv
	$(BIN)/python -m bench

# `make release CHAPTER=21_responses_api` releases one chapter (authors working side by side).
release: venv
	$(BIN)/python -m autograder release $(if $(CHAPTER),--chapter $(CHAPTER))

grade: venv
	$(BIN)/python -m autograder demo

# The verdict is the last line printed: a failing recipe would add make's own "*** Error 1" after
# it, so a failed test (exit 1) makes `make check` exit non-zero only where a script asks (CI or
# STRICT set). Anything else, a wrong path above all (exit 2, with "did you mean ..."), fails.
check: venv
	@test -n "$(NB)" || { echo 'usage: make check NB=chapters/01_one_step/01_one_step.ipynb'; exit 2; }
	@$(BIN)/python -m autograder check "$(NB)" || { code=$$?; test $$code -eq 1 && test -z "$(CI)$(STRICT)" || exit $$code; }

clean:
	rm -rf autograder/submitted autograder/autograded autograder/feedback autograder/work autograder/gradebook.db autograder/grades.csv
