"""Synthetic code for the contamination detector (F5): challenge files, a reference corpus,
and planted copies whose answer is known.

``make_code_tables`` is what the demo and the tests call: it returns the two optional raw
tables (``challenge_files``, ``reference_corpus``) for given challenge ids, with planted
copies of reference documents in some challenges (verbatim, renamed, reformatted or
partially copied) and pairs of challenges that share most of their code, plus the truth.
Everything is a pure function of the seed.

The code is Python-like text generated from a small grammar (functions, statements and
randomly nested expressions over a vocabulary of identifiers), varied enough that
independently generated documents share few token shingles, as independent real code
does. The copy transformations work on the same token grammar as the SQL lexer
(``macros/detectors/code_tokens.sql``), which ``TOKEN_PATTERN`` mirrors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta

import numpy as np
import pyarrow as pa

COPY_KINDS = ("verbatim", "renamed", "reformatted", "partial")
# The lexer of macros/detectors/code_tokens.sql, alternative for alternative (ASCII classes).
TOKEN_PATTERN = re.compile(
    r"/\*[\s\S]*?\*/|//[^\n]*|#[^\n]*|\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''"
    r"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`"
    r"|\d[\w.]*|[A-Za-z_$][\w$]*|\S",
    re.ASCII,
)


def _words(text: str) -> tuple[str, ...]:
    """The white-space separated words of `text`."""
    return tuple(text.split())


KEYWORDS = frozenset(
    _words(
        """False None True abstract and as assert async await bool boolean break byte case catch
    char class const continue def default defer del delete do double elif else enum except
    export extends false final finally float fn for from func function global go goto if impl
    implements import in instanceof int interface is lambda let long loop map match mod mut
    namespace new nil nonlocal not null or package pass private protected pub public raise
    range return self short static str string struct super switch this throw throws trait
    true try type typeof undefined unsigned use using var void while with yield"""
    )
)
CHALLENGE_FILES_SCHEMA = pa.schema(
    [("challenge_id", pa.string()), ("file_path", pa.string()), ("content", pa.string())]
)
REFERENCE_CORPUS_SCHEMA = pa.schema(
    [
        ("document_id", pa.string()),
        ("source", pa.string()),
        ("content", pa.string()),
        ("published_at", pa.date32()),
    ]
)
PLANTED_CONTAMINATION_SCHEMA = pa.schema(
    [
        ("challenge_id", pa.string()),
        ("file_path", pa.string()),
        ("document_id", pa.string()),
        ("copy_kind", pa.string()),
        ("expected_match_level", pa.string()),
        ("published_at", pa.date32()),
    ]
)
PLANTED_INSTANCE_OVERLAP_SCHEMA = pa.schema(
    [("challenge_a", pa.string()), ("challenge_b", pa.string())]
)
SOURCES = ("public-code-sample", "popular-repositories", "earlier-public-challenges")
DEFAULT_PUBLISHED_AT = date(2024, 12, 1)
PARTIAL_COPY_SHARE = 0.7  # share of the document's tokens a partial copy takes
PARTIAL_NEW_SHARE = 0.1  # new tokens a partial copy adds, as a share of the document's tokens

_WORDS = _words(
    """account active address amount append apply archive array audit balance batch
bucket buffer build cache cancel capacity cart channel chunk client close cluster column
commit config connect context counter cursor customer daily delta digest discount draft
driver entry error event expire export factor feature fetch field filter flag format frame
gateway graph group handle header health history index input invoice item journal key label
launch ledger limit line listen loader local lookup margin match member merge message meter
metric mode module monitor node notice offset order owner packet page parse partner payload
pending period pixel policy pool port price queue quota range rate record region render
report request reserve result retry route sample scale schema score search secret segment
sender session shard signal slot snapshot source split stage state status store stream
submit summary supply table target task tenant ticket timer token total trace track trade
update upload user value vector vendor version window worker"""
)
_NEW_WORDS = _words(
    """alpha bravo cedar delta ember fjord garnet harbor iris juniper kestrel lumen
maple nimbus onyx pylon quartz raven sierra tundra umber velvet willow xenon yarrow zephyr
amber basil cobalt dune"""
)
_BINARY_OPERATORS = ("+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "and", "or")
_AUGMENTED = ("+=", "-=", "*=")
_NEED_SPACE_BEFORE_SLASH_OR_STAR = ("/", "*")
_WORD = re.compile(r"[\w$]", re.ASCII)


def _identifier(rng: np.random.Generator, words: Sequence[str] = _WORDS) -> str:
    """A snake_case or camelCase name of one to three words."""
    parts = [str(words[i]) for i in rng.integers(0, len(words), size=int(rng.integers(1, 4)))]
    if rng.random() < 0.3:
        return parts[0] + "".join(part.title() for part in parts[1:])
    return "_".join(parts)


def _literal(rng: np.random.Generator) -> str:
    """A number or a short string literal."""
    roll = rng.random()
    if roll < 0.4:
        return str(int(rng.integers(0, 1000)))
    if roll < 0.55:
        return f"{rng.random() * 100:.2f}"
    quote = '"' if rng.random() < 0.5 else "'"
    return quote + " ".join(_identifier(rng) for _ in range(int(rng.integers(1, 4)))) + quote


def _expression(rng: np.random.Generator, names: list[str], depth: int = 0) -> str:
    """A randomly nested expression over `names`."""
    roll = rng.random() if depth < 3 else rng.random() * 0.45
    if roll < 0.25:
        return str(names[int(rng.integers(0, len(names)))])
    if roll < 0.45:
        return _literal(rng)
    if roll < 0.6:
        arguments = ", ".join(
            _expression(rng, names, depth + 1) for _ in range(int(rng.integers(0, 4)))
        )
        return f"{_identifier(rng)}({arguments})"
    if roll < 0.7:
        return f"{names[int(rng.integers(0, len(names)))]}.{_identifier(rng)}"
    if roll < 0.85:
        operator = _BINARY_OPERATORS[int(rng.integers(0, len(_BINARY_OPERATORS)))]
        left = _expression(rng, names, depth + 1)
        right = _expression(rng, names, depth + 1)
        expression = f"{left} {operator} {right}"
        return f"({expression})" if rng.random() < 0.4 else expression
    if roll < 0.93:
        index = _expression(rng, names, depth + 1)
        return f"{names[int(rng.integers(0, len(names)))]}[{index}]"
    items = ", ".join(_expression(rng, names, depth + 1) for _ in range(int(rng.integers(1, 4))))
    return f"[{items}]"


def _block(rng: np.random.Generator, names: list[str], indent: int, length: int) -> list[str]:
    """`length` statements (compound ones with nested blocks) at `indent` levels."""
    pad = "    " * indent
    lines: list[str] = []
    for _ in range(length):
        roll = rng.random()
        if roll < 0.3:
            name = _identifier(rng)
            lines.append(f"{pad}{name} = {_expression(rng, names)}")
            names.append(name)
        elif roll < 0.4:
            augmented = _AUGMENTED[int(rng.integers(0, len(_AUGMENTED)))]
            target = names[int(rng.integers(0, len(names)))]
            lines.append(f"{pad}{target} {augmented} {_expression(rng, names)}")
        elif roll < 0.52:
            lines.append(f"{pad}{_identifier(rng)}({_expression(rng, names)})")
        elif roll < 0.6:
            lines.append(f"{pad}# {' '.join(_identifier(rng) for _ in range(3))}")
        elif roll < 0.72 and indent < 3:
            lines.append(f"{pad}if {_expression(rng, names)}:")
            lines.extend(_block(rng, names, indent + 1, int(rng.integers(1, 4))))
            if rng.random() < 0.4:
                lines.append(f"{pad}else:")
                lines.extend(_block(rng, names, indent + 1, int(rng.integers(1, 3))))
        elif roll < 0.82 and indent < 3:
            variable = _identifier(rng)
            lines.append(f"{pad}for {variable} in {_expression(rng, names)}:")
            lines.extend(_block(rng, [*names, variable], indent + 1, int(rng.integers(1, 4))))
        elif roll < 0.88 and indent < 3:
            lines.append(f"{pad}while {_expression(rng, names)}:")
            lines.extend(_block(rng, names, indent + 1, int(rng.integers(1, 3))))
        else:
            lines.append(f"{pad}return {_expression(rng, names)}")
    return lines


def generate_code(rng: np.random.Generator, functions: int = 3, statements: int = 6) -> str:
    """A Python-like module: `functions` functions of about `statements` statements each."""
    lines: list[str] = []
    if rng.random() < 0.7:
        lines.append(f"import {_identifier(rng)}")
        lines.append("")
    for _ in range(functions):
        parameters = [_identifier(rng) for _ in range(int(rng.integers(1, 4)))]
        lines.append(f"def {_identifier(rng)}({', '.join(parameters)}):")
        lines.append(f'    """{" ".join(_identifier(rng) for _ in range(4))}."""')
        lines.extend(_block(rng, parameters, 1, statements + int(rng.integers(-2, 3))))
        lines.append("")
    return "\n".join(lines)


def tokens(text: str) -> list[str]:
    """The SQL lexer's tokens of `text` (macros/detectors/code_tokens.sql), in order."""
    return TOKEN_PATTERN.findall(text)


def raw_tokens(text: str) -> list[str]:
    """Tokens as written, white space folded (macros/detectors/code_raw_tokens.sql)."""
    return [
        re.sub(r"[\t\n\v\f\r ]+", " ", token).strip(" ") if token[0] in "\"'`#/" else token
        for token in tokens(text)
    ]


def normalised_tokens(text: str) -> list[str]:
    """Comments dropped, identifiers ID, literals LIT (code_normalised_tokens.sql)."""
    normalised = []
    for token in tokens(text):
        first = token[0]
        if token.startswith(("#", "//", "/*")):
            continue
        if first in "\"'`" or first.isdigit():
            normalised.append("LIT")
        elif first.isascii() and (first.isalpha() or first in "_$"):
            normalised.append(token if token in KEYWORDS else "ID")
        else:
            normalised.append(token)
    return normalised


def rename_identifiers(text: str, rng: np.random.Generator) -> str:
    """Copy with every identifier renamed consistently, string literals rewritten and
    comments reworded: the raw tokens change, the normalised tokens do not."""
    mapping: dict[str, str] = {}
    used: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        first = token[0]
        if first.isascii() and (first.isalpha() or first in "_$"):
            if token in KEYWORDS:
                return token
            if token not in mapping:
                candidate = _identifier(rng, _NEW_WORDS)
                while candidate in used or candidate in KEYWORDS:
                    candidate = f"{candidate}_{len(used)}"
                used.add(candidate)
                mapping[token] = candidate
            return mapping[token]
        if first in "\"'" and not token.startswith(('"""', "'''")):
            return first + " ".join(_identifier(rng, _NEW_WORDS) for _ in range(2)) + first
        if first == "#":
            return "# " + " ".join(_identifier(rng, _NEW_WORDS) for _ in range(3))
        return token

    return TOKEN_PATTERN.sub(replace, text)


def _needs_space(previous: str, following: str) -> bool:
    """Whether two adjacent tokens would lex differently without white space between them."""
    if _WORD.match(previous[-1]) and _WORD.match(following[0]):
        return True
    if previous[0].isdigit() and (following[0] == "." or _WORD.match(following[0])):
        return True
    if previous[-1] == "/" and following[0] in _NEED_SPACE_BEFORE_SLASH_OR_STAR:
        return True
    if previous[-1] == "*" and following[0] == "/":
        return True
    # a quote or backtick next to another could start a different string literal
    return previous[-1] in "\"'`" and following[0] in "\"'`"


def reformat_whitespace(text: str, rng: np.random.Generator) -> str:
    """Copy with only white space changed (indent width, spacing, blank lines, trailing
    spaces): the token sequence, hence every shingle, is unchanged."""
    indent_unit = ["  ", "\t", "   "][int(rng.integers(0, 3))]
    pieces: list[str] = []
    previous: str | None = None
    position = 0
    for match in TOKEN_PATTERN.finditer(text):
        gap = text[position : match.start()]
        token = match.group(0)
        if previous is None:
            pieces.append(gap)
        elif "\n" in gap:
            indent = len(gap.rsplit("\n", 1)[1].expandtabs(4)) // 4
            trailing = " " * int(rng.integers(0, 3))  # the lexer trims it off comments
            blank = "\n" if rng.random() < 0.15 else ""
            pieces.append(trailing + "\n" * gap.count("\n") + blank + indent_unit * indent)
        elif gap == "" and not _WORD.match(previous[-1]) and not _WORD.match(token[0]):
            pieces.append("")  # keep multi-character operators such as '>=' together
        else:
            spacing = " " * int(rng.integers(0, 3))
            if not spacing and _needs_space(previous, token):
                spacing = " "
            pieces.append(spacing)
        pieces.append(token)
        previous = token
        position = match.end()
    pieces.append(text[position:])
    return "".join(pieces)


def partial_copy(text: str, rng: np.random.Generator) -> str:
    """Copy of a contiguous run of lines holding PARTIAL_COPY_SHARE of the text's tokens,
    plus new code worth PARTIAL_NEW_SHARE of them (Jaccard with the original about
    0.7 / 1.1). Sized in tokens, not characters: the shingles the detectors compare are
    runs of tokens, and a long comment or string line holds many characters but few."""
    lines = text.split("\n")
    sizes = np.array([len(tokens(line)) for line in lines], dtype=float)
    wanted = PARTIAL_COPY_SHARE * sizes.sum()
    starts = [i for i in range(len(lines)) if sizes[i:].sum() >= wanted] or [0]
    start = starts[int(rng.integers(0, len(starts)))]
    stop = start + int(np.searchsorted(np.cumsum(sizes[start:]), wanted)) + 1
    extra: list[str] = []
    for line in generate_code(rng).split("\n"):
        if sum(len(tokens(kept)) for kept in extra) >= PARTIAL_NEW_SHARE * sizes.sum():
            break
        extra.append(line)
    return "\n".join([*lines[start:stop], "", *extra])


def copy_code(text: str, kind: str, rng: np.random.Generator) -> str:
    """A planted copy of `text` of the given kind (one of COPY_KINDS)."""
    if kind == "verbatim":
        return text
    if kind == "renamed":
        return rename_identifiers(text, rng)
    if kind == "reformatted":
        return reformat_whitespace(text, rng)
    if kind == "partial":
        return partial_copy(text, rng)
    raise ValueError(f"unknown copy kind {kind!r}; expected one of {COPY_KINDS}")


def _instance_variant(text: str, rng: np.random.Generator) -> str:
    """Another instance's copy of a codebase file: one identifier substituted everywhere
    (a template variable) and one line in ten replaced (Jaccard typically 0.6-0.8)."""
    names = sorted({t for t in tokens(text) if t[0].isalpha() and t not in KEYWORDS})
    if names:
        old = names[int(rng.integers(0, len(names)))]
        text = re.sub(rf"\b{re.escape(old)}\b", _identifier(rng, _NEW_WORDS), text)
    lines = text.split("\n")
    for index in rng.choice(len(lines), size=max(1, len(lines) // 10), replace=False):
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
        lines[index] = f"{indent}{_identifier(rng)} = {_literal(rng)}"
    return "\n".join(lines)


def _default_plan(challenge_ids: Sequence[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """First challenge verbatim, second renamed; the next two share their code."""
    if len(challenge_ids) < 4:
        raise ValueError("the default plan needs at least four challenge ids")
    planted = {challenge_ids[0]: "verbatim", challenge_ids[1]: "renamed"}
    return planted, [(challenge_ids[2], challenge_ids[3])]


def make_code_tables(
    challenge_ids: Sequence[str],
    seed: int,
    planted: Mapping[str, str] | None = None,
    shared_instances: Sequence[tuple[str, str]] | None = None,
    files_per_challenge: int = 2,
    reference_documents: int = 40,
    published_at: date = DEFAULT_PUBLISHED_AT,
    templates: Mapping[str, str] | None = None,
) -> dict[str, pa.Table]:
    """Raw `challenge_files` and `reference_corpus` tables with planted copies, and truth.

    planted: challenge id -> copy kind (COPY_KINDS): the challenge's first file is a copy
        of a reference document published on `published_at` (default: the first id
        verbatim, the second renamed, and the third and fourth sharing their code).
    shared_instances: pairs of challenge ids whose codebases are near-duplicates (the
        second is a variant of the first; neither may be planted).
    templates: challenge id -> template id; challenges of one template share a small
        scaffold file (as templated instances do), which alone is not a near-duplicate.
    Returns {'challenge_files', 'reference_corpus', 'planted_contamination',
    'planted_instance_overlap'}; the last two are the truth.
    """
    if planted is None and shared_instances is None:
        planted, shared_instances = _default_plan(challenge_ids)
    planted = dict(planted or {})
    shared_instances = list(shared_instances or [])
    known = set(challenge_ids)
    unknown = sorted(({*planted} | {c for pair in shared_instances for c in pair}) - known)
    if unknown:
        raise ValueError(f"planted or shared challenge ids not in challenge_ids: {unknown}")
    bad_kinds = sorted({kind for kind in planted.values() if kind not in COPY_KINDS})
    if bad_kinds:
        raise ValueError(f"unknown copy kinds {bad_kinds}; expected {COPY_KINDS}")
    variants = {second: first for first, second in shared_instances}
    shared = [challenge for pair in shared_instances for challenge in pair]
    if len(shared) != len(set(shared)) or set(shared) & set(planted):
        raise ValueError("a shared instance must be neither planted nor in two pairs")
    if files_per_challenge < 1:
        raise ValueError("files_per_challenge must be >= 1")

    rng = np.random.default_rng(seed)
    scaffolds = {
        template: generate_code(rng, functions=1, statements=3)
        for template in sorted(set((templates or {}).values()))
    }
    corpus: list[dict[str, object]] = []
    for index in range(reference_documents):
        corpus.append(
            {
                "document_id": f"ref-{index + 1:05d}",
                "source": SOURCES[index % len(SOURCES)],
                "content": generate_code(rng),
                "published_at": date(2023, 1, 1) + timedelta(days=int(rng.integers(0, 1095))),
            }
        )
    files: dict[str, list[tuple[str, str]]] = {}
    truth: list[dict[str, object]] = []
    for challenge_id in challenge_ids:
        if challenge_id in variants:
            continue
        contents = [generate_code(rng) for _ in range(files_per_challenge)]
        if challenge_id in planted:
            kind = planted[challenge_id]
            document_id = f"ref-planted-{len(truth) + 1:03d}"
            original = generate_code(rng)
            corpus.append(
                {
                    "document_id": document_id,
                    "source": SOURCES[0],
                    "content": original,
                    "published_at": published_at,
                }
            )
            contents[0] = copy_code(original, kind, rng)
            truth.append(
                {
                    "challenge_id": challenge_id,
                    "file_path": "src/main.py",
                    "document_id": document_id,
                    "copy_kind": kind,
                    "expected_match_level": "normalised_only" if kind == "renamed" else "raw",
                    "published_at": published_at,
                }
            )
        paths = ["src/main.py", *(f"src/module_{i}.py" for i in range(1, files_per_challenge))]
        files[challenge_id] = list(zip(paths, contents, strict=True))
    for first, second in shared_instances:
        files[second] = [(path, _instance_variant(content, rng)) for path, content in files[first]]
    rows: list[dict[str, str]] = []
    for challenge_id in challenge_ids:
        challenge_files = list(files[challenge_id])
        template = (templates or {}).get(challenge_id)
        if template is not None:
            challenge_files.append(("src/scaffold.py", scaffolds[template]))
        rows.extend(
            {"challenge_id": challenge_id, "file_path": path, "content": content}
            for path, content in challenge_files
        )
    pairs = [
        {"challenge_a": min(first, second), "challenge_b": max(first, second)}
        for first, second in shared_instances
    ]
    return {
        "challenge_files": pa.Table.from_pylist(rows, schema=CHALLENGE_FILES_SCHEMA),
        "reference_corpus": pa.Table.from_pylist(corpus, schema=REFERENCE_CORPUS_SCHEMA),
        "planted_contamination": pa.Table.from_pylist(truth, schema=PLANTED_CONTAMINATION_SCHEMA),
        "planted_instance_overlap": pa.Table.from_pylist(
            pairs, schema=PLANTED_INSTANCE_OVERLAP_SCHEMA
        ),
    }
