"""The instructor's autograder: release chapters, collect, grade in parallel, feedback, export.

Run `python -m autograder --help`. The pieces: `course` (where things are), `settings` (the
nbgrader configuration), `release`, `collect`, `cohort` + `grading` (parallel autograde),
`feedback`, `export`, `check` (students' `make check`), `variants` (sample and gate submissions).
"""
