"""The bank file format (docs/bank-format.md): reading, validation, canonical form, writing."""

from quizbank.bankfiles.bank import BankHeader, TopicEntry
from quizbank.bankfiles.canonical import canonical_text, canonicalize, content_hash
from quizbank.bankfiles.questions import validate_question
from quizbank.bankfiles.reader import ParsedBank, QuestionFile, read_bank
from quizbank.bankfiles.writer import QuestionOut, dump_yaml, write_bank

__all__ = [
    "BankHeader",
    "ParsedBank",
    "QuestionFile",
    "QuestionOut",
    "TopicEntry",
    "canonical_text",
    "canonicalize",
    "content_hash",
    "dump_yaml",
    "read_bank",
    "validate_question",
    "write_bank",
]
