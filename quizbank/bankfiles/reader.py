"""Reading a bank folder: every file parsed and validated before anything is written."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizbank.assets import AssetRefused, asset_digest, check_question_total, checked_image
from quizbank.bankfiles import schema
from quizbank.bankfiles.bank import BankHeader, read_header
from quizbank.bankfiles.canonical import canonicalize
from quizbank.bankfiles.codefiles import check_python, file_kind, missing_files
from quizbank.bankfiles.questions import validate_question
from quizbank.bankfiles.source import (
    FieldPath,
    Issue,
    NotText,
    YamlSyntaxError,
    field_name,
    load_yaml,
    read_text,
)
from runner.contract import GENERATOR_FILE

# progress(stage, done, total), stage being "read" or "written".
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class QuestionFile:
    """One question as read from disk, already in canonical form."""

    topic: str
    slug: str
    path: Path
    content: dict[str, Any]
    # The bytes of the images in content["assets"], by sha256.
    images: dict[str, bytes] = field(default_factory=dict)


@dataclass
class ParsedBank:
    header: BankHeader | None = None
    questions: list[QuestionFile] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def error_line(path: Path, line: int, field_path: FieldPath, message: str) -> str:
    return f"{path}:{line} {field_name(field_path)}: {message}"


def read_bank(root: Path, *, progress: Progress | None = None) -> ParsedBank:
    """Parse and validate a whole bank folder; `errors` lists every problem found."""
    bank = ParsedBank()
    bank_file = root / schema.BANK_FILE
    if not root.is_dir():
        bank.errors.append(f"{root}: not a folder")
        return bank
    if not bank_file.is_file():
        bank.errors.append(f"{bank_file}:1 (file): a bank needs bank.yaml")
        return bank
    links = _links_in(root)
    if links:  # nothing else is read: a link could pull in a file from outside the bank
        bank.errors.extend(
            f"{link}:1 (file): is a symbolic link; a bank holds plain files and folders only"
            for link in links
        )
        return bank
    header, errors = read_header(bank_file)
    bank.header = header
    bank.errors.extend(errors)
    locations = _question_locations(root, header, bank.errors)
    for done, (topic, slug, location) in enumerate(locations, start=1):
        question = _read_question(topic, slug, location, bank.errors)
        if question is not None:
            bank.questions.append(question)
        if progress is not None:
            progress("read", done, len(locations))
    return bank


def _links_in(root: Path) -> list[Path]:
    """Every symbolic link below `root` (not followed)."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        found.extend(
            Path(folder, name) for name in [*dirs, *files] if Path(folder, name).is_symlink()
        )
    return sorted(found)


def _visible(path: Path) -> bool:
    return not path.name.startswith(".") and path.name != "__pycache__"


def _question_locations(
    root: Path, header: BankHeader | None, errors: list[str]
) -> list[tuple[str, str, Path]]:
    folders = sorted(path for path in root.iterdir() if _visible(path) and path.is_dir())
    for extra in sorted(path for path in root.iterdir() if _visible(path) and path.is_file()):
        if extra.name != schema.BANK_FILE and extra.suffix in (".yaml", ".yml"):
            errors.append(f"{extra}:1 (file): questions belong in a topic folder")
    if header is not None:
        _check_topic_folders(root, header, folders, errors)
    locations: list[tuple[str, str, Path]] = []
    seen: dict[str, Path] = {}
    for folder in folders:
        for entry in sorted(path for path in folder.iterdir() if _visible(path)):
            slug = _slug_of(entry, errors)
            if slug is not None and slug in seen:
                errors.append(f"{entry}:1 (file): the slug {slug} is also used by {seen[slug]}")
            elif slug is not None:
                seen[slug] = entry
                locations.append((folder.name, slug, entry))
    return locations


def _check_topic_folders(
    root: Path, header: BankHeader, folders: list[Path], errors: list[str]
) -> None:
    bank_file = root / schema.BANK_FILE
    listed = [topic.slug for topic in header.topics]
    for folder in folders:
        if folder.name not in listed:
            errors.append(f"{bank_file}:1 topics: the folder {folder.name}/ is not a listed topic")
    for topic in header.topics:
        if not (root / topic.slug).is_dir():
            errors.append(
                f"{bank_file}:{topic.line} topics: topic {topic.slug} has no folder {topic.slug}/"
            )


def _slug_of(entry: Path, errors: list[str]) -> str | None:
    if entry.is_dir():
        slug = entry.name
        if not (entry / schema.QUESTION_FILE).is_file():
            errors.append(f"{entry}: a question folder needs {schema.QUESTION_FILE}")
            return None
    elif entry.suffix == ".yaml":
        slug = entry.stem
    else:
        errors.append(f"{entry}:1 (file): a topic folder holds only <slug>.yaml files and folders")
        return None
    if not schema.SLUG_RE.match(slug) or len(slug) > schema.MAX_QUESTION_SLUG:
        errors.append(
            f"{entry}:1 (file): {slug!r} is not a slug: use lowercase letters, digits and hyphens"
        )
        return None
    return slug


def _read_question(topic: str, slug: str, entry: Path, errors: list[str]) -> QuestionFile | None:
    yaml_path = entry / schema.QUESTION_FILE if entry.is_dir() else entry
    try:
        loaded = load_yaml(read_text(yaml_path))
    except (YamlSyntaxError, NotText) as exc:
        errors.append(error_line(yaml_path, exc.line, (), exc.message))
        return None
    parameterised = entry.is_dir() and (entry / GENERATOR_FILE).is_file()
    issues = [*loaded.issues, *validate_question(loaded.data, parameterised=parameterised)]
    files = _read_code_files(entry, loaded.data, errors) if entry.is_dir() else {}
    images = read_images(entry / schema.ASSETS_FOLDER, errors)
    qtype = loaded.data.get("type") if isinstance(loaded.data, dict) else None
    for problem in missing_files(str(qtype), list(files)):
        issues.append(Issue(("files",), problem))
    for issue in issues:
        line = loaded.source.line(issue.path)
        errors.append(error_line(yaml_path, line, issue.path, issue.message))
    if issues or not isinstance(loaded.data, dict):
        return None
    assets = {name: digest for name, (digest, _) in images.items()}
    content = canonicalize({**loaded.data, "files": files, "assets": assets})
    blobs = dict(images.values())
    return QuestionFile(topic=topic, slug=slug, path=yaml_path, content=content, images=blobs)


def _read_code_files(folder: Path, data: object, errors: list[str]) -> dict[str, str]:
    entry_point = data.get("entry_point") if isinstance(data, dict) else None
    files: dict[str, str] = {}
    kept = (schema.QUESTION_FILE, schema.ASSETS_FOLDER)
    entries = (p for p in folder.iterdir() if _visible(p) and p.name not in kept)
    for path in sorted(entries):
        kind = file_kind(path.name)
        if kind is None or not path.is_file():
            errors.append(
                f"{path}:1 (file): a question folder holds question.yaml, reference.py, "
                "correct_<name>.py, wrong_<name>.py, generate.py and assets/ only"
            )
            continue
        try:
            source = read_text(path)
        except NotText as exc:
            errors.append(f"{path}:{exc.line} (file): {exc.message}")
            continue
        problem = check_python(path.name, source, defines=_must_define(kind, entry_point))
        if problem is not None:
            errors.append(f"{path}:{problem[0]} {path.name}: {problem[1]}")
        files[path.name] = source
    return files


def _must_define(kind: str, entry_point: object) -> str | None:
    """What a file must define: a reference or correct alternative the entry point, a generator
    `generate`; a wrong solution nothing (leaving it out may be its mistake)."""
    if kind == "generator":
        return "generate"
    if kind in ("reference", "correct") and isinstance(entry_point, str):
        return entry_point
    return None


def read_images(folder: Path, errors: list[str]) -> dict[str, tuple[str, bytes]]:
    """The images of a question folder's assets/ (quizbank.assets rules): (sha256, bytes)
    by file name; each one refused is an error line."""
    if not folder.is_dir():
        return {}
    images: dict[str, tuple[str, bytes]] = {}
    for path in sorted(p for p in folder.iterdir() if _visible(p)):
        try:
            if not path.is_file():
                raise AssetRefused("assets/ holds image files only")
            data = path.read_bytes()
            checked_image(path.name, data)
        except AssetRefused as exc:
            errors.append(f"{path}:1 (file): {exc}")
            continue
        images[path.name] = (asset_digest(data), data)
    try:
        check_question_total([len(data) for _, data in images.values()])
    except AssetRefused as exc:
        errors.append(f"{folder}:1 (folder): {exc}")
    return images
