"""API clients, their hashed tokens and token use, and external identities.

An API client acts through a service account (`ApiClient.user`): its course
memberships decide, through `quizbank.access`, which courses the client reaches,
exactly as for a person. Its tokens add scopes on top (config/scopes.py).
"""

from django.conf import settings
from django.db import models


class ApiClient(models.Model):
    name = models.CharField(max_length=100, unique=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_client"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name

    @property
    def namespace(self) -> str:
        """Where this client's external ids live: each client has its own."""
        return f"client:{self.pk}"


class ApiToken(models.Model):
    client = models.ForeignKey(ApiClient, on_delete=models.CASCADE, related_name="tokens")
    # The first characters of the token, to tell tokens apart; the rest is only hashed.
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)  # None: until revoked
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… of {self.client}"


class TokenUse(models.Model):
    """One authenticated request made with a client token."""

    token = models.ForeignKey(ApiToken, on_delete=models.CASCADE, related_name="uses")
    at = models.DateTimeField()
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    address = models.CharField(max_length=64, blank=True)

    class Meta:
        indexes = [models.Index(fields=["token", "at"], name="token_use_by_time")]

    def __str__(self) -> str:
        return f"{self.method} {self.path} at {self.at:%Y-%m-%d %H:%M:%S}"


class ExternalIdentity(models.Model):
    """A user's id in an outside system: an API client's namespace or an LTI issuer."""

    namespace = models.CharField(max_length=300)
    external_id = models.CharField(max_length=255)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="external_identities"
    )
    # The client deactivated the account itself, so it may reactivate it; an account
    # deactivated anywhere else (Vivabank's admin) stays so for the client.
    deactivated_by_client = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "external identities"
        constraints = [
            models.UniqueConstraint(fields=["namespace", "external_id"], name="unique_external_id"),
            models.UniqueConstraint(fields=["namespace", "user"], name="one_external_id_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.external_id} in {self.namespace}"


class LtiNonceUse(models.Model):
    """The nonce of every accepted LTI launch: a second launch with it is a replay."""

    issuer = models.CharField(max_length=255)
    nonce = models.CharField(max_length=255)
    used_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "nonce"], name="unique_lti_nonce"),
        ]

    def __str__(self) -> str:
        return f"nonce {self.nonce[:12]} of {self.issuer}"


class LtiCourseGrant(models.Model):
    """A course an LTI platform registration may launch users into (set by an admin)."""

    registration = models.ForeignKey(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="+"
    )
    course = models.ForeignKey("quizbank.Course", on_delete=models.CASCADE, related_name="+")
    context_id = models.CharField(
        max_length=255,
        blank=True,
        help_text="Only launches from this LMS course (its LTI context id) may open the "
        "course; empty: learners launching from any of the platform's courses, and no "
        "instructor.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["registration", "course"], name="unique_lti_grant"),
        ]

    def __str__(self) -> str:
        return f"{self.registration} may launch into {self.course}"


class LtiPlatformKeys(models.Model):
    """The platform's public keys pasted at registration instead of its JWKS URL: a JWKS
    document or one PEM public key (lms.services.platform_keys reads them)."""

    registration = models.OneToOneField(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="+"
    )
    text = models.TextField()

    def __str__(self) -> str:
        return f"pasted keys of {self.registration}"


class LtiLineItem(models.Model):
    """A platform gradebook column for a quiz, learnt from a launch's AGS claim."""

    registration = models.ForeignKey(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="+"
    )
    quiz = models.ForeignKey("quizbank.Quiz", on_delete=models.CASCADE, related_name="+")
    url = models.URLField(max_length=1000)
    scopes = models.JSONField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["registration", "url"], name="unique_lti_line_item"),
        ]

    def __str__(self) -> str:
        return self.url


class SyncStatus(models.TextChoices):
    PENDING = "pending", "Waiting to be sent"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed (re-send it)"


class LtiScoreSync(models.Model):
    """One student's score on one line item: what must be sent, and what was."""

    line_item = models.ForeignKey(LtiLineItem, on_delete=models.CASCADE, related_name="syncs")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=8, choices=SyncStatus.choices, default=SyncStatus.PENDING)
    tries = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    updated_at = models.DateTimeField()
    # The score last accepted by the platform and the time it stands for: an older one is
    # never sent over it.
    sent_payload = models.JSONField(null=True, blank=True)
    sent_as_of = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["line_item", "user"], name="unique_lti_score_sync"),
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.line_item}: {self.status}"


class LtiRosterSource(models.Model):
    """Where a platform lists a course's members (NRPS), learnt from a launch."""

    registration = models.ForeignKey(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="+"
    )
    course = models.ForeignKey("quizbank.Course", on_delete=models.CASCADE, related_name="+")
    memberships_url = models.URLField(max_length=1000)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["registration", "course"], name="unique_lti_roster_source"
            ),
        ]

    def __str__(self) -> str:
        return self.memberships_url


class WebhookEvent(models.TextChoices):
    ATTEMPT_SUBMITTED = "attempt.submitted", "An attempt was submitted"
    ATTEMPT_GRADED = "attempt.graded", "An attempt was fully graded"
    GRADES_RELEASED = "grades.released", "A quiz's results were released"
    MARK_CHANGED = "mark.changed", "An answer's mark changed"


class WebhookSubscription(models.Model):
    """An API client's endpoint for some events of the courses it examines."""

    client = models.ForeignKey(ApiClient, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=1000)
    events = models.JSONField(default=list)
    # Signs each delivery (HMAC-SHA256); shown once, when the subscription is made.
    secret = models.CharField(max_length=64)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.client} -> {self.url}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Waiting or retrying"
    DELIVERED = "delivered", "Delivered (2xx)"
    FAILED = "failed", "Gave up"


class WebhookDelivery(models.Model):
    """One event for one subscription; its id stays the same on every retry."""

    subscription = models.ForeignKey(
        WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    delivery_id = models.UUIDField(unique=True)
    event = models.CharField(max_length=32, choices=WebhookEvent.choices)
    # What makes two events the same (e.g. "attempt.submitted:12"), so none is queued twice.
    dedupe_key = models.CharField(max_length=200)
    payload = models.JSONField()
    status = models.CharField(
        max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    tries = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "dedupe_key"], name="unique_webhook_event"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} {self.delivery_id}: {self.status}"
