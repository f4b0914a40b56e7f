"""Vivabank settings: one module, driven by the environment.

Every value comes from an environment variable (or a `.env` file beside
`manage.py`) with a development default, except where production needs an
explicit choice: with DEBUG off there is no default secret key.
"""

import secrets
from pathlib import Path
from typing import Any

import environ

from config.logging import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG: bool = env.bool("DEBUG", default=False)
_DEV_SECRET = "vivabank-development-only-secret-key-not-for-production-use"  # noqa: S105 (DEBUG only)
# Workers and beat sign nothing (no sessions, no tokens), so they run without the web's key
# (docker-compose gives them none): each process makes up a throwaway one.
VIVABANK_ROLE: str = env.str("VIVABANK_ROLE", default="web")
_NO_KEY_NEEDED = VIVABANK_ROLE in ("worker", "beat")
SECRET_KEY: str = env.str(
    "SECRET_KEY",
    default=_DEV_SECRET
    if DEBUG
    else (secrets.token_urlsafe(50) if _NO_KEY_NEEDED else environ.Env.NOTSET),
)
ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from our static files
    "django_celery_beat",
    "quizbank",
    "grading",
    "runner",
    "lti_tool",  # django-lti: LTI 1.3 registrations, deployments and tool keys (used by lms/lti.py)
    "lms",
    "web",
]

MIDDLEWARE = [
    # Outermost: every log record of a request carries its id, echoed as X-Request-ID.
    "config.logging.RequestIdMiddleware",
    # Next, so that every error under /api/ leaves as JSON in the one shape.
    "config.http_errors.ApiErrorMiddleware",
    "config.http_errors.RequestSizeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files (admin, API docs) from the app itself, so a closed network needs no CDN.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's CommonMiddleware; a write to /api/ without its trailing slash is a 404.
    "config.http_errors.SlashCommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A page form's NUL or lone surrogate is a 400 naming the field (the API's parser refuses
    # the same text in JSON); after sign-in is known, so its page shows who is signed in.
    "config.form_text.StorableFormTextMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# `make run` shares one SQLite file between the web server, a worker and beat. WAL lets readers
# and one writer work at once; IMMEDIATE takes the write lock when a transaction begins, so a
# writer waits its turn (up to the timeout) instead of failing at once as "database is locked".
SQLITE_TIMEOUT_S: float = env.float("SQLITE_TIMEOUT_S", default=20.0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL",
            "transaction_mode": "IMMEDIATE",
            "timeout": SQLITE_TIMEOUT_S,
        }
    )
# Each web or worker process keeps its connection for CONN_MAX_AGE seconds (0: one per
# request) and checks it before reuse, so a restarted PostgreSQL costs one failed query at
# most. Several hosts behind one PostgreSQL: put pgbouncer (transaction mode) in front and
# set DB_CONN_MAX_AGE=0 (docs/deployment.md).
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Argon2id first (config/hashers.py): new passwords and every sign-in with an older hash use
# it; PBKDF2 stays so the hashes made before still verify (and are upgraded then).
PASSWORD_HASHERS = [
    "config.hashers.ExamArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "config.hashers.MaximumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Browser assets bundled by `make install` from package-lock.json (esbuild: htmx, KaTeX,
# CodeMirror and the pages' modules): served by the app, never from a CDN, so pages work on a
# closed exam network.
STATICFILES_DIRS = [("vendor", BASE_DIR / "vendor")]
# The site's own sign-in page (web/accounts.py); pages that need a user come back via ?next=.
LOGIN_URL = "web:signin"
LOGIN_REDIRECT_URL = "web:dashboard"
# A form from a page opened before its visitor signed in or out: the site's page, not Django's.
CSRF_FAILURE_VIEW = "web.accounts.csrf_failure"
LOGOUT_REDIRECT_URL = "quizbank:home"

# Security headers that matter once DEBUG is off (checked by `check --deploy`).
# TLS usually ends at the proxy in front of Django; turn this on where it does not.
SECURE_SSL_REDIRECT: bool = env.bool("SECURE_SSL_REDIRECT", default=False)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_SECONDS: int = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

REST_FRAMEWORK: dict[str, Any] = {
    # Token first: an unauthenticated call gets 401 with `WWW-Authenticate: Token`.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        # API clients (lms/): `Authorization: Bearer vbk_...`, scoped (config/scopes.py).
        "lms.auth.ApiClientTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "config.scopes.ClientScopes",
    ],
    # The API takes JSON only, through one parser that bounds size, nesting and text.
    "DEFAULT_PARSER_CLASSES": ["config.parsers.SafeJSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "config.negotiation.LenientContentNegotiation",
    # Nested Input/Output serializers (one pair per view) get unique schema names.
    "DEFAULT_SCHEMA_CLASS": "config.schema.VivabankAutoSchema",
    # Filters and orderings a list cannot use are a 400 naming them, never ignored.
    "DEFAULT_FILTER_BACKENDS": [
        "config.filters.StrictFilterBackend",
        "config.filters.StrictOrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.exceptions.api_exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Vivabank API",
    "DESCRIPTION": "Question bank, timed quizzes, code autograding and viva marking.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/docs/ loads Swagger UI from our static files, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # `<id:...>` path parameters (config/converters.py) are bounded integers.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}},
    # One name for the webhook events, listed both in subscriptions and in deliveries.
    "ENUM_NAME_OVERRIDES": {
        "WebhookEventEnum": "lms.models.WebhookEvent",
        "DifficultyEnum": "quizbank.models.Difficulty",
    },
}

# --- Celery -----------------------------------------------------------------
# With no CELERY_BROKER_URL the broker is kombu's filesystem transport under
# var/broker, so `make run` needs no Redis; production sets redis://.
VAR_DIR = Path(env.str("VIVABANK_VAR_DIR", default=str(BASE_DIR / "var")))
CELERY_BROKER_URL: str = env.str("CELERY_BROKER_URL", default="filesystem://")
_BROKER_FOLDER = VAR_DIR / "broker"
FILESYSTEM_BROKER_POLL_S = 0.05
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = (
    {
        "data_folder_in": str(_BROKER_FOLDER),
        "data_folder_out": str(_BROKER_FOLDER),
        "processed_folder": str(VAR_DIR / "broker-processed"),
        "control_folder": str(VAR_DIR / "broker-control"),
        "store_processed": False,
        # kombu sleeps this long after every fetch that finds nothing or finds the worker's
        # slots full (1 s by default): with prefetch 1 that capped a 2-slot worker at about 2
        # jobs a second, so 40 students' Runs or submits waited up to 20 s in the folder.
        "polling_interval": FILESYSTEM_BROKER_POLL_S,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    # Redis redelivers an unacknowledged task after this; it must exceed the longest job.
    else {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)}
)
# /readyz is ready only while each of these queues has a worker answering a ping
# (add "gpu" where a GPU worker must be up).
HEALTH_QUEUES: list[str] = env.list("HEALTH_QUEUES", default=["default", "cpu"])
# A ping waits its whole timeout (1 s) for replies, holding a web process: a result where
# every queue had a worker is reused this long (in the cache; a failed one never is).
HEALTH_WORKERS_FRESH_S: int = env.int("HEALTH_WORKERS_FRESH_S", default=10)
CELERY_TASK_ALWAYS_EAGER: bool = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

# --- Runner -------------------------------------------------------------------
# Code answers run only inside the sandbox; a host without namespaces refuses
# to grade unless a developer explicitly allows unconfined runs.
RUNNER_ALLOW_UNSANDBOXED: bool = env.bool("RUNNER_ALLOW_UNSANDBOXED", default=False)
# A child sees only an allow-listed root: the Python install, the virtualenv and the
# loaded libraries, read-only. Paths listed here are added read-only (never the checkout).
RUNNER_EXTRA_READONLY_PATHS: list[str] = env.list("RUNNER_EXTRA_READONLY_PATHS", default=[])
# CPUs each worker slot (its zygote and every child) may use; 0 means no quota.
RUNNER_CPU_QUOTA: float = env.float("RUNNER_CPU_QUOTA", default=1.0)

# One JSON object per line with the request, attempt and job ids (config/logging.py);
# LOG_FORMAT=plain for people reading a terminal.
LOGGING: dict[str, Any] = logging_config(
    level=env.str("LOG_LEVEL", default="INFO"),
    json_format=env.str("LOG_FORMAT", default="json") != "plain",
)

# --- Grading (quizzes, attempts, the student API) ----------------------------
# Largest answer a student may autosave (JSON-encoded), e.g. 64 KiB of code.
GRADING_MAX_ANSWER_BYTES: int = env.int("GRADING_MAX_ANSWER_BYTES", default=64 * 1024)
# Largest request body the JSON API parses at all; bigger bodies get 413.
GRADING_MAX_REQUEST_BYTES: int = env.int("GRADING_MAX_REQUEST_BYTES", default=256 * 1024)
# --- Bank interchange (Moodle XML, GIFT, QTI) --------------------------------
# Largest file an import reads (the upload, or the zip package itself); bigger files are refused.
INTERCHANGE_MAX_FILE_BYTES: int = env.int("INTERCHANGE_MAX_FILE_BYTES", default=5 * 1024 * 1024)
# Largest request body read at all (an import's file and its form around it): a bigger one is
# a 413 before any of it is read; Django would stream an upload of any size to disk first.
MAX_REQUEST_BODY_BYTES: int = env.int(
    "MAX_REQUEST_BODY_BYTES", default=INTERCHANGE_MAX_FILE_BYTES + 1024 * 1024
)
# Most questions one import writes. It is one transaction, and on SQLite that holds every
# other writer (students' autosaves included) about 10 ms a question: 200 keeps that to a
# couple of seconds on `make run`; PostgreSQL takes row locks and is not held up.
INTERCHANGE_MAX_QUESTIONS: int = env.int(
    "INTERCHANGE_MAX_QUESTIONS",
    default=200 if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3" else 1000,
)
# Largest total a QTI package may unpack to (a zip bomb stops here, whatever its headers say).
INTERCHANGE_MAX_UNPACKED_BYTES: int = env.int(
    "INTERCHANGE_MAX_UNPACKED_BYTES", default=50 * 1024 * 1024
)
# A code answer still queued or running this long past its job's time limit was lost (a
# worker died, a message vanished): beat's sweeper applies the stored result or sends it again.
GRADING_STUCK_MARGIN_S: float = env.float("GRADING_STUCK_MARGIN_S", default=60.0)
GRADING_SWEEP_STUCK_EVERY_S: float = env.float("GRADING_SWEEP_STUCK_EVERY_S", default=60.0)
# Marks further apart than this share of the maximum go to a moderator (a quiz may override it).
GRADING_DISAGREEMENT_THRESHOLD: float = env.float("GRADING_DISAGREEMENT_THRESHOLD", default=0.2)
# A webhook delivery or LMS score never tried LMS_RESEND_AFTER_S after it was queued lost its
# send (the broker was down at the commit): beat's `lms.resend_unsent` queues it again, every
# LMS_RESEND_EVERY_S: a delivery for LMS_RESEND_WITHIN_S, a score once its quiz is released.
LMS_RESEND_AFTER_S: float = env.float("LMS_RESEND_AFTER_S", default=300.0)
LMS_RESEND_EVERY_S: float = env.float("LMS_RESEND_EVERY_S", default=300.0)
LMS_RESEND_WITHIN_S: float = env.float("LMS_RESEND_WITHIN_S", default=86400.0)
# Beat submits overdue attempts; "on next access" covers the time in between.
CELERY_BEAT_SCHEDULE: dict[str, Any] = {
    "close-overdue-attempts": {
        "task": "grading.close_overdue_attempts",
        "schedule": env.float("GRADING_CLOSE_OVERDUE_EVERY_S", default=30.0),
        "options": {"queue": "default", "expires": 25},
    },
    "sweep-stuck-code-answers": {
        "task": "grading.sweep_stuck_code_answers",
        "schedule": GRADING_SWEEP_STUCK_EVERY_S,
        "options": {"queue": "default", "expires": GRADING_SWEEP_STUCK_EVERY_S},
    },
    "resend-unsent-lms-sends": {
        "task": "lms.resend_unsent",
        "schedule": LMS_RESEND_EVERY_S,
        "options": {"queue": "default", "expires": LMS_RESEND_EVERY_S},
    },
}
# How long POST /api/code-runs/ waits for a worker's output (the quiz page's Run polls
# instead). Keep it below the web server's request timeout (gunicorn --timeout 30), or a
# slow queue would get the web process killed mid-request.
CODE_RUN_WAIT_S: float = env.float("CODE_RUN_WAIT_S", default=20.0)
# How many such waiting runs the whole site holds at once (keep it below the web processes'
# count so the rest keep serving; counted in the shared cache, CACHE_URL).
CODE_RUN_MAX_WAITING: int = env.int("CODE_RUN_MAX_WAITING", default=2)
# Per-user rate of "try it" code runs (DRF ScopedRateThrottle scope `code_run`).
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {
    "code_run": env.str("GRADING_CODE_RUN_RATE", default="30/min"),
    # Each check grades every solution file of a question on the workers.
    "solution_check": env.str("GRADING_SOLUTION_CHECK_RATE", default="10/min"),
}
# Throttle counts live in the cache: per process by default, shared in
# production (e.g. CACHE_URL=redis://127.0.0.1:6379/1).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# How many proxies in front of Django append to X-Forwarded-For; 0 trusts REMOTE_ADDR
# alone (otherwise a client could name any address and dodge the address limits).
REST_FRAMEWORK["NUM_PROXIES"] = env.int("NUM_PROXIES", default=0)

# --- Sign-in (the API token endpoint and the admin login; config/signin.py) -----
# Failed sign-ins within the window lock the username, or the address, for the lockout.
SIGNIN_FAILURES_PER_USERNAME: int = env.int("SIGNIN_FAILURES_PER_USERNAME", default=10)
# Higher: a whole exam room may share one address behind NAT.
SIGNIN_FAILURES_PER_ADDRESS: int = env.int("SIGNIN_FAILURES_PER_ADDRESS", default=50)
SIGNIN_FAILURE_WINDOW_S: int = env.int("SIGNIN_FAILURE_WINDOW_S", default=900)
SIGNIN_LOCKOUT_S: int = env.int("SIGNIN_LOCKOUT_S", default=900)
# Wrong access codes a student may give for one quiz within the window; then every try
# (the right code too) is refused until the window ends, so a short code is not guessed.
ACCESS_CODE_FAILURES: int = env.int("ACCESS_CODE_FAILURES", default=10)
ACCESS_CODE_FAILURE_WINDOW_S: int = env.int("ACCESS_CODE_FAILURE_WINDOW_S", default=900)

# --- Webhooks (lms/services/webhook_targets.py) ---------------------------------
# Hosts a webhook may reach although they resolve to internal addresses (e.g. a receiver
# on the same private network); every other host must resolve to public addresses only.
WEBHOOK_ALLOWED_PRIVATE_HOSTS: list[str] = env.list("WEBHOOK_ALLOWED_PRIVATE_HOSTS", default=[])
