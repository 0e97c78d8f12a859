"""Time is unambiguous (issue 32, item 2): a raw `submitted_at` with an offset or zone is
converted to UTC, a naive one is taken as UTC, whatever the machine's zone; text without a
parsable timestamp is rejected with a reason. The same platform stored as TIMESTAMP WITH
TIME ZONE and built under TZ=America/New_York, and stored as text in mixed forms and built
under TZ=Asia/Kolkata, gives the same staging rows and the same history marts, equal to the
UTC instants computed here in Python."""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import duckdb
import pyarrow as pa
import pytest
from conftest import read_table, run_dbt
from hardening_platforms import canonical, small_platform, write_raw
from hypothesis import given, settings
from hypothesis import strategies as st

SELECTION = ["+rpt_monthly_bias_report"]
COMPARED = (
    "main.rpt_platform_fairness_score",
    "main.fct_challenge_verdict_history",
    "main.rpt_monthly_bias_report",
)
UTC = dt.UTC


@contextmanager
def machine_zone(zone: str) -> Iterator[None]:
    """The process's local zone set to `zone` (DuckDB takes its default TimeZone from it)."""
    previous = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = previous
        time.tzset()


def as_text(number: int, instant: dt.datetime) -> str:
    """The UTC `instant` written in one of several text forms (by `number`)."""
    aware = instant.replace(tzinfo=UTC)
    form = number % 5
    if form == 0:  # an offset
        return aware.astimezone(dt.timezone(dt.timedelta(hours=5, minutes=45))).isoformat()
    if form == 1:  # Z
        return aware.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if form == 2:  # a named zone with daylight saving
        local = aware.astimezone(ZoneInfo("America/Los_Angeles"))
        return local.strftime("%Y-%m-%d %H:%M:%S.%f") + " America/Los_Angeles"
    if form == 3:  # a negative offset without a colon
        return aware.astimezone(dt.timezone(dt.timedelta(hours=-3))).strftime(
            "%Y-%m-%d %H:%M:%S.%f%z"
        )
    return instant.strftime("%Y-%m-%d %H:%M:%S.%f")  # naive: UTC


@pytest.fixture(scope="module")
def platform() -> dict[str, list[dict[str, Any]]]:
    return small_platform(seed=32, n_attempts=1_500)


def build(tables: dict[str, list[dict[str, Any]]], work: Path, zone: str, kind: pa.DataType) -> Any:
    raw = work / "raw"
    write_raw({name: rows for name, rows in tables.items() if name != "attempts"}, raw)
    attempts = tables["attempts"]
    schema = pa.schema(
        [
            pa.field(name, kind if name == "submitted_at" else pa.string())
            for name in ("attempt_id", "challenge_id", "agent_id", "submitted_at")
        ]
    ).insert(3, pa.field("score", pa.float64()))
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(attempts, schema=schema), raw / "attempts.parquet")
    database = work / "platform.duckdb"
    with machine_zone(zone):
        run = run_dbt(
            ["run", "--select", *SELECTION],
            database=database,
            work_dir=work,
            dbt_vars={"raw_parquet_dir": str(raw), "bias_scan_date": "2026-07-01"},
        )
    assert run.success, run.output
    return database


@pytest.mark.dbt
def test_marts_are_the_same_under_any_machine_zone_and_timestamp_form(
    platform: dict[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    truth = {row["attempt_id"]: row["submitted_at"] for row in platform["attempts"]}
    aware = {
        **platform,
        "attempts": [
            {**row, "submitted_at": row["submitted_at"].replace(tzinfo=UTC)}
            for row in platform["attempts"]
        ],
    }
    texts = [
        {**row, "submitted_at": as_text(number, row["submitted_at"])}
        for number, row in enumerate(platform["attempts"])
    ]
    bad = {**platform["attempts"][0], "attempt_id": "bad-time", "submitted_at": "next tuesday"}
    texted = {**platform, "attempts": [*texts, bad]}

    zoned = build(
        aware, tmp_path / "zoned", "America/New_York", pa.timestamp("us", tz="Asia/Tokyo")
    )
    text = build(texted, tmp_path / "text", "Asia/Kolkata", pa.string())

    # staging holds the UTC instants, whatever the form and the machine's zone
    for database in (zoned, text):
        rows = read_table(
            database,
            "select attempt_id, submitted_at from staging.base_platform__attempts"
            " where rejection_reason is null",
        )
        assert len(rows) == len(truth)
        for attempt_id, submitted_at in zip(rows.attempt_id, rows.submitted_at, strict=True):
            assert submitted_at.to_pydatetime() == truth[attempt_id], attempt_id
    rejected = read_table(
        text,
        "select rejection_reason from staging.base_platform__attempts"
        " where rejection_reason is not null",
    )
    assert list(rejected.rejection_reason) == ["submitted_at_not_timestamp"]
    for relation in COMPARED:
        query = f"select * from {relation}"
        assert canonical(read_table(zoned, query)) == canonical(read_table(text, query)), relation


# --- the compiled rule itself, fuzzed over timestamp types, forms and machine zones ------

ZONES = ("UTC", "America/New_York", "Asia/Kolkata", "Pacific/Chatham", "Europe/London")


def compiled_rule() -> str:
    """The expression the attempts' staging model compiles for submitted_at (DuckDB)."""
    text = (Path(__file__).resolve().parents[1] / "macros" / "utc_timestamp.sql").read_text()
    body = re.search(
        r"macro duckdb__utc_timestamp.*?\{%- else -%\}\s*(.*?)\s*\{%- endif", text, re.S
    )
    assert body
    return body.group(1).replace("{{ column }}", "value")


@settings(max_examples=60, deadline=None)
@given(
    instant=st.datetimes(min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(2099, 12, 30)),
    offset_minutes=st.integers(min_value=-14 * 60, max_value=14 * 60),
    machine=st.sampled_from(ZONES),
    form=st.sampled_from(["timestamptz", "offset text", "naive text", "Z text"]),
)
def test_every_form_of_an_instant_reads_as_its_utc_time(
    instant: dt.datetime, offset_minutes: int, machine: str, form: str
) -> None:
    from challenge_fairness.plugin import Plugin

    instant = instant.replace(microsecond=instant.microsecond // 1000 * 1000)
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    local = instant.replace(tzinfo=UTC).astimezone(zone)
    value: object = {
        "timestamptz": local,
        "offset text": local.isoformat(),
        "naive text": instant.isoformat(sep=" "),
        "Z text": instant.isoformat() + "Z",
    }[form]
    with machine_zone(machine), duckdb.connect() as connection:
        Plugin.configure_connection(Plugin.__new__(Plugin), connection.cursor())
        cursor = connection.cursor()  # another connection of the same instance, as dbt's
        cast = "timestamptz" if form == "timestamptz" else "varchar"
        got = cursor.execute(
            f"select {compiled_rule()} from (select cast(? as {cast}) as value)", [value]
        ).fetchall()[0][0]
    assert got == instant
