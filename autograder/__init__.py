"""The instructor's autograder: release chapters, collect, grade in parallel, feedback, export.

Run `python -m autograder --help` (`__main__`). One folder per part of the grader, each
with the map of its modules in its `__init__.py` (docs/DESIGN.md, "The autograder's layout"):

    pipeline/  collect -> grade -> feedback -> export; `results`, the record of a grade
    sandbox/   the walls around a submission: bubblewrap, cgroups, kernel limits, output caps, safe reads
    judge/     the judge: test cells run outside the sandbox, calling the kernel over a socket
    cluster/   `grade --cluster`: one Dask task per submission, the client writes the course
    release/   solutions/ -> chapters/: `release`, `#@include`, each chapter's reading list
    i18n/      translated chapters: blocks and hashes, their release, message catalogs, feedback pages
    gates/     what the quality gates grade: a chapter's variants, mutants' patches, the sample cohort

What every part shares stays here:

    course           where a course keeps its chapters, solutions, mutants and workspace
    settings         the nbgrader configuration: folders, time and output limits, preprocessors
    nbgrader_config  for plain `nbgrader ...` commands run from this folder
    nbgrader_run     one nbgrader converter in-process, its log captured, errors readable
    notebooks        read, build and normalise notebooks reproducibly (`nbmeta(cell)`)

Data beside the code: mutants/ (each exercise's plausible mistakes, as patches),
sample_cohort/ (made by `sample-cohort`), pipeline/feedback_page/ (the feedback page's
template); the workspace (submitted/, autograded/, feedback/, work/) is git-ignored.

The quality gates' plan and cache live next to the tests, in tests/gates.py, and so do their
hostile submissions (tests/hostile*.py): the package ships only what instructors run.
"""

import sys

# jsonschema (under nbformat and nbgrader) imports rfc3987_syntax, when it is installed, for the
# "iri" string formats only, and that module compiles a grammar at import: 3-4 s of CPU in every
# grading worker, judge and fast-runner process. No schema the autograder validates uses those
# formats, so its processes go without it (jsonschema then skips the "iri" checks).
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
