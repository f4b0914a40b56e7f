from django.apps import AppConfig


class QuizbankConfig(AppConfig):
    name = "quizbank"
    verbose_name = "Question bank"
