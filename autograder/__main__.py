"""python -m autograder {release,collect,grade,feedback,release-feedback,export,report,check,demo,sample-cohort,i18n}."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.course import COURSE_ID, REPO, AutograderError, Course
from workbook import cli

WORKSPACE_RULES = """\
--workspace DIR (given before the command: python -m autograder --workspace DIR collect ...)
keeps one cohort's state: submitted/, autograded/, feedback/, work/, gradebook.db, grades.csv.
It must be inside the course root (--root; nbgrader matches its folders as patterns built from
the root), defaults to <root>/autograder, and is git-ignored there. collect, grade, feedback and
export must all be given the same one; collect writes submitted/<student>/<chapter>/<chapter>.ipynb
there (replacing that student's earlier copy of the chapter) and nothing else."""

COLLECT_RULES = """\
Only regular files are read: symlinks (to files or folders), hard links, devices, fifos and
sockets, and zip entries that are symlinks, absolute or contain .., are refused and listed; the
rest is collected. LMS downloads (README, "LMS exports"): Canvas
name_USERID_FILEID_<file>.ipynb (and name_LATE_...) -> student name_USERID; Moodle folders
"Full Name_PARTICIPANT_assignsubmission_file_/<file>.ipynb" -> student full-name; Blackboard
<Assignment>_<user>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>.ipynb -> student <user> (the latest
attempt). The chapter comes from the file name, else from --chapter.

""" + WORKSPACE_RULES


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m autograder", description=__doc__.split(".")[0] + ".")
    p.add_argument("--root", type=Path, default=None, help="course root (default: this repository)")
    p.add_argument("--workspace", type=Path, default=None,
                   help="where submissions, grades and feedback live (default: <root>/autograder; "
                        "inside the root; see `collect --help`)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    r = sub.add_parser("release", help="build solutions/*.ipynb from .py and chapters/ with nbgrader")
    r.add_argument("--chapter", action="append", default=None, metavar="NN_name",
                   help="release only this chapter (repeatable; default: every chapter)")
    c = sub.add_parser("collect", help="import submissions from a folder or an LMS zip", epilog=COLLECT_RULES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("source", type=Path, nargs="?", help="folder or .zip (or --exchange)")
    c.add_argument("--exchange", type=Path, metavar="DIR",
                   help="nbgrader's exchange (a JupyterHub's): each student's latest submission (docs/HUB.md)")
    c.add_argument("--course-id", default=COURSE_ID, help=f"the exchange's course (default {COURSE_ID})")
    c.add_argument("--roster", metavar="FILE|NAMES",
                   help="with --exchange: the course's students (a file, one account a line, or NAME,NAME); "
                        "default: the hub's list, hub.json beside the exchange")
    c.add_argument("--skip-bad", action="store_true",
                   help="what collect always does now: what cannot be placed or read is listed, the rest collected")
    c.add_argument("--chapter", help="the chapter of an LMS download whose file names name none")
    g = sub.add_parser("grade", help="autograde collected submissions in parallel", epilog=WORKSPACE_RULES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("--workers", type=int, default=2)
    g.add_argument("--timeout", type=int, default=30,
                   help="CPU seconds per cell (default 30; the clock's backstop is 5 times that)")
    g.add_argument("--student", action="append", help="only this student (repeatable)")
    g.add_argument("--chapter", action="append", help="only this chapter (repeatable)")
    g.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto",
                   help="auto (default): bubblewrap, or refuse to grade without it; none: no sandbox, on purpose")
    g.add_argument("--cluster", metavar="ADDRESS",
                   help="grade on a Dask cluster: a scheduler's address (tcp://HOST:8786), or 'local' "
                        "for --workers processes on this machine")
    g.add_argument("--force", action="store_true",
                   help="with --cluster: grade again what is already graded from the same notebook")
    x = sub.add_parser("release-feedback", help="put feedback pages in nbgrader's exchange, for Fetch Feedback")
    x.add_argument("--exchange", type=Path, metavar="DIR", required=True, help="nbgrader's exchange")
    x.add_argument("--course-id", default=COURSE_ID, help=f"the exchange's course (default {COURSE_ID})")
    f = sub.add_parser("feedback", help="HTML feedback per student and chapter (no hidden tests)")
    f.add_argument("--workers", type=int, default=2)
    e = sub.add_parser("export", help="write grades.csv, or a file an LMS's grade import takes (docs/LMS.md)")
    e.add_argument("--out", type=Path, default=None)
    e.add_argument("--lms", choices=("canvas", "moodle"),
                   help="canvas.csv for Canvas's gradebook import, or moodle.csv (and a grading worksheet per "
                        "chapter for students a Moodle download named) for Moodle's")
    sub.add_parser("report", help="summary table per chapter and exercise")
    k = sub.add_parser("check", help="run a notebook's tests; exit 1 if one fails (students)")
    k.add_argument("notebook", type=Path)
    k.add_argument("--timeout", type=int, default=30, help="seconds per cell (default 30)")
    d = sub.add_parser("demo", help="collect, grade, feedback, export and report the sample cohort")
    d.add_argument("--workers", type=int, default=2)
    sub.add_parser("sample-cohort", help="regenerate autograder/sample_cohort from the chapters")
    t = sub.add_parser("i18n", help="translations: status, skeletons to translate (docs/TRANSLATING.md)")
    tsub = t.add_subparsers(dest="i18n_command", required=True, metavar="SUBCOMMAND")
    ts = tsub.add_parser("status", help="per chapter: text, quiz, messages; what is missing or stale")
    ts.add_argument("--lang", action="append", help="only this language (repeatable; default: every one)")
    ts.add_argument("chapters", nargs="*", metavar="NN_name")
    tk = tsub.add_parser("skeleton", help="a chapter's blocks (or --quiz) with today's hashes, to translate")
    tk.add_argument("lang")
    tk.add_argument("chapter")
    tk.add_argument("--quiz", action="store_true", help="the quiz, each question with its `en` hash")
    tm = tsub.add_parser("messages", help="the message templates without a translation, as JSON")
    tm.add_argument("lang")
    tm.add_argument("part", metavar="NN_name|library|ui", help="a chapter's test cells, the test helpers, or the tools")
    tm.add_argument("--hidden", action="store_true", help="what only a chapter's hidden tests say (hidden.json)")
    m = sub.add_parser("mutant-diff", help="write a mutant's patch from an edited copy of its answer cell "
                                           "(without EDITED: print the cell to edit)")
    m.add_argument("chapter")
    m.add_argument("name", metavar="EXERCISE-MISTAKE")
    m.add_argument("edited", type=Path, nargs="?", metavar="EDITED_CELL.py")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    course = Course(root=args.root or REPO, workspace=args.workspace)
    lines: list[str] = []
    code = 0
    if args.command == "release":
        from autograder.release.release import release
        lines = release(course, only=args.chapter)
    elif args.command == "collect" and args.exchange is not None:
        from autograder.pipeline.exchange import collect_exchange
        if args.source is not None or args.chapter:
            raise AutograderError("collect takes a folder or zip, or --exchange DIR, not both (nor --chapter)")
        lines = collect_exchange(course, args.exchange, args.course_id, skip_bad=args.skip_bad, students=args.roster)
    elif args.command == "collect":
        from autograder.pipeline.collect import collect
        if args.source is None:
            raise AutograderError("collect needs a folder, a .zip or --exchange DIR")
        if args.roster is not None:
            raise AutograderError("--roster is for --exchange (a folder or zip names its students itself)")
        lines = collect(course, args.source, skip_bad=args.skip_bad, chapter=args.chapter)
    elif args.command == "release-feedback":
        from autograder.pipeline.exchange import release_feedback
        lines = release_feedback(course, args.exchange, args.course_id)
    elif args.command == "grade":
        from autograder.pipeline.cohort import grade
        from autograder.settings import Limits
        if args.workers < 1 or args.timeout < 1:
            raise AutograderError("--workers and --timeout must be at least 1")
        grade(course, workers=args.workers, limits=Limits(cell_timeout=args.timeout, sandbox=args.sandbox),
              students=args.student, chapters=args.chapter, cluster=args.cluster, force=args.force)
    elif args.command == "feedback":
        from autograder.pipeline.feedback import feedback
        lines = feedback(course, workers=args.workers)
    elif args.command == "export":
        from autograder.pipeline.export import export
        lines = export(course, args.out, lms=args.lms)
    elif args.command == "report":
        from autograder.pipeline.export import report
        lines = report(course)
    elif args.command == "check":
        from autograder.pipeline.check import check
        code, lines = check(args.notebook, timeout=args.timeout, chapters=course.release)
    elif args.command == "demo":
        from autograder.pipeline.demo import demo
        demo(course, workers=args.workers)
    elif args.command == "sample-cohort":
        from autograder.gates.sample import regenerate
        lines = regenerate(course)
    elif args.command == "i18n":
        from autograder.i18n import i18n_status
        if args.i18n_command == "status":
            lines = i18n_status.status(course, args.lang, args.chapters or None)
        elif args.i18n_command == "skeleton":
            sys.stdout.write(i18n_status.skeleton(course, args.lang, args.chapter, quiz=args.quiz))
        else:
            sys.stdout.write(i18n_status.messages_skeleton(course, args.lang, args.part, hidden=args.hidden))
    elif args.command == "mutant-diff":
        from autograder.gates.mutant_diff import mutant_diff
        lines = mutant_diff(course, args.chapter, args.name, args.edited)
    print("\n".join(lines)) if lines else None
    return code


def main_with_errors(argv: list[str] | None = None) -> int:
    """`main`, with an AutograderError said in one line (exit 2) and Ctrl+C in one word (130)."""
    try:
        return main(argv)
    except AutograderError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    cli.run(main_with_errors)
