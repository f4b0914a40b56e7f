"""Question interchange: Moodle XML, GIFT and QTI to and from the bank's own question dicts.

A converter only converts: it reads bytes into drafts (each a question dict in the
bank-file format of docs/bank-format.md) and a list of what it could not keep, or
writes questions out as bytes. Validation and storage are the bank's own
(`quizbank.services.interchange`); docs/interchange.md says what maps to what.
"""
