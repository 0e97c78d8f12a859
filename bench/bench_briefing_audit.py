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
                f"'{ROOT / 'seeds' / name}.csv', all_varchar = true, header = true)"
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
    split = parser.parse_args().split
    rows = load(split)
    texts = [row["text"] for row in rows]
    result = {"split": split, "before": scores(rows, seed_flags(texts))}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
