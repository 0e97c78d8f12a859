"""Vars: one declarative spec, validated before anything runs; no var reaches SQL unquoted.

Findings 1 and 6 of issue 15: `bias_scan_date` carried SQL that dropped raw.attempts, a tag
var with a quote crashed, and `alpha: 0`, `alpha: 2`, `min_attempts: -1`, `min_attempts:
"100"` and `alpha: 'abc'` were accepted or failed far from the var. The spec lives in
macros/config/var_spec.sql (YAML read by dbt's `fromyaml` and by these tests); the
configuration reference docs/configuration.md is generated from it (run this file as a
script to regenerate it).
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO_ROOT, read_table, run_dbt

SPEC_FILE = REPO_ROOT / "macros" / "config" / "var_spec.sql"
DOC_FILE = REPO_ROOT / "docs" / "configuration.md"
RAW_TABLES = ("attempts", "challenges", "agents", "models")

QUOTE_PAYLOAD = (
    "2026-01-01' as date) as scan_date, 'x' as scan_date_source, null as latest_attempt_date"
    " from (select 1)); drop table raw.attempts cascade; create temp table pwn as (select"
    " cast('2026-01-01"
)
SEMICOLON_PAYLOAD = "1; drop table raw.attempts cascade; select 1"
COMMENT_PAYLOAD = "0.05 -- drop table raw.attempts /* */"


def var_spec() -> dict[str, dict[str, Any]]:
    """The var spec, read from the YAML inside the spec macro."""
    text = SPEC_FILE.read_text()
    match = re.search(r"{%- set spec_yaml -%}\n(.*?){%- endset -%}", text, re.S)
    assert match, "spec YAML block not found"
    spec: dict[str, dict[str, Any]] = yaml.safe_load(match.group(1))
    return spec


def project_vars() -> dict[str, Any]:
    """The vars block of dbt_project.yml."""
    project = yaml.safe_load((REPO_ROOT / "dbt_project.yml").read_text())
    return dict(project["vars"])


def _accepts(name: str, rule: dict[str, Any]) -> str:
    kind = rule["type"]
    if kind in ("number", "integer"):
        below = "<" if rule.get("min_exclusive") else "<="
        above = "<" if rule.get("max_exclusive") else "<="
        low = "" if rule.get("min") is None else f"{rule['min']} {below} "
        high = "" if rule.get("max") is None else f" {above} {rule['max']}"
        text = ("number" if kind == "number" else "integer") + f": {low}`{name}`{high}"
    elif kind == "choice":
        text = "one of " + ", ".join(f"`{value}`" for value in rule["values"])
    else:
        text = {
            "boolean": "`true` or `false`",
            "date": "date `YYYY-MM-DD`",
            "identifier": "name (letters, digits, `_`)",
            "identifiers": "list of names (letters, digits, `_`)",
            "text": "text, 1-200 characters, no control characters",
            "texts": "list of texts, each 1-200 characters, no control characters",
            "path": "folder path",
        }[kind]
    if rule.get("after"):
        text += f", >= `{rule['after']}`"
    if rule.get("divides"):
        text += f", divides `{rule['divides']}`"
    return text + (", or `null`" if rule.get("nullable") else "")


def _default(value: Any) -> str:
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list):
        return f"{len(value)} suites (see `dbt_project.yml`)"
    return f"`{value}`"


def render_configuration_doc() -> str:
    """docs/configuration.md, generated from the var spec."""
    lines = [
        "# Configuration",
        "",
        "<!-- Generated from macros/config/var_spec.sql by"
        " `python tests/test_hardening_vars.py`; tests/test_hardening_vars.py checks it. -->",
        "",
        "Every var of the package, with its default (as in `dbt_project.yml`), the values it",
        "accepts and its meaning. Override per run (`dbt build --vars '{min_attempts: 50}'`) or,",
        "when the package is installed, under `vars: {challenge_fairness: {...}}` of your project.",
        "",
        "Every var is checked before anything runs (`on-run-start`: `validate_vars()`, rendered",
        "when dbt parses the project, so `dbt parse`, `compile`, `show`, `run`, `build`, `test`,",
        "`seed` and `snapshot` all stop): a bad value stops the command with one message naming",
        "the var, its value and what it accepts. Numbers must be numbers, not strings",
        "(`min_attempts: '100'` is refused); YAML reads `1e-3` as text, write `0.001`. Text vars",
        "(tags, dates, paths) enter SQL only as quoted literals (`sql_string_literal`).",
        "",
        "A var given in `--vars` whose name is close to one of these (`min_attempt`,",
        "`fairness_gate_severty`) stops the run naming both (`unknown var min_attempt: did you",
        "mean min_attempts?`); a name close to none is left alone (your project's own vars).",
        "Values in `--vars` are rendered by dbt (Jinja) before the package sees them: a value",
        "holding `{{ ... }}` or `{% ... %}` is evaluated by dbt first, not taken as text.",
        "",
        "| var | default | accepts | meaning |",
        "|---|---|---|---|",
    ]
    for name, rule in var_spec().items():
        description = str(rule["description"]).replace("|", "\\|")
        default = _default(rule.get("default"))
        lines.append(f"| `{name}` | {default} | {_accepts(name, rule)} | {description} |")
    lines += [
        "",
        "Staging also rejects attempts whose `submitted_at` lies outside the plausible window",
        "(`earliest_plausible_timestamp`, run date + `plausible_timestamp_days_ahead` days) with",
        "the reason `submitted_at_implausible`, so the scan date and the verdict history never",
        "follow an outlier timestamp.",
        "",
    ]
    return "\n".join(lines)


# --- the spec, dbt_project.yml and the docs agree -------------------------------------


def test_spec_covers_every_project_var_with_the_same_default() -> None:
    spec, declared = var_spec(), project_vars()
    assert set(spec) == set(declared)
    for name, rule in spec.items():
        default = rule.get("default")
        if isinstance(default, float) or isinstance(declared[name], float):
            assert float(default) == float(declared[name]), name
        else:
            assert default == declared[name], name


def test_configuration_doc_is_generated_from_the_spec() -> None:
    assert DOC_FILE.read_text() == render_configuration_doc(), (
        "docs/configuration.md is stale: run `python tests/test_hardening_vars.py`"
    )


# --- dbt: validation and injection -----------------------------------------------------


@pytest.fixture(scope="module")
def raw_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file with a small platform in schema raw (no marts)."""
    import duckdb
    import pyarrow as pa
    from challenge_fairness.demo import SCHEMAS
    from hardening_platforms import small_platform

    database = tmp_path_factory.mktemp("vars") / "platform.duckdb"
    tables = small_platform(seed=21, n_attempts=1_500)
    for row in tables["challenges"][:3]:
        row["tags"] = ["string-handling", "editor's-pick; -- x", "competitive"]
    with duckdb.connect(str(database)) as connection:
        connection.execute("create schema raw")
        for name, rows in tables.items():
            arrow = pa.Table.from_pylist(rows, schema=SCHEMAS[name])  # noqa: F841 (read by SQL)
            connection.execute(f"create table raw.{name} as select * from arrow")
    return database


def raw_fingerprint(database: Path) -> dict[str, str]:
    """A hash of every raw table's full content."""
    fingerprint = {}
    for name in RAW_TABLES:
        frame = read_table(database, f"select * from raw.{name} order by all")
        fingerprint[name] = hashlib.sha256(frame.to_csv(index=False).encode()).hexdigest()
    return fingerprint


def invalid_vars_with(payload: str) -> dict[str, Any]:
    """Every var the payload makes invalid (all but free text and folder paths)."""
    return {
        name: payload for name, rule in var_spec().items() if rule["type"] not in ("text", "path")
    }


@pytest.mark.dbt
@pytest.mark.parametrize(
    ("command", "payload"),
    [
        (["build"], QUOTE_PAYLOAD),
        (["compile", "--select", "int_bias_scan_date"], SEMICOLON_PAYLOAD),
        (["test", "--select", "int_keyed__attempts"], COMMENT_PAYLOAD),
    ],
    ids=["build-quote", "compile-semicolon", "test-comment"],
)
def test_injection_through_any_var_stops_before_sql_naming_every_var(
    raw_database: Path, tmp_path: Path, command: list[str], payload: str
) -> None:
    before = raw_fingerprint(raw_database)
    bad = invalid_vars_with(payload)
    run = run_dbt(command, database=raw_database, work_dir=tmp_path, dbt_vars=bad)
    assert not run.success
    assert "Invalid vars" in run.output
    message = next(line for line in run.messages if "Invalid vars" in line)
    for name in bad:
        assert f"{name} must be " in message, name
        assert f"got '{payload}' (a string)" in message
    assert raw_fingerprint(raw_database) == before
    tables = read_table(
        raw_database,
        "select table_schema, table_name from information_schema.tables order by all",
    )
    assert set(tables.table_schema) == {"raw"}, "nothing may run before the vars are valid"


@pytest.mark.dbt
def test_bad_values_name_the_var_the_value_and_what_it_accepts(
    raw_database: Path, tmp_path: Path
) -> None:
    bad = {
        "alpha": "abc",
        "min_attempts": "100",
        "min_family_attempts": -1,
        "effect_size_threshold": 101,
        "trim_proportion": 0.5,
        "dif_score_bands": 2.5,
        "clustering_remove_agent_level": "yes",
        "bias_scan_date": "2026-02-30",
        "verdict_history_window": "fortnight",
        "briefing_locale_rules_seed": "rules; drop",
        "unicode_coverage_tag": "",
        "fairness_gate_suites": ["challenge_verdicts_not_flagged", "a b"],
    }
    run = run_dbt(["run"], database=raw_database, work_dir=tmp_path, dbt_vars=bad)
    assert not run.success
    expected = [
        "alpha must be a finite number (not a string) with 0 < alpha < 1, got 'abc' (a string)",
        "min_attempts must be an integer (not a string) with 1 <= min_attempts, got '100'",
        "min_family_attempts must be an integer (not a string) with 2 <= min_family_attempts,"
        " got -1",
        "effect_size_threshold must be a finite number (not a string) with 0 <"
        " effect_size_threshold <= 100, got 101",
        "trim_proportion must be a finite number (not a string) with 0 <= trim_proportion < 0.5,"
        " got 0.5",
        "dif_score_bands must be an integer (not a string) with 1 <= dif_score_bands <= 100,"
        " got 2.5",
        "clustering_remove_agent_level must be true or false, got 'yes'",
        "bias_scan_date must be a date 'YYYY-MM-DD' or null, got '2026-02-30'",
        "verdict_history_window must be 'week', 'month' or 'quarter', got 'fortnight'",
        "briefing_locale_rules_seed must be a name of letters, digits and underscores",
        "unicode_coverage_tag must be a non-empty text",
        "fairness_gate_suites must be a list of names",
    ]
    for text in expected:
        assert text in run.output, text
    schemata = read_table(raw_database, "select schema_name from information_schema.schemata")
    assert "staging" not in set(schemata.schema_name)


@pytest.mark.dbt
def test_a_misspelt_var_stops_the_run_naming_the_var_it_resembles(
    raw_database: Path, tmp_path: Path
) -> None:
    """Issue 32, item 5: `min_attempt` and `fairness_gate_severty` were ignored silently."""
    run = run_dbt(
        ["compile", "--select", "int_bias_scan_date"],
        database=raw_database,
        work_dir=tmp_path,
        dbt_vars={"min_attempt": 50, "fairness_gate_severty": "warn", "my_team_label": "x"},
    )
    assert not run.success
    assert "unknown var min_attempt: did you mean min_attempts?" in run.output
    assert "unknown var fairness_gate_severty: did you mean fairness_gate_severity?" in run.output
    assert "my_team_label" not in run.output  # a name close to none is the project's own


@pytest.mark.dbt
@pytest.mark.parametrize("value", [0, 2])
def test_alpha_outside_zero_one_is_refused(
    raw_database: Path, tmp_path: Path, value: float
) -> None:
    run = run_dbt(
        ["compile", "--select", "int_bias_scan_date"],
        database=raw_database,
        work_dir=tmp_path,
        dbt_vars={"alpha": value},
    )
    assert not run.success
    assert "alpha must be a finite number (not a string) with 0 < alpha < 1, got " in run.output


@pytest.mark.dbt
def test_quotes_semicolons_and_comments_in_text_vars_are_data(
    raw_database: Path, tmp_path: Path
) -> None:
    before = raw_fingerprint(raw_database)
    tag = "editor's-pick; -- x"
    run = run_dbt(
        [
            "build",
            "--select",
            "+fct_string_challenge_unicode_coverage",
            "+fct_detector_coverage",
            "+fct_briefing_locale_findings",
            "+int_bias_scan_date",
            "--indirect-selection",
            "cautious",
        ],
        database=raw_database,
        work_dir=tmp_path,
        dbt_vars={
            "unicode_coverage_tag": tag,
            "competitive_challenge_tag": "x'); " + SEMICOLON_PAYLOAD + " /* -- ",
            "bias_scan_date": "2026-01-01",
        },
    )
    assert run.success, run.output
    assert raw_fingerprint(raw_database) == before
    coverage = read_table(
        raw_database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'unicode_coverage'",
    )
    assert coverage.missing_inputs[0].startswith("optional source table absent: test_cases")
    tagged = read_table(
        raw_database,
        "select count(*) as n from staging.stg_platform__challenges"
        f" where list_contains(tags, '{tag.replace(chr(39), chr(39) * 2)}')",
    )
    assert tagged.n[0] == 3
    scan = read_table(raw_database, "select * from intermediate.int_bias_scan_date")
    assert str(scan.scan_date[0])[:10] == "2026-01-01"


if __name__ == "__main__":
    DOC_FILE.parent.mkdir(exist_ok=True)
    DOC_FILE.write_text(render_configuration_doc())
    sys.stdout.write(f"wrote {DOC_FILE}\n")
