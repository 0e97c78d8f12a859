"""Small platforms with injected bad rows of every class, for the hardening tests.

A platform is a dict of table name -> list of row dicts (pyarrow-friendly: timestamps in
year 9999 do not fit pandas' nanoseconds). `inject` returns the dirty tables and the
rejections they must cause; the clean rows are left as they were, so a build on the dirty
tables must judge the clean rows exactly as a build on the clean tables alone.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform

Rows = dict[str, list[dict[str, Any]]]

#: Names staging uses for its own columns (CTE and model columns). A raw column with any
#: of these names must be ignored: staging reads the source contract's columns only.
INTERNAL_COLUMNS = (
    "source_row_number",
    "attempt_id_hash",
    "duplicate_kind",
    "key_copies",
    "has_variants",
    "variables_text",
    "variable_combination",
    "has_variables",
    "parsed_tags",
    "raw_score",
    "raw_submitted_at",
    "raw_passed",
    "raw_max_points",
    "raw_points",
    "raw_published_at",
    "raw_record",
    "rejection_reason",
    "attempt_id_copies",
    "is_scored",
    "attempt_score",
    "score_band",
    "results",
    "row_checksum",
    "last_source_row_number",
    "last_attempt_row_number",
    "test_result_id",
    "rubric_score_id",
    "record_id",
    "source_table",
    "raw_rows",
    "source_columns",
    "is_in_scan",
    "validated_with",
    "staged_with",
    "source_folder",
    "file_rows",
    "file_bytes",
    "first_row_number",
)

#: Names the raw readers reserve for the row number (parquet, table): a raw column with
#: one of these names stops the run with a message naming it.
RESERVED_COLUMNS = ("file_row_number", "rowid")

#: Every class of bad row `inject` can add: (table, expected rejection reason).
BAD_ROW_CLASSES = (
    ("attempts", "submitted_at_implausible"),  # year 9999
    ("attempts", "submitted_at_implausible"),  # year 1900
    ("attempts", "score_not_finite"),
    ("attempts", "score_out_of_range"),
    ("attempts", "null_attempt_id"),
    ("attempts", "unknown_challenge_id"),
    ("attempts", "unknown_agent_id"),
    ("challenges", "null_template_id"),
    ("challenges", "tags_not_list"),
    ("challenges", "malformed_variables_json"),
    ("agents", "unknown_model_id"),
    ("models", "null_model_family"),
)


def small_platform(seed: int, n_attempts: int = 3_000, families: int = 3) -> Rows:
    """A generated platform (core tables only) as row dicts."""
    names = ("claude", "gemini", "gpt", "llama", "mistral", "qwen")[:families]
    spec = PlatformSpec(
        seed=seed,
        n_attempts=n_attempts,
        families=names,
        n_templates=2,
        n_standalone_challenges=4,
        planted_family_biases=(),
        planted_hard_combinations=(),
    )
    platform = generate_platform(spec)
    return {name: platform.tables[name].to_pylist() for name in SCHEMAS}


def inject(clean: Rows, classes: list[int], text_tags: bool, extra_columns: bool) -> Rows:
    """`clean` plus one bad row per index of BAD_ROW_CLASSES in `classes` (repeats allowed).

    text_tags: store `tags` as text ('[a, b]', 'a, b', JSON arrays, '') instead of lists.
    extra_columns: add a column named like every internal column to every table.
    """
    dirty = copy.deepcopy(clean)
    challenge = clean["challenges"][0]["challenge_id"]
    agent = clean["agents"][0]["agent_id"]
    when = dt.datetime(2026, 3, 1, 12, 0)
    for number, index in enumerate(classes):
        table, reason = BAD_ROW_CLASSES[index]
        key = f"bad-{number:03d}"
        attempt = {
            "attempt_id": key,
            "challenge_id": challenge,
            "agent_id": agent,
            "score": 50.0,
            "submitted_at": when,
        }
        if table == "attempts":
            if reason == "submitted_at_implausible":
                attempt["submitted_at"] = dt.datetime(9999 if number % 2 == 0 else 1900, 12, 31)
            elif reason == "score_not_finite":
                attempt["score"] = float("inf") if number % 2 else float("nan")
            elif reason == "score_out_of_range":
                attempt["score"] = 100.5
            elif reason == "null_attempt_id":
                attempt["attempt_id"] = None if number % 2 else "  "
            elif reason == "unknown_challenge_id":
                attempt["challenge_id"] = f"no-such-challenge-{key}"
            elif reason == "unknown_agent_id":
                attempt["agent_id"] = f"no-such-agent-{key}"
            dirty["attempts"].append(attempt)
        elif table == "challenges":
            row = {
                "challenge_id": key,
                "template_id": key,
                "variables": "{}",
                "briefing_style": None,
                "experiment_id": None,
                "experiment_arm": None,
                "tags": ["a"],
            }
            if reason == "null_template_id":
                row["template_id"] = None if number % 2 else ""
            elif reason == "tags_not_list":
                row["tags"] = "[unclosed, list"
            elif reason == "malformed_variables_json":
                row["variables"] = '{"x": '
            dirty["challenges"].append(row)
            # an attempt on a rejected challenge is rejected too
            dirty["attempts"].append({**attempt, "challenge_id": key})
        elif table == "agents":
            dirty["agents"].append({"agent_id": key, "model_id": f"no-such-model-{key}"})
        elif table == "models":
            dirty["models"].append({"model_id": key, "model_family": None, "training_cutoff": None})
    if text_tags:
        for number, row in enumerate(dirty["challenges"]):
            tags = row["tags"]
            if isinstance(tags, list):
                style = number % 3
                if style == 0:
                    row["tags"] = json.dumps(tags)
                elif style == 1:
                    row["tags"] = ", ".join(tags)
                else:
                    row["tags"] = "[" + ", ".join(tags) + "]"
    elif any(isinstance(row["tags"], str) for row in dirty["challenges"]):
        raise ValueError("tags_not_list rows need text_tags=True")
    if extra_columns:
        for rows in dirty.values():
            for number, row in enumerate(rows):
                for column in INTERNAL_COLUMNS:
                    row[column] = _extra_value(column, number)
    return dirty


def _extra_value(column: str, number: int) -> object:
    """A value for an internal-looking extra column that would do harm if it were read."""
    if column.endswith("_number"):
        return 1  # every row the same row number
    if column.startswith("variable"):
        return "{}"  # every combination empty
    return "duplicate" if number % 2 else "x"


def expected_rejections(classes: list[int]) -> dict[tuple[str, str], int]:
    """(table, reason) -> rows, for the bad rows `inject` adds."""
    counts: dict[tuple[str, str], int] = {}

    def add(key: tuple[str, str]) -> None:
        counts[key] = counts.get(key, 0) + 1

    for index in classes:
        table, reason = BAD_ROW_CLASSES[index]
        add((table, reason))
        if table == "challenges":
            add(("attempts", "unknown_challenge_id"))
    return counts


def write_raw(tables: Rows, directory: Path) -> None:
    """Write every table as `<directory>/<table>.parquet` (tags text or list as given)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, rows in tables.items():
        schema = SCHEMAS[name]
        if name == "challenges" and any(isinstance(row["tags"], str) for row in rows):
            schema = schema.set(schema.get_field_index("tags"), pa.field("tags", pa.string()))
        extras = [column for column in rows[0] if column not in schema.names] if rows else []
        for column in extras:
            value = rows[0][column]
            kind = pa.int64() if isinstance(value, int) else pa.string()
            schema = schema.append(pa.field(column, kind))
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), directory / f"{name}.parquet")


#: The marts the fairness verdict stands on and the data-quality marts, with their
#: ancestors (not the gate, fct_fairness_gate_results, whose inputs are every detector).
VERDICT_SELECTION = [
    "+fct_challenge_verdicts",
    "+fct_family_adjusted_effects",
    "+fct_family_deviation",
    "+fct_combination_difficulty",
    "+fct_family_kruskal_wallis",
    "+fct_family_effect_sizes",
    "+fct_family_pairwise_dunn",
    "+fct_rejected_rows",
    "+fct_source_row_counts",
]


def build_platform(
    tables: Rows,
    work: Path,
    select: list[str] | None = None,
    dbt_vars: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build `tables` with dbt into `<work>/platform.duckdb` and read every table of it.

    The raw folder, database path and target folder are the same on every call, so dbt's
    partial parsing applies between builds of one `work` folder (no re-parse per build).
    Returns {"run": DbtRun, "tables": {"<schema>.<table>": DataFrame}, "non_finite":
    {"<mart>.<column>": NaN or inf values}}.
    """
    import shutil

    import duckdb
    from conftest import run_dbt

    raw = work / "raw"
    if raw.exists():
        shutil.rmtree(raw)
    write_raw(tables, raw)
    database = work / "platform.duckdb"
    database.unlink(missing_ok=True)
    command = ["build", "--select", *(select or VERDICT_SELECTION)]
    if "--exclude" not in command:
        command += ["--exclude", "fct_fairness_gate_results"]
    command += ["--indirect-selection", "cautious"]
    run = run_dbt(
        command,
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(raw), **(dbt_vars or {})},
    )
    read: dict[str, Any] = {}
    non_finite: dict[str, int] = {}
    if database.exists():
        with duckdb.connect(str(database), read_only=True) as connection:
            floats = connection.sql(
                "select table_name, column_name from information_schema.columns"
                " where table_schema = 'main' and data_type in ('DOUBLE', 'FLOAT', 'REAL')"
            ).fetchall()
            for name, column in floats:
                count = connection.execute(
                    f'select count(*) from main."{name}"'
                    f' where isnan("{column}") or isinf("{column}")'
                ).fetchall()[0]
                non_finite[f"{name}.{column}"] = int(count[0]) if count else 0
            names = connection.sql(
                "select table_schema, table_name from information_schema.tables"
                " where table_schema in ('main', 'staging', 'intermediate') order by all"
            ).fetchall()
            for schema, name in names:
                read[f"{schema}.{name}"] = connection.sql(f'select * from {schema}."{name}"').df()
    return {"run": run, "tables": read, "non_finite": non_finite}


def canonical(frame: Any) -> list[tuple[str, ...]]:
    """Rows as sorted tuples of text; floats rounded to 9 decimals, then to 10 significant
    digits (floating sums in another order differ by about 1e-14)."""
    import math

    def text(value: Any) -> str:
        if isinstance(value, float):
            if math.isnan(value):
                return "nan"
            return f"{round(value, 9) + 0.0:.10g}"  # noise around 0 rounds away; -0.0 is 0
        if hasattr(value, "tolist"):
            value = value.tolist()
        return repr(value)

    columns = sorted(frame.columns)
    return sorted(tuple(text(row[column]) for column in columns) for _, row in frame.iterrows())
