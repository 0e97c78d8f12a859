"""Independent reference for the contamination detector (F5), written differently from the
SQL: a character-by-character scanner instead of a regular expression, Python tuple sets
instead of 64-bit shingle hashes, pandas + scipy for the publication-date comparison."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

WHITESPACE = " \t\n\f\r"  # RE2's \s (no vertical tab)
IDENTIFIER_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
IDENTIFIER_PART = IDENTIFIER_START | set("0123456789")
NUMBER_PART = IDENTIFIER_PART - {"$"} | {"."}
_KEYWORD_TEXT = (
    "False None True abstract and as assert async await bool boolean break byte case catch "
    "char class const continue def default defer del delete do double elif else enum except "
    "export extends false final finally float fn for from func function global go goto if "
    "impl implements import in instanceof int interface is lambda let long loop map match mod "
    "mut namespace new nil nonlocal not null or package pass private protected pub public "
    "raise range return self short static str string struct super switch this throw throws "
    "trait true try type typeof undefined unsigned use using var void while with "
    "yield"
)
KEYWORDS = frozenset(_KEYWORD_TEXT.split())


def _quoted_end(text: str, start: int, quote: str, stop_at_newline: bool) -> int | None:
    """End (exclusive) of the quoted literal opening at `start`, or None if unterminated."""
    position = start + 1
    while position < len(text):
        character = text[position]
        if character == "\\":
            if position + 1 < len(text) and text[position + 1] != "\n":
                position += 2
                continue
            return None
        if character == quote:
            return position + 1
        if character == "\n" and stop_at_newline:
            return None
        position += 1
    return None


def scan_tokens(text: str) -> list[str]:
    """Tokens of `text`: comments, strings, numbers, identifiers, single characters."""
    found: list[str] = []
    position = 0
    while position < len(text):
        character = text[position]
        if character in WHITESPACE:
            position += 1
            continue
        end: int | None = None
        if text.startswith("/*", position):
            close = text.find("*/", position + 2)
            end = close + 2 if close >= 0 else None
        if end is None and (text.startswith("//", position) or character == "#"):
            newline = text.find("\n", position)
            end = newline if newline >= 0 else len(text)
        for triple in ('"""', "'''"):
            if end is None and text.startswith(triple, position):
                close = text.find(triple, position + 3)
                end = close + 3 if close >= 0 else None
        if end is None and character in "\"'":
            end = _quoted_end(text, position, character, stop_at_newline=True)
        if end is None and character == "`":
            end = _quoted_end(text, position, character, stop_at_newline=False)
        if end is None and character.isascii() and character.isdigit():
            end = position + 1
            while end < len(text) and text[end] in NUMBER_PART:
                end += 1
        if end is None and character in IDENTIFIER_START:
            end = position + 1
            while end < len(text) and text[end] in IDENTIFIER_PART:
                end += 1
        if end is None:
            end = position + 1
        found.append(text[position:end])
        position = end
    return found


def raw_tokens(text: str) -> list[str]:
    """Tokens as written, white space inside comments and strings folded, comments trimmed."""
    folded = []
    for token in scan_tokens(text):
        if token[0] in "\"'`#/":
            token = re.sub(r"[\t\n\x0b\f\r ]+", " ", token).strip(" ")
        folded.append(token)
    return folded


def normalised_tokens(text: str) -> list[str]:
    """Comments dropped, identifiers -> ID (keywords kept), literals -> LIT."""
    result = []
    for token in scan_tokens(text):
        if token[0] == "#" or token[:2] in ("//", "/*"):
            continue
        if token[0] in "\"'`" or (token[0].isascii() and token[0].isdigit()):
            result.append("LIT")
        elif token[0] in IDENTIFIER_START:
            result.append(token if token in KEYWORDS else "ID")
        else:
            result.append(token)
    return result


def shingle_set(tokens: list[str], size: int = 5) -> set[tuple[str, ...]]:
    """Distinct runs of `size` consecutive tokens."""
    return {tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}


def jaccard(a: set[Any], b: set[Any]) -> float:
    """|A n B| / |A u B| (NaN for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else float("nan")


def publication_effect(
    tables: dict[str, pd.DataFrame], challenge_id: str, published_at: date, alpha: float
) -> dict[str, float]:
    """Post- minus pre-publication mean of model-ability-adjusted scores on a challenge,
    Welch's t test and interval from scipy.stats.ttest_ind on the adjusted scores."""
    attempts = tables["attempts"].dropna(subset=["score"])
    attempts = attempts.merge(tables["agents"], on="agent_id").merge(
        tables["models"], on="model_id"
    )
    attempts["residual"] = attempts["score"] - attempts.groupby("challenge_id")["score"].transform(
        "mean"
    )
    elsewhere = attempts[attempts["challenge_id"] != challenge_id]
    ability = elsewhere.groupby("model_id")["residual"].mean().rename("ability")
    here = attempts[attempts["challenge_id"] == challenge_id].join(ability, on="model_id")
    here = here.dropna(subset=["ability", "training_cutoff"])
    here["adjusted"] = here["score"] - here["ability"]
    cutoff = pd.to_datetime(here["training_cutoff"])
    post = here.loc[cutoff > pd.Timestamp(published_at), "adjusted"].to_numpy()
    pre = here.loc[cutoff <= pd.Timestamp(published_at), "adjusted"].to_numpy()
    test = stats.ttest_ind(post, pre, equal_var=False)
    interval = test.confidence_interval(1 - alpha)
    return {
        "post_publication_attempts": float(post.size),
        "pre_publication_attempts": float(pre.size),
        "difference": float(np.mean(post) - np.mean(pre)),
        "degrees_of_freedom": float(test.df),
        "t_statistic": float(test.statistic),
        "p_value": float(test.pvalue),
        "ci_low": float(interval.low),
        "ci_high": float(interval.high),
    }
