"""The runner's benchmark (`manage.py runner_bench`): figures printed, never asserted."""
