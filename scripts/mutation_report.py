"""Per-area mutation figures from `mutmut results --all true` (read on stdin).

    mutmut results --all true | python scripts/mutation_report.py [--survivors] [--fail-under 90]

An area is a set of packages or modules (`a.b`), or of single functions (`a.b:f`) where a
module also holds code that decides no grade.
Killed % = (killed + timeout) / (killed + timeout + survived + no tests).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable

AREAS: dict[str, tuple[str, ...]] = {
    "scoring": ("grading.scoring",),
    # attempts.py and responses.py are mutated whole; only their clock functions count here.
    "attempt clock": (
        "grading.services.attempts:answers_close_at",
        "grading.services.attempts:attempt_is_overdue",
        "grading.services.attempts:_check_open",
        "grading.services.responses:_check_open",
        "grading.services.responses:attempt_submit",
        "grading.services.responses:attempt_submit_own",
        "grading.services.responses:_submit_locked",
        "grading.services.responses:attempt_close_if_overdue",
        "grading.services.responses:attempts_close_overdue",
    ),
    "viva marking": (
        "grading.services.marking.marks",
        "grading.services.marking.outcome",
        "grading.services.marking.policy",
    ),
    "tensor comparison": (
        "runner.harness.compare",
        "runner.harness.compare_tensors",
        "runner.harness.outcome",
    ),
}
OUTSIDE = "outside the areas"
DETECTED = ("killed", "timeout")
COUNTED = (*DETECTED, "survived", "no tests")


def function_of(mutant: str) -> tuple[str, str]:
    """(module, function) of a mutant name: `a.b.x_f__mutmut_3`, `a.b.xǁCǁm__mutmut_1`."""
    module, _, mangled = mutant.rpartition(".")
    name = mangled.rsplit("__mutmut_", 1)[0]
    if name.startswith("xǁ"):
        return module, ".".join(name[2:].split("ǁ"))
    return module, name.removeprefix("x_")


def area_of(mutant: str) -> str:
    module, function = function_of(mutant)
    for area, patterns in AREAS.items():
        for pattern in patterns:
            if pattern in (module, f"{module}:{function}") or module.startswith(f"{pattern}."):
                return area
    return OUTSIDE


def parse(lines: Iterable[str]) -> list[tuple[str, str]]:
    """(mutant name, status) for each `    name: status` line."""
    rows = []
    for line in lines:
        name, sep, status = line.strip().partition(": ")
        if sep and "__mutmut_" in name:
            rows.append((name, status))
    return rows


def killed_share(counts: Counter[str]) -> float | None:
    total = sum(counts[status] for status in COUNTED)
    return None if not total else sum(counts[s] for s in DETECTED) / total


def report(rows: list[tuple[str, str]]) -> dict[str, Counter[str]]:
    by_area: dict[str, Counter[str]] = {area: Counter() for area in [*AREAS, OUTSIDE]}
    for name, status in rows:
        by_area[area_of(name)][status] += 1
    return by_area


def print_table(by_area: dict[str, Counter[str]]) -> None:
    print(f"{'area':<20}{'killed':>8}{'timeout':>9}{'survived':>10}{'no tests':>10}{'other':>7}  %")
    for area, counts in by_area.items():
        if not counts:
            continue
        other = sum(n for status, n in counts.items() if status not in COUNTED)
        share = killed_share(counts)
        shown = "-" if share is None else f"{100 * share:.1f}"
        print(
            f"{area:<20}{counts['killed']:>8}{counts['timeout']:>9}{counts['survived']:>10}"
            f"{counts['no tests']:>10}{other:>7}  {shown}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    parser.add_argument("--fail-under", type=float, default=0.0, help="minimum killed %% per area")
    args = parser.parse_args()
    rows = parse(sys.stdin)
    by_area = report(rows)
    print_table(by_area)
    if args.survivors:
        for name, status in rows:
            if status in ("survived", "no tests") and area_of(name) != OUTSIDE:
                print(f"{area_of(name)}: {name}: {status}")
    low = [
        area
        for area in AREAS
        if (share := killed_share(by_area[area])) is None or 100 * share < args.fail_under
    ]
    if low:
        print(f"below {args.fail_under:g}% killed: {', '.join(low)}", file=sys.stderr)
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
