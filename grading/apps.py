from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Grading"

    def ready(self) -> None:
        from grading import signals  # connects only once the app registry is ready

        signals.connect()
