"""The judge's scratch folder is bounded for the notebook as a whole, and works with any TMPDIR (issue 44).

Red team: sparse 16 MB files in the kernel's 64 MB /tmp were copied out as real bytes, 64 MB a
request with no bound over requests (1.5-2 GiB on the grader's disk in about a second); and with
TMPDIR outside /tmp (an HPC job's folder) every notebook, the solutions too, graded as `error`: the
judge's folder was made there, and the sandbox, whose only writable /tmp is its own, has no such
path. The Mirror's own tests use a folder standing for the sandbox's root; the last one grades a
notebook in a real sandbox with TMPDIR=/var/tmp/<unique>."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from pathlib import Path

import nbformat
import pytest

from autograder.judge import nofollow, scratch
from autograder.judge.scratch import FILE_CAP, TOTAL_CAP, Mirror, ScratchFull
from autograder.sandbox import sandbox

MB = 2**20
LIMIT = f"passed the judge's limit of {TOTAL_CAP // MB} MB"


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A Mirror, the kernel's side of its folder, and the bytes written onto the judge's side."""
    judge_side, root = tmp_path / "judge", tmp_path / "sandbox"
    judge_side.mkdir()
    root.mkdir()
    written = [0]
    real = nofollow.write_new

    def counted(fd: int, name: str, data: bytes, mode: int) -> None:
        written[0] += len(data)
        real(fd, name, data, mode)

    monkeypatch.setattr(nofollow, "write_new", counted)
    m = Mirror(str(judge_side), str(root))
    return m, root / str(judge_side).lstrip("/"), written


def sparse(path: Path, size: int) -> None:
    """What the attack made: a file of `size` bytes that holds no block (st_size, not st_blocks)."""
    path.unlink(missing_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)


def test_sparse_files_made_again_and_again_are_copied_out_once_up_to_the_cap(mirror):
    m, kernel, written = mirror
    raised = 0
    for _ in range(30):  # each request: 16 files of 16 MB, made again (the old copy: 64 MB each time)
        for i in range(16):
            sparse(kernel / f"f{i}", FILE_CAP)
        try:
            m.from_kernel()
        except ScratchFull as e:
            raised += 1
            assert LIMIT in str(e) and "sparse file counts at its full size" in str(e), str(e)
    assert written[0] <= TOTAL_CAP, f"{written[0] / MB:.0f} MB written on the grader's disk"
    assert raised == 30, "every request past the cap fails, the first one too"
    held = sum(p.stat().st_size for p in Path(m.path).rglob("*") if p.is_file())
    assert held <= TOTAL_CAP


def test_bytes_copied_count_over_the_notebooks_life_not_only_what_is_there_now(mirror):
    m, kernel, written = mirror
    for i in range(4):
        sparse(kernel / f"f{i}", 15 * MB)
    m.from_kernel()  # 60 MB: within the cap
    assert written[0] == 60 * MB
    for i in range(4):
        (kernel / f"f{i}").unlink()
    m.from_kernel()  # removed here too: the folder holds nothing now
    assert not any(Path(m.path).iterdir())
    for i in range(4):
        sparse(kernel / f"g{i}", 15 * MB)
    with pytest.raises(ScratchFull, match=LIMIT):
        m.from_kernel()
    assert written[0] == 60 * MB, "not a byte more once 60 MB were copied and the next file passes 64"
    (kernel / "small.txt").write_text("late")
    with pytest.raises(ScratchFull, match=LIMIT):
        m.from_kernel()  # copying out has stopped for this notebook
    assert not (Path(m.path) / "small.txt").exists()


def test_the_judges_own_files_count_in_the_folders_total(mirror):
    m, kernel, written = mirror
    sparse(Path(m.path) / "tests_own.bin", 60 * MB)  # a test's own file, 60 MB at its st_size
    m.to_kernel()
    (kernel / "small.txt").write_text("fits")
    m.from_kernel()
    assert (Path(m.path) / "small.txt").read_text() == "fits"
    sparse(kernel / "more.bin", 8 * MB)
    with pytest.raises(ScratchFull, match=LIMIT):
        m.from_kernel()
    assert written[0] == 4 and not (Path(m.path) / "more.bin").exists()


def test_a_file_over_file_cap_is_left_out_and_not_counted(mirror):
    m, kernel, written = mirror
    sparse(kernel / "huge.bin", FILE_CAP + 1)
    (kernel / "note.txt").write_text("kept")
    m.from_kernel()
    assert sorted(p.name for p in Path(m.path).iterdir()) == ["note.txt"]
    assert written[0] == 4 and m.copied == 4 and not m.full


def test_a_scratch_folder_must_be_one_the_sandbox_has():
    under = tempfile.mkdtemp(prefix="agentloop-test-", dir="/tmp")
    elsewhere = tempfile.mkdtemp(prefix="agentloop-test-", dir="/var/tmp")
    try:
        assert scratch.sandbox_visible(under), "under /tmp: the sandbox has that path already"
        assert not scratch.sandbox_visible(elsewhere)
        with pytest.raises(ValueError, match="not a real folder under /tmp"):
            scratch.Mirror(elsewhere, "/proc/1/root")
    finally:
        shutil.rmtree(under)
        shutil.rmtree(elsewhere)


# -- a notebook graded in a real sandbox, with TMPDIR outside /tmp -----------------------------------

ANSWER = '''import os

def shout(folder):
    with open(os.path.join(folder, "in.txt")) as f:
        text = f.read()
    with open(os.path.join(folder, "out.txt"), "w") as f:
        f.write(text.upper())
    return text

def fill(folder, n):
    for i in range(n):
        with open(os.path.join(folder, f"big{i}"), "wb") as f:
            f.truncate(16 << 20)  # sparse: no block in the sandbox's tmpfs
    return n
'''
ROUND_TRIP = '''import os, tempfile
from pathlib import Path
d = Path(tempfile.mkdtemp()).resolve()
print("judge folder", d)
(d / "in.txt").write_text("hello")
assert shout(str(d)) == "hello"
assert (d / "out.txt").read_text() == "HELLO"
'''
FLOOD = '''import tempfile
def wchar():
    with open("/proc/self/io") as f:
        return int([line for line in f if line.startswith("wchar:")][0].split()[1])
start, d = wchar(), tempfile.mkdtemp()
try:
    for _ in range(30):
        try:
            fill(d, 8)
        except Exception:
            pass
finally:
    print("judge wrote", wchar() - start, "bytes")
'''


def _cell(source: str, grade_id: str, test: bool):
    meta = {"grade": test, "solution": not test, "grade_id": grade_id, "locked": test, "schema_version": 3}
    if test:
        meta["points"] = 1
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})


def _notebook():
    nb = nbformat.v4.new_notebook(cells=[_cell(ANSWER, "answer", False), _cell(ROUND_TRIP, "round_trip", True),
                                         _cell(FLOOD, "flood", True)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if sandbox.bwrap_problem() is not None:
        pytest.skip(str(sandbox.bwrap_problem()))
    from autograder.pipeline.execute import SafeExecute

    source = tmp_path_factory.mktemp("course")
    (source / "ch").mkdir()
    nbformat.write(_notebook(), source / "ch" / "nb.ipynb")
    outside = Path("/var/tmp") / f"agentloop-tmpdir-{uuid.uuid4().hex[:12]}"
    outside.mkdir()
    nb = _notebook()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TMPDIR", str(outside))
        mp.setattr(tempfile, "tempdir", None)
        assert tempfile.gettempdir() == str(outside)
        try:
            SafeExecute(timeout=60, notebook_timeout=300, private_paths=[], memory_mb=0, sandbox="bwrap",
                        judge=True, source_directory=str(source)).preprocess(
                nb, {"nbgrader": {"assignment": "ch", "notebook": "nb"}, "metadata": {"path": str(source)}})
            yield nb, sorted(p.name for p in outside.iterdir())
        finally:
            shutil.rmtree(outside, ignore_errors=True)


def _text(cell, kind: str) -> str:
    return "".join(o.get("text", "") + o.get("evalue", "") for o in cell.outputs if o.get("output_type") == kind)


def test_a_notebook_grades_with_tmpdir_outside_tmp(graded):
    nb, left = graded
    cell = nb.cells[1]
    assert nb.metadata["autograder"]["status"] == "ok", nb.metadata["autograder"]
    assert "round_trip" in nb.metadata["autograder"]["ended"], _text(cell, "error")
    assert not _text(cell, "error"), "the kernel read the judge's file and the judge read the kernel's"
    folder = Path(_text(cell, "stream").split("judge folder ", 1)[1].split()[0])
    assert folder.parts[:2] == ("/", "tmp"), f"the judge's folder, resolved, is one the sandbox has: {folder}"
    assert left == [], f"the grader's own folders under TMPDIR are removed: {left}"
    assert not folder.parent.exists(), "the judge's folder under /tmp is removed once the notebook is graded"


def test_a_sparse_file_flood_fails_its_test_and_writes_at_most_the_cap(graded):
    nb, _ = graded
    cell = nb.cells[2]
    assert "flood" not in nb.metadata["autograder"]["ended"]
    assert LIMIT in _text(cell, "error"), cell.outputs
    wrote = int(_text(cell, "stream").split("judge wrote ", 1)[1].split()[0])
    assert wrote <= TOTAL_CAP + MB, f"the judge wrote {wrote / MB:.0f} MB (the cap: {TOTAL_CAP // MB} MB)"
