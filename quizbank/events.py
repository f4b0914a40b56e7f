"""Signals for the bank's writes that apps on top react to, without the bank importing them.

`quiz_terms_changed` is sent inside the transaction of a write that can move when a
student's attempt must end (a quiz's schedule, time limit or grace period, or a student's
override), with `quiz`, `user_ids` (the students concerned; None: all of the quiz's) and
`grace_before` (the grace period the attempts ran under until now).
Grading moves the deadlines of the open attempts to match.
"""

from django.dispatch import Signal

quiz_terms_changed = Signal()
