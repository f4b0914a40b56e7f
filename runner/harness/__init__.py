"""The comparison harness: cases, inputs, child-side runs, payloads, verdicts.

`child.run_request` runs inside the sandboxed child; `scoring.score_job` runs
in the trusted supervisor and decides every verdict from data.
"""
