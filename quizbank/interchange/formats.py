"""The interchange formats by name: which converter reads and which writes each."""

from __future__ import annotations

from collections.abc import Callable

from quizbank.interchange.gift import read_gift
from quizbank.interchange.gift_export import write_gift
from quizbank.interchange.moodle_export import write_moodle_xml
from quizbank.interchange.moodle_xml import read_moodle_xml
from quizbank.interchange.qti import read_qti
from quizbank.interchange.qti_export import write_qti_package
from quizbank.interchange.report import Conversion, Draft, Exported

Reader = Callable[[bytes], Conversion]
Writer = Callable[[list[Draft], str], Exported]

READERS: dict[str, Reader] = {"moodle": read_moodle_xml, "gift": read_gift, "qti": read_qti}
WRITERS: dict[str, Writer] = {
    "moodle": write_moodle_xml,
    "gift": write_gift,
    "qti": write_qti_package,
}
EXTENSIONS = {"moodle": "xml", "gift": "gift.txt", "qti": "zip"}
FORMATS = tuple(READERS)
FORMAT_NAMES = {"moodle": "Moodle XML", "gift": "GIFT", "qti": "QTI 2.1/3.0 item or package"}
