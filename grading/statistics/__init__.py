"""Item analysis and marker agreement: pure functions over plain numbers, plus a report."""
