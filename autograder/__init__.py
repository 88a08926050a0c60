"""The instructor's autograder: release chapters, collect, grade in parallel, feedback, export.

Run `python -m autograder --help` (`__main__`). The modules:

    course          where a course keeps its chapters, solutions, mutants and workspace
    settings        the nbgrader configuration: folders, time and output limits, preprocessors
    nbgrader_config for plain `nbgrader ...` commands run from this folder
    nbgrader_run    one nbgrader converter in-process, its log captured, errors readable
    notebooks       read, build and normalise notebooks reproducibly (`nbmeta(cell)`)
    includes        `#@include NN_chapter name` in a chapter's source: given code from the chapter that writes it
    release         `release`: solution notebooks from their .py sources, then chapters/
    reading         each released chapter's last cell: its reading list from docs/READING.md
    collect         `collect`: submissions from a folder or an LMS zip into submitted/
    exchange        `collect --exchange`, `release-feedback`: nbgrader's exchange (a JupyterHub's)
    safe_files      reading what students hand in: regular files only, no link followed, zips checked
    lms_names       what the names in an LMS's submissions zip say: student, chapter, the LMS's ids
    collected       what `collect` saw (work/collected.json): a row, and its reason, for everyone
    cohort          `grade`: a cohort in N parallel workers, sharded by student
    grading         one student's submissions, graded inside one worker process
    cluster         `grade --cluster`: one Dask task per submission, the client writes the course
    cluster_task    one such task: packed by the client, graded in a private course on a worker
    progress_line   the line printed per graded submission (bar, ETA, scores), for both
    gradebook       the master gradebook, a private copy per worker, a submission's rows
    execute         nbgrader's Execute, hardened: sandboxed kernel, CPU-time limits, test cells judged
    judge           the judge: test cells run outside the sandbox, calling the kernel over a socket
    caps            bounds on every byte read back from a kernel: per field, per cell, per notebook
    sandbox         the OS sandbox (bubblewrap) around each submission's kernel
    cgroups         a sandbox's CPU share and process cap (a cgroup where the machine allows one)
    kernel_limits   inside the grading kernel, before its first cell: memory limit, read protection
    scoring         test cells scored by the grader's own rule (the judge's verdict), not nbgrader's
    results         one result per student x chapter: scores, status, what happened
    feedback        `feedback`: one HTML page per student and chapter
    feedback_filter what feedback may show: the failure and its message, never hidden tests
    export          `export` (grades.csv) and `report` (a table per chapter and exercise)
    lms_export      `export --lms canvas|moodle`: files the LMSs' grade imports read
    nbgrader_buttons  the Formgrader's Collect and Autograde, and plain `nbgrader autograde`: the course's
    check           `check NB`: a student's own run, saying which test cells fail and why
    demo            `demo` (`make grade`): the whole pipeline on the sample cohort
    sample          the sample cohort under autograder/sample_cohort/, made from the chapters
    variants        submissions made from a chapter: solved, stub, partial, mutants
    mutant_diff     `mutant-diff`: a mutant's patch from an edited copy of its answer cell
    i18n            translated chapters (i18n/<lang>/): the blocks, their hashes, what is missing or stale
    i18n_release    `release` of the translated editions, chapters/<lang>/, code cells the English ones
    i18n_messages   the message templates of test cells, test helpers and tools, read by ast
    i18n_status     `i18n status|skeleton|messages`: what a language lacks, skeletons to translate
    i18n_feedback   the feedback page of a translated notebook in its language

The quality gates' plan and cache live next to the tests, in tests/gates.py, and so do their
hostile submissions (tests/hostile*.py): the package ships only what instructors run.
"""

import sys

# jsonschema (under nbformat and nbgrader) imports rfc3987_syntax, when it is installed, for the
# "iri" string formats only, and that module compiles a grammar at import: 3-4 s of CPU in every
# grading worker, judge and fast-runner process. No schema the autograder validates uses those
# formats, so its processes go without it (jsonschema then skips the "iri" checks).
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
