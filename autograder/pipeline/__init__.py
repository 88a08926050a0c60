"""The pipeline a submission goes through: collect -> grade -> feedback -> export.

One command per stage (autograder/README.md). `results` is the record of a grade: grading
writes one per student x chapter (work/results/), and every later stage is handed it and
reads it (feedback, export, report, release-feedback, the cluster's client). In the order a
submission meets them:

    collect           `collect`: submissions from a folder or an LMS zip into submitted/
    lms_names         what the names in an LMS's submissions zip say: student, chapter, the LMS's ids
    exchange          `collect --exchange`, `release-feedback`: nbgrader's exchange (a JupyterHub's)
    collected         what `collect` saw (work/collected.json): a row, and its reason, for everyone
    nbgrader_buttons  the Formgrader's Collect and Autograde, and plain `nbgrader autograde`: the course's
    cohort            `grade`: a cohort in N parallel workers, sharded by student
    grading           one student's submissions, graded inside one worker process
    gradebook         the master gradebook, a private copy per worker, a submission's rows
    progress_line     the line printed per graded submission (bar, ETA, scores), for both
    execute           nbgrader's Execute, hardened: sandboxed kernel, CPU-time limits, test cells judged
    scoring           test cells scored by the grader's own rule (the judge's verdict), not nbgrader's
    results           one result per student x chapter: scores, status, what happened
    files             the grader's own files written whole, whatever a submission left in their way
    feedback          `feedback`: one HTML page per student and chapter
    feedback_filter   what feedback may show: the failure and its message, never hidden tests
    export            `export` (grades.csv) and `report` (a table per chapter and exercise)
    lms_export        `export --lms canvas|moodle`: files the LMSs' grade imports read
    check             `check NB`: a student's own run, saying which test cells fail and why
    demo              `demo` (`make grade`): the whole pipeline on the sample cohort
"""
