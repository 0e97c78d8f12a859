"""Briefing audits from maintained data (detectors/briefing_text.py), without dbt.

Each library rule on a briefing that assumes its kind and on one that explains it; the
definition forms recognised and the look-alikes that are not definitions; jargon ranked by
rarity; the property that appending a definition of any flagged term or span to the
briefing removes that finding (hypothesis); the labelled set's held-out split (precision
and recall no worse than docs/detectors.md reports); the UDFs on DuckDB, NULL in, NULL out.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from challenge_fairness.detectors import briefing_text as audit
from challenge_fairness.registry import all_udfs
from conftest import REPO_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(REPO_ROOT / "bench"))
import bench_briefing_audit  # noqa: E402

ASSUMED = (
    ("Charge R$ 12,50 per card payment.", "cldr_currency_amount", "R$ 12,50"),
    ("Refunds are capped at 40 zł per month.", "cldr_currency_amount", "40 zł"),
    ("Call the desk at 020 7946 0958 on weekdays.", "national_phone_number", "020 7946 0958"),
    ("Text 06 12 34 56 78 when it ships.", "national_phone_number", "06 12 34 56 78"),
    ("Accounts idle since 07.08.2025 are closed.", "region_dependent_date", "07.08.2025"),
    ("Reports are due 08/09 every year.", "region_dependent_date", "08/09"),
    ("The tank holds 12 gallons.", "region_specific_unit", "12 gallons"),
    ("Weigh-ins are recorded in stone.", "region_specific_unit", "in stone"),
    ("No deliveries on Boxing Day.", "named_holiday", "Boxing Day"),
    ("Staff double before Diwali.", "named_holiday", "Diwali"),
    ("Store the BSN of every tenant.", "national_identifier", "BSN"),
    ("Patients are matched on their Aadhaar number.", "national_identifier", "Aadhaar"),
    ("Score the darts match by the usual rules.", "unstated_customary_rule", "by the usual rules"),
)
EXPLAINED = (
    "Charge 12.50 BRL per card payment.",
    "All amounts are in Polish złoty (PLN): refunds are capped at 40 zł per month.",
    "Call the desk at +44 20 7946 0958 on weekdays.",
    "Phone numbers follow E.164: text 06 12 34 56 78 when it ships.",
    "Dates are DD.MM.YYYY: accounts idle since 07.08.2025 are closed.",
    "The tank holds 12 gallons (45.4 litres).",
    "Each bottle is 16 fl oz, where 1 fl oz = 29.57 ml.",
    "No deliveries on Boxing Day (26 December).",
    "Memorial Day means the last Monday of May.",
    "The BSN means the 9-digit Dutch citizen number.",
    "Validate the CPF (an 11-digit Brazilian taxpayer number) of each buyer.",
    "Score the darts match: each player starts at 501.",
    "Sort 3.4 and 1/2 and pages 1-2; the ISO date is 2025-03-04.",
    "Store +1 555 014 2291 as given.",
)


@pytest.mark.parametrize(("text", "rule_id", "matched"), ASSUMED)
def test_each_library_rule_finds_its_kind(text: str, rule_id: str, matched: str) -> None:
    found = audit.locale_findings(text)
    assert [(f.rule_id, f.matched_text) for f in found] == [(rule_id, matched)]
    finding = found[0]
    start = finding.match_position - 1
    assert text[start : start + len(finding.matched_text)] == matched
    assert finding.description and finding.suggested_neutral_form and finding.source


@pytest.mark.parametrize("text", EXPLAINED)
def test_explained_or_neutral_spans_are_no_finding(text: str) -> None:
    assert audit.locale_findings(text) == []


DEFINED = (
    ("Make it HIPAA (Health Insurance Portability and Accountability Act) compliant.", "HIPAA"),
    ("Suppliers are identified by their ABN, an 11-digit Australian business number.", "ABN"),
    ("Dunning means sending escalating payment reminders.", "Dunning"),
    ("EBITDA is defined as earnings before interest and taxes.", "EBITDA"),
    ("ARR stands for annual recurring revenue.", "ARR"),
    ("HIPAA requires that every read is logged.", "HIPAA"),
    ("Comply with CAN-SPAM: every email must carry an unsubscribe link.", "CAN-SPAM"),
    ("Report it under Generally Accepted Accounting Principles (GAAP).", "GAAP"),
    ("A chargeback is a payment the card issuer reverses.", "chargeback"),
)
NOT_DEFINED = (
    ("Make it HIPAA compliant.", "HIPAA"),
    ("Each driver's phone (e.g. 0171 2345678) is shown.", "phone"),
    ("Group the claims by CPT code and flag gaps.", "CPT"),
    ("Rooms (small) cannot be listed.", "Rooms"),
    ("", "HIPAA"),
)


@pytest.mark.parametrize(("text", "term"), DEFINED)
def test_definition_forms_are_recognised(text: str, term: str) -> None:
    assert audit.is_defined(text, term)


@pytest.mark.parametrize(("text", "term"), NOT_DEFINED)
def test_mentions_and_examples_are_not_definitions(text: str, term: str) -> None:
    assert not audit.is_defined(text, term)


def test_jargon_is_ranked_by_rarity_and_skips_technical_and_common_words() -> None:
    text = (
        "Map each HCPCS line to its NPI, then export JSON and CSV. Subrogation claims go "
        "first; subrogation is rare. Paginate the list of customers."
    )
    terms = audit.jargon_terms(text, 2.25, 3.0)
    names = [t.term for t in terms]
    assert set(names) == {"HCPCS", "NPI", "Subrogation", "Paginate"} - {"Paginate"} | (
        {"Paginate"} if audit.word_zipf("Paginate") < 2.25 else set()
    )
    assert [t.zipf_frequency for t in terms] == sorted(t.zipf_frequency for t in terms)
    subrogation = next(t for t in terms if t.term == "Subrogation")
    assert subrogation.mentions == 2 and not subrogation.is_defined
    assert text[subrogation.match_position - 1 :].startswith("Subrogation")
    assert audit.jargon_terms(text, 0.0, 0.0) == []  # nothing is rarer than zipf 0
    assert audit.jargon_terms("", 3.0, 3.0) == [] and audit.jargon_terms(None) == []


ASSUMPTIONS = [
    row["text"] for row in bench_briefing_audit.load("all") if row["label"] == "assumption"
]
FILLER = st.lists(st.sampled_from(("Sort", "the", "list", "then", "return", "it", "done")))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(ASSUMPTIONS), filler=FILLER, words=FILLER)
def test_appending_a_definition_removes_that_finding(
    base: str, filler: list[str], words: list[str]
) -> None:
    """For every finding of a briefing (locale span or undefined jargon term), the briefing
    with "<it> means <words>." appended no longer reports it."""
    text = " ".join([*filler, base]).strip()
    definition = " ".join(["a", "value", *words])
    for finding in audit.locale_findings(text):
        extended = f"{text} {finding.matched_text} means {definition}."
        assert (finding.rule_id, finding.matched_text) not in {
            (f.rule_id, f.matched_text) for f in audit.locale_findings(extended)
        }, (text, finding)
    for term in audit.jargon_terms(text):
        if term.is_defined:
            continue
        extended = f"{text} {term.term} means {definition}."
        again = {t.term.lower(): t for t in audit.jargon_terms(extended)}
        assert again[term.term.lower()].is_defined, (text, term)


def test_held_out_split_keeps_the_reported_precision_and_recall() -> None:
    """docs/detectors.md: test split after = precision 0.94 (48 of 51), recall 0.80 (48 of
    60) (before 0.90, 0.30); a change that loses either fails here. 0.95 does not hold
    with the address rows: 3 false positives (a VAT rate "given on each line", the rare
    words palindrome and Geocode) need 57 true positives for it."""
    rows = bench_briefing_audit.load("test")
    texts = [row["text"] for row in rows]
    after = bench_briefing_audit.scores(rows, bench_briefing_audit.after_flags(texts))
    before = bench_briefing_audit.scores(rows, bench_briefing_audit.seed_flags(texts))
    assert len(rows) >= 100
    assert after["precision"] >= 0.94 and after["recall"] >= 0.80, after
    assert before["recall"] < 0.35  # the labelled set is outside the seed lists


def test_udfs_on_duckdb_keep_nulls_and_positions() -> None:
    specs = {spec.name: spec for spec in all_udfs()}
    with duckdb.connect() as connection:
        for name in ("cf_briefing_locale_findings", "cf_briefing_jargon_terms"):
            spec = specs[name]
            connection.create_function(
                name, spec.function, list(spec.parameters), spec.return_type, type="arrow"
            )
        spec = specs["cf_briefing_term_defined"]
        connection.create_function(
            spec.name, spec.function, list(spec.parameters), spec.return_type, type="arrow"
        )
        rows = connection.sql(
            """
            select text, cf_briefing_locale_findings(text) as found,
                cf_briefing_jargon_terms(text, 2.25, 3.0) as jargon,
                cf_briefing_term_defined(text, 'HIPAA') as defined
            from (values ('Closed on Boxing Day; make it HIPAA compliant.'), (null)) t(text)
            """
        ).fetchall()
    by_text = {row[0]: row[1:] for row in rows}
    found, jargon, defined = by_text["Closed on Boxing Day; make it HIPAA compliant."]
    assert [(f["rule_id"], f["matched_text"], f["match_position"]) for f in found] == [
        ("named_holiday", "Boxing Day", 11)
    ]
    assert [j["term"] for j in jargon] == ["HIPAA"] and defined is False
    assert by_text[None] == (None, None, None)
    empty = audit.locale_findings_udf(pa.chunked_array([pa.array([""], pa.string())]))
    assert empty.to_pylist() == [[]]


def test_scanner_version_names_the_code_the_libraries_and_the_thresholds() -> None:
    version = audit.scanner_version()
    digest = hashlib.sha256(Path(audit.__file__).read_bytes()).hexdigest()[:16]
    assert f"briefing_text.py={digest}" in version
    for name in audit.SCANNER_LIBRARIES:
        assert f" {name}={importlib.metadata.version(name)}" in version
    rows = audit.scanner_version_udf(
        pa.chunked_array([pa.array([2.25, 2.5, None], pa.float64())]),
        pa.chunked_array([pa.array([3.0, 3.0, 3.0], pa.float64())]),
    ).to_pylist()
    assert rows[0] == f"{version} jargon_max_zipf=2.25 jargon_acronym_max_zipf=3.0"
    assert rows[1] != rows[0] and rows[2] is None
