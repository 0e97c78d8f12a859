"""Briefing audit end to end: locale findings and domain assumptions (dbt build on fixtures).

One build of a copy of the project with a consumer's own rule and review seeds (vars
`briefing_locale_rules_seed`, `briefing_finding_reviews_seed`), every briefing a table-driven
case of tests/audit_fixtures.py (expected rule ids and matched texts exactly; positions from
Python's code-point indices), plus random briefings with planted tokens at known positions.
One build without the `briefing_text` column: empty marts, coverage rows say so.
"""

from __future__ import annotations

import csv
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import audit_fixtures
import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform
from challenge_fairness.detectors.briefing_text import span_explained
from challenge_fairness.gate import validate_suite
from conftest import REPO_ROOT, compile_inline, read_table, run_dbt
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(REPO_ROOT / "bench"))
import bench_briefing_audit  # noqa: E402

pytestmark = pytest.mark.dbt
SEEDS = REPO_ROOT / "seeds"
# Library findings (maintained data) and jargon: (text, [(rule_id, matched)], jargon terms
# flagged); with the consumer's overrides below (Diwali silenced, phone numbers reworded).
LIBRARY_CASES: tuple[tuple[str, tuple[tuple[str, str], ...], tuple[str, ...]], ...] = (
    ("No deliveries on Boxing Day.", (("named_holiday", "Boxing Day"),), ()),
    ("No deliveries on Boxing Day (26 December).", (), ()),
    ("Staff double before Diwali.", (), ()),  # silenced by the consumer's override
    ("Call the desk at 020 7946 0958.", (("national_phone_number", "020 7946 0958"),), ()),
    ("Tickets cost 120 kr for adults.", (("cldr_currency_amount", "120 kr"),), ()),
    ("The tank holds 12 gallons (45 litres).", (), ()),
    ("Store the BSN of every tenant.", (("national_identifier", "BSN"),), ()),
    ("Map each line to its HCPCS code.", (), ("HCPCS",)),
    ("Map each line to its HCPCS (Healthcare Common Procedure Coding System) code.", (), ()),
    ("Make it GDPR compliant: GDPR means users can export and erase their data.", (), ()),
)
PHONE_REWORDED = "A national phone number: ask for E.164."
OVERRIDES = [
    {"rule_id": "named_holiday", "matched_text": "diwali", "action": "silence"},
    {"rule_id": "national_phone_number", "action": "reword", "description": PHONE_REWORDED},
]
RANDOM_BRIEFINGS = 12
RANDOM_TOKENS = (
    ("ambiguous_numeric_date", "03/04/2025"),
    ("currency_symbol_amount", "$20"),
    ("imperial_unit", "5 miles"),
    ("us_phone_number", "(555) 123-4567"),
)
FILLER = "éñ漢字😀ü "  # no rule can match these characters


def random_briefings(seed: int = 3) -> list[tuple[str, list[tuple[str, str, int]]]]:
    """Briefings of filler with planted tokens: (text, [(rule_id, text, 1-based position)])."""
    rng = np.random.default_rng(seed)
    briefings = []
    for _ in range(RANDOM_BRIEFINGS):
        text, planted = "", []
        for _ in range(int(rng.integers(1, 6))):
            text += "".join(rng.choice(list(FILLER), size=int(rng.integers(1, 12))))
            rule_id, token = RANDOM_TOKENS[int(rng.integers(len(RANDOM_TOKENS)))]
            text += " "
            planted.append((rule_id, token, len(text) + 1))
            text += token + " "
        briefings.append((text + "ü", planted))
    return briefings


def copy_project(destination: Path) -> Path:
    """A copy of the dbt project (models, macros, seeds, tests config) to add seeds to."""
    for name in ("models", "macros", "seeds", "data_tests"):
        shutil.copytree(REPO_ROOT / name, destination / name)
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy(REPO_ROOT / name, destination / name)
    (destination / "python_udfs").symlink_to(REPO_ROOT / "python_udfs")
    return destination


def write_consumer_seeds(project: Path, reviews: list[dict[str, str]]) -> None:
    """The consumer's own locale rules (the package's plus one) and reviews, typed as text."""
    with (SEEDS / "briefing_locale_rules.csv").open(encoding="utf-8") as source:
        rows = list(csv.reader(source))
    with (project / "seeds" / "my_locale_rules.csv").open("w", encoding="utf-8", newline="") as out:
        csv.writer(out, lineterminator="\n").writerows([*rows, list(audit_fixtures.EXTRA_RULE)])
    columns = ["challenge_id", "rule_id", "matched_text", "reviewed_by", "decision", "note"]
    pd.DataFrame(reviews, columns=columns).to_csv(project / "seeds" / "my_reviews.csv", index=False)
    override_columns = [
        "rule_id",
        "matched_text",
        "action",
        "description",
        "suggested_neutral_form",
        "note",
    ]
    pd.DataFrame(OVERRIDES, columns=override_columns).to_csv(
        project / "seeds" / "my_overrides.csv", index=False
    )
    text_types = {
        "my_locale_rules": rows[0],
        "my_reviews": columns,
        "my_overrides": override_columns,
    }
    yaml = "version: 2\nseeds:\n" + "".join(
        f"  - name: {name}\n    config:\n      column_types:\n"
        + "".join(f"        {column}: varchar\n" for column in names)
        for name, names in text_types.items()
    )
    (project / "seeds" / "_my_seeds.yml").write_text(yaml, encoding="utf-8")


@pytest.fixture(scope="module")
def briefing_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("briefing_audit")
    cases = [
        *audit_fixtures.LOCALE_CASES,
        audit_fixtures.EXTRA_CASE,
    ]
    randoms = random_briefings()
    domain = audit_fixtures.DOMAIN_CASES
    labelled = bench_briefing_audit.load("test")
    n = len(cases) + len(randoms) + len(domain) + len(LIBRARY_CASES) + len(labelled)
    platform = generate_platform(
        PlatformSpec(
            seed=3,
            n_attempts=500,
            n_templates=0,
            n_standalone_challenges=n,
            planted_family_biases=(),
            planted_hard_combinations=(),
        )
    )
    challenges = platform.tables["challenges"]
    ids = challenges.column("challenge_id").to_pylist()
    texts = (
        [c[0] for c in cases]
        + [r[0] for r in randoms]
        + [d[0] for d in domain]
        + [c[0] for c in LIBRARY_CASES]
        + [row["text"] for row in labelled]
    )
    competitive = {ids[0], ids[1]}  # case 0 reviewed, case 1 not
    tags = [
        list(t or []) + (["competitive"] if c in competitive else [])
        for c, t in zip(ids, challenges.column("tags").to_pylist(), strict=True)
    ]
    challenges = challenges.set_column(
        challenges.schema.get_field_index("tags"), "tags", pa.array(tags, pa.list_(pa.string()))
    ).append_column("briefing_text", pa.array(texts, pa.string()))
    tables = {**platform.tables, "challenges": challenges}
    database = work / "briefing.duckdb"
    audit_fixtures.write_platform(tables, database)
    project = copy_project(work / "project")
    reviews = [
        {
            "challenge_id": ids[0],
            "rule_id": "ambiguous_numeric_date",
            "matched_text": "03/04/2025",
            "reviewed_by": "reviewer@example.org",
            "decision": "accepted",
            "note": "the task is about US invoices",
        },
        {  # matches no finding: the text differs
            "challenge_id": ids[1],
            "rule_id": "ambiguous_numeric_date",
            "matched_text": "3.4.2026",
            "reviewed_by": "reviewer@example.org",
            "decision": "false_positive",
            "note": "",
        },
    ]
    write_consumer_seeds(project, reviews)
    run = run_dbt(
        ["build", "--indirect-selection", "cautious", "--select", *audit_fixtures.AUDIT_SELECTOR],
        database=database,
        work_dir=work,
        project_dir=project,
        dbt_vars={
            "briefing_locale_rules_seed": "my_locale_rules",
            "briefing_finding_reviews_seed": "my_reviews",
            "briefing_audit_overrides_seed": "my_overrides",
        },
    )
    assert run.success, run.output
    return {
        "database": database,
        "locale_rules": project / "seeds" / "my_locale_rules.csv",
        "ids": ids,
        "cases": cases,
        "randoms": randoms,
        "domain": domain,
        "offset_random": len(cases),
        "offset_domain": len(cases) + len(randoms),
        "offset_library": len(cases) + len(randoms) + len(domain),
        "labelled": labelled,
        "offset_labelled": len(cases) + len(randoms) + len(domain) + len(LIBRARY_CASES),
    }


def findings(build: dict[str, Any]) -> pd.DataFrame:
    return read_table(build["database"], "select * from main.fct_briefing_locale_findings")


def test_every_locale_case_gives_exactly_its_expected_findings_at_exact_positions(
    briefing_build: dict[str, Any],
) -> None:
    found = findings(briefing_build)
    for index, (text, expected) in enumerate(briefing_build["cases"]):
        challenge_id = briefing_build["ids"][index]
        rows = found[found.challenge_id == challenge_id].sort_values("match_position")
        actual = list(zip(rows.rule_id, rows.matched_text, strict=True))
        positions, start = [], 0
        for _, matched in sorted(expected, key=lambda e: text.index(e[1])):
            start = text.index(matched, start)
            positions.append(start + 1)
            start += len(matched)
        expected_sorted = sorted(expected, key=lambda e: text.index(e[1]))
        # repeated identical matches keep their own positions
        assert sorted(actual) == sorted(expected), (text, actual)
        assert sorted(rows.match_position.tolist()) == sorted(positions), text
        for row in rows.itertuples():
            assert text[
                row.match_position - 1 : row.match_position - 1 + len(row.matched_text)
            ] == (row.matched_text)
            assert row.matched_text in row.context and row.context in text
        assert len(expected_sorted) == len(rows)


def test_random_briefings_report_every_planted_token_at_its_position(
    briefing_build: dict[str, Any],
) -> None:
    found = findings(briefing_build)
    for k, (_, planted) in enumerate(briefing_build["randoms"]):
        challenge_id = briefing_build["ids"][briefing_build["offset_random"] + k]
        rows = found[found.challenge_id == challenge_id]
        actual = sorted(zip(rows.rule_id, rows.matched_text, rows.match_position, strict=True))
        assert actual == sorted(planted)


def test_neutral_and_specified_briefings_produce_no_finding(
    briefing_build: dict[str, Any],
) -> None:
    found = findings(briefing_build)
    quiet = [
        briefing_build["ids"][i]
        for i, (_, expected) in enumerate(briefing_build["cases"])
        if not expected
    ]
    assert len(quiet) >= 9
    assert not found.challenge_id.isin(quiet).any()


def test_reviews_seed_marks_findings_reviewed_and_competitive_needs_review(
    briefing_build: dict[str, Any],
) -> None:
    found = findings(briefing_build).set_index("challenge_id")
    first, second = briefing_build["ids"][0], briefing_build["ids"][1]
    assert bool(found.loc[first, "is_reviewed"]) and found.loc[first, "review_decision"] == (
        "accepted"
    )
    assert bool(found.loc[first, "is_competitive"]) and not bool(found.loc[first, "needs_review"])
    assert not bool(found.loc[second, "is_reviewed"]) and bool(found.loc[second, "needs_review"])
    others = found.drop(index=[first, second])
    assert not others.is_reviewed.any() and not others.needs_review.any()


def test_consumer_rule_seed_extends_the_rules(briefing_build: dict[str, Any]) -> None:
    """The consumer's seed adds uk_postcode: among the fixture briefings it finds exactly
    the planted SW1A 1AA; among the labelled ones exactly the matches of its regex that the
    briefing does not explain (a UK address stated), each in place of the library's address
    finding on that span (a seed rule's finding overrides the libraries')."""
    found = findings(briefing_build)
    ids = briefing_build["ids"]
    labelled = briefing_build["labelled"]
    offset = briefing_build["offset_labelled"]
    labelled_ids = ids[offset : offset + len(labelled)]
    extra = found[found.rule_id == "uk_postcode"]
    planted = extra[~extra.challenge_id.isin(labelled_ids)]
    assert planted.matched_text.tolist() == ["SW1A 1AA"]
    assert planted.challenge_id.tolist() == [ids[len(audit_fixtures.LOCALE_CASES)]]
    rule_id, category, regex = audit_fixtures.EXTRA_RULE[:3]
    matches = [
        (ids[offset + k], row["text"], m.group(), m.start() + 1)
        for k, row in enumerate(labelled)
        for m in re.finditer(regex, row["text"])
    ]
    expected = sorted(
        (challenge_id, matched, position)
        for challenge_id, text, matched, position in matches
        if not span_explained(text, category, position, matched)
    )
    assert 0 < len(expected) < len(matches)  # reported ones and explained ones
    reported = extra[extra.challenge_id.isin(labelled_ids)]
    actual = zip(reported.challenge_id, reported.matched_text, reported.match_position, strict=True)
    assert sorted(actual) == expected
    library = found[found.rule_id == "country_address_format"]
    for challenge_id, matched, position in expected:
        overlapping = library[
            (library.challenge_id == challenge_id)
            & (library.match_position < position + len(matched))
            & (position < library.match_position + library.matched_text.str.len())
        ]
        assert overlapping.empty, (rule_id, matched)


def test_domain_terms_flagged_only_without_definition(briefing_build: dict[str, Any]) -> None:
    found = read_table(
        briefing_build["database"], "select * from main.fct_briefing_domain_assumptions"
    )
    found = found[found.term_source == "curated"]
    assert (found.severity == "high").all() and found.zipf_frequency.isna().all()
    offset = briefing_build["offset_domain"]
    expected = {
        (briefing_build["ids"][offset + k], term, flagged)
        for k, (_, term, flagged) in enumerate(briefing_build["domain"])
    }
    library = briefing_build["ids"][briefing_build["offset_library"] :]
    found = found[~found.challenge_id.isin(library)]
    actual = set(zip(found.challenge_id, found.term_id, found.is_flagged, strict=True))
    assert actual == expected
    for row in found.itertuples():
        text = briefing_build["domain"][briefing_build["ids"].index(row.challenge_id) - offset][0]
        assert text.index(row.matched_text) + 1 == row.match_position


def test_library_findings_jargon_overrides_and_definitions(briefing_build: dict[str, Any]) -> None:
    """Each library case gives exactly its library findings (source not seed_rule) and its
    flagged jargon; the consumer's overrides silence Diwali and reword phone numbers; a
    curated term defined in the briefing's own words is not flagged."""
    locale = findings(briefing_build)
    domain = read_table(
        briefing_build["database"], "select * from main.fct_briefing_domain_assumptions"
    )
    offset = briefing_build["offset_library"]
    for k, (text, expected, jargon) in enumerate(LIBRARY_CASES):
        challenge_id = briefing_build["ids"][offset + k]
        rows = locale[locale.challenge_id == challenge_id]
        assert sorted(zip(rows.rule_id, rows.matched_text, strict=True)) == sorted(expected), text
        assert (rows.source != "seed_rule").all()
        for row in rows.itertuples():
            assert text[row.match_position - 1 :].startswith(row.matched_text)
            if row.rule_id == "national_phone_number":
                assert row.rule_description == PHONE_REWORDED
        terms = domain[(domain.challenge_id == challenge_id) & domain.is_flagged]
        assert sorted(terms.matched_text) == sorted(jargon), text
        candidates = domain[
            (domain.challenge_id == challenge_id) & (domain.term_source == "word_frequency")
        ]
        assert (candidates.severity == "candidate").all()
        assert (candidates.zipf_frequency < 3.0).all()
        assert sorted(candidates.rarity_rank) == list(range(1, len(candidates) + 1))
    gdpr = domain[
        (domain.challenge_id == briefing_build["ids"][offset + len(LIBRARY_CASES) - 1])
        & (domain.term_id == "gdpr")
    ]
    assert len(gdpr) == 1 and not gdpr.is_flagged.iloc[0]


def test_marts_flag_the_labelled_briefings_as_the_bench_reports(
    briefing_build: dict[str, Any],
) -> None:
    """The held-out split of the labelled set through the marts: a briefing is flagged
    exactly when bench/bench_briefing_audit.py says so with the locale rules seed the marts
    were built with (the consumer's: the package's and uk_postcode), so its numbers are the
    marts'."""
    locale = findings(briefing_build)
    domain = read_table(
        briefing_build["database"], "select * from main.fct_briefing_domain_assumptions"
    )
    flagged = set(locale.challenge_id) | set(domain.challenge_id[domain.is_flagged])
    labelled = briefing_build["labelled"]
    offset = briefing_build["offset_labelled"]
    marts = [briefing_build["ids"][offset + k] in flagged for k in range(len(labelled))]
    texts = [row["text"] for row in labelled]
    bench = bench_briefing_audit.after_flags(texts, locale_rules=briefing_build["locale_rules"])
    assert bench == bench_briefing_audit.after_flags(texts)  # uk_postcode adds no flag here
    assert marts == bench
    result = bench_briefing_audit.scores(labelled, marts)
    assert result["precision"] >= 0.94 and result["recall"] >= 0.80, result


def test_locale_gate_suite_fails_naming_the_unreviewed_competitive_finding(
    briefing_build: dict[str, Any],
) -> None:
    found = findings(briefing_build)
    failed = validate_suite("briefings_locale_neutral", found, {}, "error")
    assert len(failed) == 1 and not failed[0]["success"] and failed[0]["failing_rows"] == 1
    second = briefing_build["ids"][1]
    assert f"competitive challenge '{second}'" in failed[0]["failure_message"]
    assert "'3.4.2025'" in failed[0]["failure_message"]
    fair = found[~found.needs_review]
    passed = validate_suite("briefings_locale_neutral", fair, {}, "error")
    assert passed[0]["success"] and passed[0]["failure_message"] is None


def test_without_briefing_text_the_marts_are_empty_and_coverage_says_so(tmp_path: Path) -> None:
    tables, _ = audit_fixtures.audit_platform(n_attempts=500)
    database = tmp_path / "no_briefings.duckdb"
    audit_fixtures.write_platform(
        tables, database, drop=("challenges.briefing_text", "rubric_items", "rubric_scores")
    )
    run = run_dbt(
        ["build", "--indirect-selection", "cautious", "--select", *audit_fixtures.AUDIT_SELECTOR],
        database=database,
        work_dir=tmp_path,
    )
    assert run.success, run.output
    for mart in (
        "fct_briefing_locale_findings",
        "fct_briefing_domain_assumptions",
        "fct_rubric_item_bias",
        "fct_rubric_style_lint",
    ):
        assert read_table(database, f"select count(*) as n from main.{mart}").n[0] == 0, mart
    coverage = read_table(
        database,
        """select * exclude (mart) from main.fct_detector_coverage
        where detector in (
            'briefing_locale', 'briefing_domain_assumptions', 'rubric_item_bias',
            'rubric_style_lint'
        )""",
    ).set_index("detector")
    assert not coverage.is_available.any() and (coverage.rows_analysed == 0).all()
    assert coverage.loc["briefing_locale", "missing_inputs"] == (
        "optional source column absent: challenges.briefing_text"
    )
    assert coverage.loc["rubric_item_bias", "missing_inputs"] == (
        "optional source tables absent: rubric_items, rubric_scores"
    )
    assert coverage.loc["rubric_style_lint", "missing_inputs"] == (
        "optional source table absent: rubric_items"
    )


def test_a_run_scans_only_new_changed_or_differently_scanned_briefings(tmp_path: Path) -> None:
    """int_briefing_texts_scanned keeps a stored scan while the briefing and what scans it
    (scanned_with) are unchanged, scans again an edited briefing, an upgraded scanner's rows
    and every briefing under other jargon thresholds, and drops a briefing that is gone;
    then every row is the scan of its text (equal to a full refresh)."""
    from challenge_fairness.detectors import briefing_text

    texts = [case[0] for case in LIBRARY_CASES]
    platform = generate_platform(
        PlatformSpec(
            seed=5,
            n_attempts=300,
            n_templates=0,
            n_standalone_challenges=len(texts),
            planted_family_biases=(),
            planted_hard_combinations=(),
        )
    )
    challenges = platform.tables["challenges"]
    ids = challenges.column("challenge_id").to_pylist()
    challenges = challenges.append_column("briefing_text", pa.array(texts, pa.string()))
    database = tmp_path / "scans.duckdb"
    audit_fixtures.write_platform({**platform.tables, "challenges": challenges}, database)
    select = ["run", "--select", "+int_briefing_texts_scanned"]

    def scans() -> pd.DataFrame:
        return read_table(
            database, "select * from intermediate.int_briefing_texts_scanned order by all"
        ).set_index("challenge_id")

    run = run_dbt(select, database=database, work_dir=tmp_path)
    assert run.success, run.output
    first = scans()
    assert sorted(first.index) == sorted(ids)
    # a stored scan that no run would write: kept only if the run does not scan again
    # Boxing Day (a holiday), a phone number, Boxing Day explained (no finding), a BSN
    kept, upgraded, edited, removed = ids[0], ids[3], ids[1], ids[6]
    with duckdb.connect(str(database)) as connection:
        stored = "intermediate.int_briefing_texts_scanned"
        connection.execute(
            f"update {stored} set locale_findings = [] where challenge_id = ?", [kept]
        )
        connection.execute(
            f"update {stored} set locale_findings = [], scanned_with = 'an older scanner'"
            " where challenge_id = ?",
            [upgraded],
        )
        connection.execute(
            "update raw.challenges set briefing_text = 'Tickets cost 120 kr for adults.'"
            " where challenge_id = ?",
            [edited],
        )
        connection.execute(
            "update raw.challenges set briefing_text = null where challenge_id = ?", [removed]
        )
    run = run_dbt(select, database=database, work_dir=tmp_path)
    assert run.success, run.output
    second = scans()
    assert removed not in second.index and len(second) == len(ids) - 1
    assert len(second.loc[kept, "locale_findings"]) == 0  # not scanned again
    assert [f["rule_id"] for f in second.loc[upgraded, "locale_findings"]] == [
        "national_phone_number"
    ]
    assert second.loc[upgraded, "scanned_with"] == first.loc[upgraded, "scanned_with"]
    assert [f["matched_text"] for f in second.loc[edited, "locale_findings"]] == ["120 kr"]

    run = run_dbt(
        select, database=database, work_dir=tmp_path, dbt_vars={"briefing_jargon_max_zipf": 2.5}
    )
    assert run.success, run.output
    third = scans()
    assert (third.scanned_with != second.scanned_with).all()
    assert "jargon_max_zipf=2.5" in third.scanned_with.iloc[0]
    for challenge_id, row in third.iterrows():
        text = row.briefing_text
        assert list(row.locale_findings) == [
            vars(f) for f in briefing_text.locale_findings(text)
        ], challenge_id
        assert list(row.jargon_terms) == [vars(t) for t in briefing_text.jargon_terms(text, 2.5)], (
            challenge_id
        )


# --- the regex_match_rows macro itself, on random and degenerate texts (hypothesis) -------


@pytest.fixture(scope="module")
def match_rows_sql(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The compiled SQL of regex_match_rows over a relation `cases(case_id, text, pattern)`."""
    return compile_inline(
        "{{ regex_match_rows('cases', ['case_id'], 'text', 'pattern') }}",
        tmp_path_factory.mktemp("regex_macro"),
    )


TOKENS = ("ab", "a", "é", "漢字", "12", "😀", "e\u0301")
ALPHABET = "abé漢字12😀e\u0301 x"


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(alphabet=ALPHABET, max_size=30), min_size=1, max_size=8),
    alternatives=st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3, unique=True),
)
def test_regex_match_rows_equals_python_finditer(
    match_rows_sql: str, texts: list[str], alternatives: list[str]
) -> None:
    """Literal alternations (RE2 and Python agree on them, leftmost-first): every match, its
    text and 1-based code-point position, repeated and adjacent matches included."""
    pattern = "|".join(re.escape(a) for a in alternatives)
    cases = pd.DataFrame(
        {"case_id": range(len(texts)), "text": texts, "pattern": [pattern] * len(texts)}
    )
    with duckdb.connect() as connection:
        connection.register("cases", cases)
        rows = connection.sql(match_rows_sql).fetchall()
    actual = sorted((case_id, pos, text) for case_id, _, text, pos in rows)
    expected = sorted(
        (k, m.start() + 1, m.group())
        for k, text in enumerate(texts)
        for m in re.finditer(pattern, text)
        if m.group()
    )
    assert actual == expected
    for k in range(len(texts)):
        ordered = sorted((pos, index) for case_id, index, _, pos in rows if case_id == k)
        assert [index for _, index in ordered] == list(range(1, len(ordered) + 1))
