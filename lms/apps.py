from django.apps import AppConfig


class LmsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "lms"
    verbose_name = "LMS integration"

    def ready(self) -> None:
        from lms import receivers, schema  # noqa: F401  (schema registers the token scheme)

        receivers.connect()
