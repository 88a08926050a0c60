"""`grade --cluster`: the same grading on a Dask cluster, one task per submission.

(autograder/README.md, "Grading a large cohort"):

    cluster       `grade --cluster`: one Dask task per submission, the client writes the course
    cluster_task  one such task: packed by the client, graded in a private course on a worker
"""
