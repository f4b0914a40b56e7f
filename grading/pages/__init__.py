"""Examiners' browser pages: thin views over grading's services, rendered by the server."""
