"""The statistics JSON, field by field, with each figure's definition (docs/statistics.md)."""

from typing import Any

from rest_framework import serializers

from config.fields import TextOnlyField
from grading.statistics.agreement import MIXED_SCALES, NO_SPREAD, NOT_ENOUGH_DATA
from grading.statistics.scope import AttemptScope

KAPPA_NOTES = [NOT_ENOUGH_DATA, NO_SPREAD, MIXED_SCALES]
KAPPA = (
    "Quadratic-weighted Cohen's kappa of the first and second markers' levels: "
    "1 - Σ(a - b)² / Σᵢⱼ (i - j)² · nᵢ(first) · nⱼ(second) / n over the n pairs (the weights' "
    "1/(k - 1)² cancels). Null when `kappa_note` says why."
)
KAPPA_NOTE = (
    "Why kappa is null: `not_enough_data` (fewer than 2 pairs), `no_spread` (the markers "
    "used levels with no expected disagreement), `mixed_scales` (criteria with different "
    "numbers of levels are not pooled); null when kappa is given."
)


class OptionRateSerializer(serializers.Serializer[dict[str, Any]]):
    choice = serializers.IntegerField(
        allow_null=True,
        help_text="The option's index in the newest version; null for an option only older "
        "versions offered. Options are matched across versions by their text.",
    )
    text = TextOnlyField(allow_blank=True, help_text="The option's text.")
    correct = serializers.BooleanField(
        help_text="Whether the newest version offering the option marks it correct."
    )
    count = serializers.IntegerField(
        help_text="Responses that picked this option, each read against the choices of the "
        "version it was answered on."
    )
    rate = serializers.FloatField(
        help_text="count / the question's `responses` (every scored response in scope, those "
        "that picked nothing included). A multiple-choice response counts towards each "
        "option it picked, so rates may sum past 1."
    )


class CriterionAgreementSerializer(serializers.Serializer[dict[str, Any]]):
    criterion = TextOnlyField(help_text="The criterion's name in the rubric.")
    levels = serializers.IntegerField(
        help_text="Its number of levels k; a criterion is one scale per (name, k), from the "
        "rubric of the version each answer was marked on."
    )
    pairs = serializers.IntegerField(help_text="Double-marked answers rated on this criterion.")
    kappa = serializers.FloatField(allow_null=True, help_text=KAPPA)
    kappa_note = serializers.ChoiceField(choices=KAPPA_NOTES, allow_null=True, help_text=KAPPA_NOTE)
    mean_abs_difference = serializers.FloatField(
        help_text="Mean |first level - second level| over the pairs."
    )
    disagreement_rate = serializers.FloatField(help_text="Share of pairs whose levels differ.")


class AgreementSerializer(serializers.Serializer[dict[str, Any]]):
    pairs = serializers.IntegerField(
        help_text="Answers with a first and a second mark among the attempts in scope, "
        "whatever their marking state (disagreements awaiting moderation included)."
    )
    kappa = serializers.FloatField(
        allow_null=True,
        help_text=f"{KAPPA} Pooled over every criterion, only when all share one number of levels.",
    )
    kappa_note = serializers.ChoiceField(choices=KAPPA_NOTES, allow_null=True, help_text=KAPPA_NOTE)
    criteria = CriterionAgreementSerializer(
        many=True, help_text="One row per criterion scale, most disputed first."
    )


class QuestionStatsSerializer(serializers.Serializer[dict[str, Any]]):
    question = serializers.IntegerField(help_text="Question id (every version together).")
    title = TextOnlyField(help_text="Title of the newest version answered.")
    type = TextOnlyField()
    responses = serializers.IntegerField(
        help_text="n: scored responses to the question in the graded attempts in scope."
    )
    omitted = serializers.IntegerField(
        allow_null=True,
        help_text="Choice questions: responses that picked no option (counted in the rates' "
        "denominator); null for other types.",
    )
    mean_time_s = serializers.FloatField(
        allow_null=True, help_text="Mean seconds credited by autosaves, over answers with any."
    )
    facility = serializers.FloatField(
        allow_null=True,
        help_text="Mean share of the question's marks earned, over its n responses "
        "(0: nobody scored, 1: everybody got full marks).",
    )
    discrimination_index = serializers.FloatField(
        allow_null=True,
        help_text="Upper/lower 27%: rank the n responses by their attempt's total (points, "
        "before any retake penalty; equal totals by attempt id, the earlier lower); take "
        "g = round(27n/100), halves up, at least 1; D = mean facility of the top g - mean of "
        "the bottom g. Null below 2 responses.",
    )
    item_total_correlation = serializers.FloatField(
        allow_null=True,
        help_text="Corrected item-total r: Pearson correlation of the points earned on the "
        "question with the rest of the attempt (total minus those points), over its n "
        "responses. Null below 2 responses or when either side has no spread.",
    )
    choices = OptionRateSerializer(
        many=True,
        help_text="Option rates of a choice question (empty for other types), in the newest "
        "version's order, options only older versions offered last.",
    )
    agreement = AgreementSerializer(
        allow_null=True, help_text="Marker agreement on a viva question; null with no pair."
    )


class DistributionBinSerializer(serializers.Serializer[dict[str, Any]]):
    to = serializers.IntegerField(help_text="Upper bound in percent (exclusive, except 100).")
    count = serializers.IntegerField(
        help_text="Graded attempts in scope whose score / maximum, computed on the exact "
        "decimals, lies in [from, to); 100% counts in the last bin."
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # `from` is a keyword, so it cannot be declared as a class attribute.
        lower = serializers.IntegerField(help_text="Lower bound in percent (inclusive).")
        return {"from": lower, **super().get_fields()}


class QuizStatisticsSerializer(serializers.Serializer[dict[str, Any]]):
    quiz = serializers.IntegerField()
    scope = serializers.ChoiceField(
        choices=AttemptScope.choices,
        help_text="`all`: every attempt; `first`: each student's first attempt in time, "
        "whatever its state (a retake never stands in for a first attempt still being marked).",
    )
    attempts = serializers.IntegerField(
        help_text="Graded attempts in scope: the item analysis and the distribution use these."
    )
    attempts_not_graded = serializers.IntegerField(
        help_text="Attempts in scope left out of the item analysis because they are in "
        "progress or still wait for the runner or a marker (their double marks still count "
        "towards agreement)."
    )
    mean_percentage = serializers.FloatField(
        allow_null=True, help_text="Mean of score / maximum × 100 over the graded attempts."
    )
    median_percentage = serializers.FloatField(
        allow_null=True, help_text="Median of the same percentages (mean of the middle two)."
    )
    mean_time_s = serializers.FloatField(
        allow_null=True, help_text="Mean seconds from start to submit of the graded attempts."
    )
    distribution = DistributionBinSerializer(many=True, help_text="Ten bins of 10 points.")
    questions = QuestionStatsSerializer(many=True)
