"""`manage.py pages_bench --json`: server time to render the quiz page of a 10-question attempt
(p50, p95, through Django's test client on the real database) and the gzipped size of the
JavaScript that page loads (from esbuild's metafile in vendor/app/): what every quiz page
loads, and the chunks loaded only when it has math (KaTeX) or a code question (CodeMirror)."""

import gzip
import json
import statistics
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.test import Client
from django.utils import timezone

from grading.models import Attempt
from grading.services.attempts import attempt_start
from quizbank.models import Course, CourseMembership, Question, Quiz, QuizSlot, Role
from quizbank.services.demo_data import demo_load

QUESTIONS = 10


def _attempt() -> Attempt:
    base = Path(settings.BASE_DIR)
    demo_load(path=base / "fixtures" / "demo.yaml", base_dir=base)
    course = Course.objects.get(slug="pytorch-fundamentals")
    with transaction.atomic():
        quiz, _ = Quiz.objects.update_or_create(
            course=course,
            slug="pages-bench",
            defaults={"title": "Pages bench", "attempts_allowed": 0},
        )
        quiz.slots.all().delete()
        questions = Question.objects.filter(course=course, current_version__isnull=False)
        for position, question in enumerate(questions.order_by("pk")[:QUESTIONS]):
            QuizSlot.objects.create(quiz=quiz, position=position, question=question)
    user, _ = User.objects.get_or_create(username="pages-bench-student")
    CourseMembership.objects.get_or_create(course=course, user=user, role=Role.STUDENT)
    return attempt_start(quiz=quiz, user=user, now=timezone.now())


def _render_ms(attempt: Attempt, runs: int) -> list[float]:
    client = Client(HTTP_HOST=settings.ALLOWED_HOSTS[0])
    client.force_login(attempt.user)
    url = f"/attempts/{attempt.pk}/"
    client.get(url)  # warm caches (templates, Markdown parser)
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        reply = client.get(url)
        timings.append((time.perf_counter() - start) * 1000)
        if reply.status_code != 200:
            raise CommandError(f"the quiz page answered {reply.status_code}")
    return timings


def _gzipped(outdir: Path, name: str, meta: dict[str, Any], seen: set[str]) -> int:
    if name in seen:
        return 0
    seen.add(name)
    size = len(gzip.compress((outdir.parent.parent / name).read_bytes(), 9))
    imports = meta["outputs"][name].get("imports", [])
    static = [i["path"] for i in imports if i["kind"] == "import-statement"]
    return size + sum(_gzipped(outdir, path, meta, seen) for path in static)


def _javascript_bytes() -> dict[str, int]:
    outdir = Path(settings.BASE_DIR) / "vendor" / "app"
    meta = json.loads((outdir / "meta.json").read_text())
    seen: set[str] = set()
    initial = sum(_gzipped(outdir, f"vendor/app/{n}.js", meta, seen) for n in ("base", "quiz"))
    lazy = {"katex": "/katex-", "editor": "/editor-"}
    sizes = {
        f"{key}_chunk_gzip_bytes": sum(
            _gzipped(outdir, name, meta, seen)
            for name in meta["outputs"]
            if marker in name and name.endswith(".js")
        )
        for key, marker in lazy.items()
    }
    return {"quiz_page_js_gzip_bytes": initial, **sizes}


class Command(BaseCommand):
    help = "Time the quiz page of a 10-question attempt and size the JavaScript it loads."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=50)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        attempt = _attempt()
        timings = sorted(_render_ms(attempt, int(options["runs"])))
        figures = {
            "quiz_page_questions": attempt.responses.count(),
            "quiz_page_render_p50_ms": round(statistics.median(timings), 2),
            "quiz_page_render_p95_ms": round(timings[int(0.95 * (len(timings) - 1))], 2),
            **_javascript_bytes(),
        }
        self.stdout.write(json.dumps(figures) if options["json"] else str(figures))
