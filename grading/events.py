"""Signals for grading's writes that model signals do not see, so apps on top (the LMS
integration) can react without grading importing them.

`scores_regraded` is sent inside the transaction of a regrade chunk that changed scores
(bulk writes send no `post_save`), with `run` (the RegradeRun), `changes` (the saved
ScoreChange rows, each with its `response`) and `attempts` (the re-totalled attempts
those changes belong to, one each). Receivers that act after the commit use
`transaction.on_commit`. A chunk that changed no score sends nothing.
"""

from django.dispatch import Signal

scores_regraded = Signal()
