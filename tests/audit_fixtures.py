"""Fixtures of the briefing and rubric audit: small platforms with known findings.

The demo's audit plants (challenge_fairness.demo AUDIT_PLANTS) on a small platform of
standalone challenges: planted locale strings on ch-s02 and ch-s06, HIPAA without a
definition on ch-s08, GDPR with one on ch-s10, rubric items on every challenge and one
style-worded item (ch-s05-r4) that family llama earns more often at equal score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from challenge_fairness.demo import (
    PlatformSpec,
    add_audit_tables,
    generate_platform,
    write_duckdb,
)

AUDIT_SELECTOR = [
    "+path:models/marts/audit",
    "+path:models/intermediate/audit",
    "+fct_detector_coverage",
    "+fct_source_row_counts",
    "+fct_rejected_rows",
]


def audit_platform(n_attempts: int = 10_000, seed: int = 11) -> tuple[Any, dict[str, Any]]:
    """A 12-challenge platform (standalone only) with the audit's inputs and its truth."""
    platform = generate_platform(
        PlatformSpec(
            seed=seed,
            n_attempts=n_attempts,
            n_templates=0,
            n_standalone_challenges=12,
            planted_family_biases=(),
            planted_hard_combinations=(),
        )
    )
    tables = platform.tables
    agents = tables["agents"].to_pandas().merge(tables["models"].to_pandas(), on="model_id")
    families = list(platform.spec.families)
    family_idx = agents["model_family"].map({f: i for i, f in enumerate(families)}).to_numpy()
    audited, truth = add_audit_tables(
        tables, tables["attempts"], tables["agents"], family_idx, families, seed
    )
    return audited, truth


def write_platform(tables: dict[str, pa.Table], database: Path, drop: tuple[str, ...] = ()) -> None:
    """Write `tables` into raw.<name> of a DuckDB file (leaving out tables/columns in `drop`:
    'rubric_items', 'challenges.briefing_text', ...)."""
    from challenge_fairness.demo import Platform

    kept = {}
    for name, table in tables.items():
        if name in drop:
            continue
        for dropped in drop:
            if dropped.startswith(f"{name}."):
                table = table.drop_columns([dropped.split(".", 1)[1]])
        kept[name] = table
    write_duckdb(
        Platform(
            spec=PlatformSpec(),
            tables=kept,
            planted_family_biases=pa.table({}),
            planted_hard_combinations=pa.table({}),
            dirty_rows=pa.table({}),
        ),
        str(database),
    )


def append_rows(database: Path, table: str, rows: list[tuple[Any, ...]]) -> None:
    """Append raw rows (bad ones, for the reject tests) to raw.<table>."""
    with duckdb.connect(str(database)) as connection:
        placeholders = ", ".join("?" * len(rows[0]))
        connection.executemany(f"insert into raw.{table} values ({placeholders})", rows)


# --- table-driven locale cases: (text, [(rule_id, matched text), ...] expected exactly) ---
LOCALE_CASES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Invoices are due 03/04/2025.", (("ambiguous_numeric_date", "03/04/2025"),)),
    ("Invoices are due 3.4.2025 here.", (("ambiguous_numeric_date", "3.4.2025"),)),
    (
        "Ship by 25/12/2025 or by 12/25/2025.",
        (("numeric_date_order", "25/12/2025"), ("numeric_date_order", "12/25/2025")),
    ),
    ("Due 03/04/2025; reminder again 03/04/2025.", (("ambiguous_numeric_date", "03/04/2025"),) * 2),
    ("Dates are ISO 8601: due 2025-03-04, shipped 2025-12-25T10:00.", ()),
    ("Dates use MM/DD/YYYY: due 03/04/2025.", ()),
    (
        "Call (555) 123-4567, 555-123-4567 or +1 555 123 4567.",
        (
            ("us_phone_number", "(555) 123-4567"),
            ("us_phone_number", "555-123-4567"),
            ("us_phone_number", "+1 555 123 4567"),
        ),
    ),
    ("Phone numbers follow NANP: (555) 123-4567.", ()),
    ("Store +44 20 7946 0958 as given.", ()),
    (
        "A late fee of $20 and £5.50, or 20 €.",
        (
            ("currency_symbol_amount", "$20"),
            ("currency_symbol_amount", "£5.50"),
            ("currency_symbol_amount", "20 €"),
        ),
    ),
    ("A late fee of 20.00 USD is added.", ()),
    ("A fee of $20 is added (amounts in USD).", ()),
    (
        "Run 5 miles, lift 10 lbs at 70 °F; measure in inches.",
        (
            ("imperial_unit", "5 miles"),
            ("imperial_unit", "10 lbs"),
            ("imperial_unit", "70 °F"),
            ("imperial_unit", "inches"),
        ),
    ),
    ("Run 5 km at 20 °C carrying 2 kg over 300 m.", ()),
    (
        "Ship to Springfield, IL 62704 or 94103-1234.",
        (("us_state_zip", "IL 62704"), ("us_state_zip", "94103-1234")),
    ),
    ("Ask for the ZIP code first.", (("zip_code", "ZIP code"),)),
    ("Compress the output as a zip file.", ()),
    (
        "Ask for the SSN and file a 1099-MISC with the IRS.",
        (
            ("us_tax_identifiers", "SSN"),
            ("us_tax_identifiers", "1099-MISC"),
            ("us_tax_identifiers", "IRS"),
        ),
    ),
    ("Add sales tax to the total.", (("sales_tax_rule", "sales tax"),)),
    ("Add a 20% VAT to the net total.", ()),
    ("Mail it to PO Box 42.", (("po_box_address", "PO Box"),)),
    (
        "Crème brûlée for Zoe\u0308 😀 costs $20 — ¥300 in 東京.",
        (("currency_symbol_amount", "$20"), ("currency_symbol_amount", "¥300")),
    ),
    (
        "Implement ch-s01. Dates are ISO 8601 (2025-03-04), amounts are in EUR, "
        "distances in km and weights in kg.",
        (),
    ),
)
# (text, term_id, is_flagged)
DOMAIN_CASES: tuple[tuple[str, str, bool], ...] = (
    ("Store the patient notes and make it HIPAA compliant.", "hipaa", True),
    (
        "Make it HIPAA (Health Insurance Portability and Accountability Act) compliant.",
        "hipaa",
        False,
    ),
    ("Log every change; HIPAA requires an audit trail of each access.", "hipaa", False),
    ("Process card payments in a PCI DSS compliant way.", "pci_dss", True),
    ("Honour GDPR erasure requests.", "gdpr", True),
    ("Export data as the GDPR (General Data Protection Regulation) requires.", "gdpr", False),
)
# A consumer's extra locale rule (tested through var briefing_locale_rules_seed).
EXTRA_RULE = (
    "uk_postcode",
    "address",
    r"\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b",
    "UK postcode.",
    "a postal code with the country stated",
    "",
)
EXTRA_CASE = ("Deliver to SW1A 1AA by noon.", (("uk_postcode", "SW1A 1AA"),))
