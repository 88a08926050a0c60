"""`python -m bench` (make bench): run every bench/bench_*.py module's main(), each printing a table."""

import importlib
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    names = sorted(p.stem for p in pathlib.Path(__file__).parent.glob("bench_*.py"))
    wanted = [n for n in names if not argv or any(a in n for a in argv)]
    for name in wanted:
        print(f"\n## {name}\n", flush=True)
        importlib.import_module(f"bench.{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
