"""What the quality gates grade, made from a chapter's own notebooks (never by hand).

The gates themselves, their plan, cache and hostile submissions are in tests/ (tests/gates.py);
these are the parts instructors run too (`sample-cohort`, `mutant-diff`) and the benchmarks use:

    variants     submissions made from a chapter: solved, stub, partial, mutants
    mutant_diff  `mutant-diff`: a mutant's patch from an edited copy of its answer cell
    sample       the sample cohort under autograder/sample_cohort/, made from the chapters
"""
