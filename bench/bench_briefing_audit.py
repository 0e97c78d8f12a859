"""Precision and recall of the briefing audits on the labelled set (issue 33).

A briefing counts as flagged when the locale audit (fct_briefing_locale_findings) or the
domain audit (fct_briefing_domain_assumptions, flagged rows) has a finding on it. Positives
are the briefings labelled `assumption`; the `explained` hard negatives and the `neutral`
briefings are negatives. `before`: the seed rules alone, matched with DuckDB's RE2 exactly as
the marts match them (a rule's match is no finding when its specification or definition
regex matches). `after`: what the marts report now (seed rules, library findings, jargon,
definitions recognised), through the same functions the UDFs call.

    .venv/bin/python bench/bench_briefing_audit.py [--split dev|test|all]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import duckdb
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
LABELLED = ROOT / "tests" / "fixtures" / "briefing_labelled_set.json"
SEEDS = ROOT / "seeds"


def load(split: str = "all") -> list[dict[str, str]]:
    """The labelled briefings of one split (dev, test) or all."""
    rows: list[dict[str, str]] = json.loads(LABELLED.read_text(encoding="utf-8"))
    return [row for row in rows if split == "all" or row["split"] == split]


def seed_flags(texts: list[str]) -> list[bool]:
    """Whether the seed rules (locale or domain, RE2 as in the marts) flag each text."""
    briefings = pd.DataFrame({"briefing_id": range(len(texts)), "briefing_text": texts})
    with duckdb.connect() as connection:
        connection.register("briefings", briefings)
        for name in ("briefing_locale_rules", "briefing_domain_terms"):
            connection.execute(
                f"create table {name} as select * from read_csv("
                f"'{SEEDS / name}.csv', all_varchar = true, header = true)"
            )
        flagged = connection.sql(
            """
            select distinct briefing_id from briefings, briefing_locale_rules as rules
            where regexp_matches(briefing_text, rules.regex)
                and not coalesce(regexp_matches(briefing_text, rules.specification_regex), false)
            union
            select distinct briefing_id from briefings, briefing_domain_terms as terms
            where regexp_matches(briefing_text, terms.regex)
                and not coalesce(regexp_matches(briefing_text, terms.definition_regex), false)
            """
        ).fetchall()
    ids = {row[0] for row in flagged}
    return [k in ids for k in range(len(texts))]


def _positions(text: str, matches: list[str]) -> list[tuple[int, int]]:
    """The (start, end) of each of RE2's leftmost, non-overlapping matches, in order."""
    spans, start = [], 0
    for matched in matches:
        if not matched:
            continue
        position = text.index(matched, start)
        start = position + len(matched)
        spans.append((position, start))
    return spans


def seed_after(
    texts: list[str], locale_rules: Path | None = None
) -> tuple[list[bool], list[set[str]], list[list[tuple[int, int]]]]:
    """The seed rules as the marts apply them now: a locale rule's unspecified match that
    the briefing does not explain (span_explained), a curated domain term defined neither
    by its definition regex nor in the briefing's own words; with the curated terms'
    matched texts of each briefing, and the spans jargon may not overlap (every locale
    rule match, specified or not, and every curated mention), as the domain mart drops
    them. `locale_rules`: the locale rules seed the marts were built with (the package's
    by default; var `briefing_locale_rules_seed`)."""
    from challenge_fairness.detectors.briefing_text import is_defined, span_explained

    rules_csv = locale_rules or SEEDS / "briefing_locale_rules.csv"
    briefings = pd.DataFrame({"briefing_id": range(len(texts)), "briefing_text": texts})
    with duckdb.connect() as connection:
        connection.register("briefings", briefings)
        for name, path in (
            ("briefing_locale_rules", rules_csv),
            ("briefing_domain_terms", SEEDS / "briefing_domain_terms.csv"),
        ):
            connection.execute(
                f"create table {name} as select * from read_csv("
                f"'{path}', all_varchar = true, header = true)"
            )
        locale = connection.sql(
            """
            select briefing_id, briefing_text, rules.category,
                regexp_extract_all(briefing_text, rules.regex),
                coalesce(regexp_matches(briefing_text, rules.specification_regex), false)
            from briefings, briefing_locale_rules as rules
            where regexp_matches(briefing_text, rules.regex)
            """
        ).fetchall()
        domain = connection.sql(
            """
            select briefing_id, briefing_text, regexp_extract_all(briefing_text, terms.regex),
                coalesce(regexp_matches(briefing_text, terms.definition_regex), false)
            from briefings, briefing_domain_terms as terms
            where regexp_matches(briefing_text, terms.regex)
            """
        ).fetchall()
    flags = [False] * len(texts)
    curated: list[set[str]] = [set() for _ in texts]
    spans: list[list[tuple[int, int]]] = [[] for _ in texts]
    for k, text, category, matches, specified in locale:
        for start, end in _positions(text, matches):
            spans[k].append((start, end))
            if not specified and not span_explained(text, category, start + 1, text[start:end]):
                flags[k] = True
    for k, text, matched, defined in domain:
        curated[k].update(m.lower() for m in matched)
        spans[k].extend(_positions(text, matched))
        if not defined and not is_defined(text, matched[0]):
            flags[k] = True
    return flags, curated, spans


def after_flags(
    texts: list[str],
    max_zipf: float | None = None,
    acronym_max_zipf: float | None = None,
    locale_rules: Path | None = None,
) -> list[bool]:
    """Whether the marts flag each text now (seed rules, library findings, jargon); a rare
    term is jargon as fct_briefing_domain_assumptions keeps it: undefined, no curated term
    of the briefing and overlapping no curated mention or locale rule match."""
    from challenge_fairness.detectors import briefing_text as audit

    words = audit.JARGON_MAX_ZIPF if max_zipf is None else max_zipf
    acronyms = audit.JARGON_ACRONYM_MAX_ZIPF if acronym_max_zipf is None else acronym_max_zipf
    flags, curated, spans = seed_after(texts, locale_rules)
    result = []
    for text, flag, terms, taken in zip(texts, flags, curated, spans, strict=True):
        jargon = [
            t
            for t in audit.jargon_terms(text, words, acronyms)
            if not t.is_defined
            and t.term.lower() not in terms
            and not any(
                start < t.match_position - 1 + len(t.term) and t.match_position - 1 < end
                for start, end in taken
            )
        ]
        result.append(flag or bool(audit.locale_findings(text)) or bool(jargon))
    return result


def sweep(rows: list[dict[str, str]]) -> list[tuple[float, float, float, float, float]]:
    """(word threshold, acronym threshold, precision, recall, F1) over a grid."""
    texts = [row["text"] for row in rows]
    grid = []
    for words in (1.5, 2.0, 2.25, 2.5, 2.75, 3.0):
        for acronyms in (2.0, 2.5, 2.75, 3.0, 3.25):
            result = scores(rows, after_flags(texts, words, acronyms))
            precision, recall = float(result["precision"]), float(result["recall"])  # type: ignore[arg-type]
            f1 = 2 * precision * recall / (precision + recall)
            grid.append((words, acronyms, precision, recall, f1))
    return grid


def scores(rows: list[dict[str, str]], flags: list[bool]) -> dict[str, object]:
    """Precision, recall, counts, and recall and false positives per kind."""
    tp = sum(f and r["label"] == "assumption" for r, f in zip(rows, flags, strict=True))
    fp = sum(f and r["label"] != "assumption" for r, f in zip(rows, flags, strict=True))
    fn = sum(not f and r["label"] == "assumption" for r, f in zip(rows, flags, strict=True))
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for row, flag in zip(rows, flags, strict=True):
        counts = per_kind[row["kind"]]
        if row["label"] == "assumption":
            counts[0] += flag
            counts[1] += 1
        else:
            counts[2] += flag
            counts[3] += 1
    return {
        "briefings": len(rows),
        "positives": tp + fn,
        "true_positives": tp,
        "false_positives": fp,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "per_kind": {
            kind: f"recall {c[0]}/{c[1]}, false positives {c[2]}/{c[3]}"
            for kind, c in sorted(per_kind.items())
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="all", choices=("dev", "test", "all"))
    parser.add_argument("--sweep", action="store_true", help="jargon thresholds, on the split")
    arguments = parser.parse_args()
    rows = load(arguments.split)
    texts = [row["text"] for row in rows]
    if arguments.sweep:
        for words, acronyms, precision, recall, f1 in sweep(rows):
            print(f"{words:5.2f} {acronyms:5.2f}  P {precision:.3f}  R {recall:.3f}  F1 {f1:.3f}")
        return
    result = {
        "split": arguments.split,
        "before": scores(rows, seed_flags(texts)),
        "after": scores(rows, after_flags(texts)),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
