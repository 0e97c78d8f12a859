"""The fairness gate: validate marts with the Great Expectations suites in ``gx_suites/``.

Each suite file names the mart it checks (``meta.mart``); thresholds reach the suites as
GX expectation parameters (``{"$PARAMETER": name}``) filled from dbt vars. The result is
one row per expectation, with a message naming every failing row, kept as a table for BI;
a dbt test on that table fails (or warns on) the build.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

SUITES_DIRECTORY = Path(__file__).with_name("gx_suites")
MAX_LISTED_FAILURES = 50
RESULT_COLUMNS = (
    "validated_at",
    "suite_name",
    "mart_name",
    "expectation_type",
    "column_name",
    "threshold_parameter",
    "threshold",
    "success",
    "evaluated_rows",
    "failing_rows",
    "severity",
    "failure_message",
)


def load_suite(suite_name: str) -> dict[str, Any]:
    """The suite definition stored as ``gx_suites/<suite_name>.json``."""
    path = SUITES_DIRECTORY / f"{suite_name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in SUITES_DIRECTORY.glob("*.json"))
        raise FileNotFoundError(f"no GX suite {suite_name!r} in {SUITES_DIRECTORY}; known: {known}")
    suite: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return suite


def expectation_parameters(thresholds: Mapping[str, float]) -> dict[str, float]:
    """Each threshold t as parameters `<name>` = t and `negative_<name>` = -t."""
    parameters: dict[str, float] = {}
    for name, value in thresholds.items():
        parameters[name] = float(value)
        parameters[f"negative_{name}"] = -float(value)
    return parameters


@cache
def _context() -> Any:
    """One ephemeral GX context per process, without progress bars."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    for name in [
        logger
        for logger in logging.root.manager.loggerDict
        if logger.startswith("great_expectations")
    ] + ["great_expectations"]:
        logging.getLogger(name).setLevel(logging.WARNING)
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


def _failure_lines(
    result: dict[str, Any], meta: Mapping[str, Any], threshold: float | None
) -> list[str]:
    """One readable line per failing row, from GX's unexpected_index_list."""
    template = meta.get("failure_template")
    lines = []
    for item in result.get("unexpected_index_list") or []:
        values = {**item, "threshold": threshold}
        lines.append(template.format(**values) if template else json.dumps(item, default=str))
    return lines


def validate_suite(
    suite_name: str,
    dataframe: pd.DataFrame,
    thresholds: Mapping[str, float],
    severity: str,
    validated_at: datetime | None = None,
) -> list[dict[str, Any]]:
    """Run one suite on one mart's rows: a result row per expectation."""
    import great_expectations as gx
    from great_expectations.core import ExpectationSuite

    definition = load_suite(suite_name)
    mart = definition["meta"]["mart"]
    context = _context()
    asset_name = f"{mart}__{suite_name}"
    datasource = (
        context.data_sources.get("challenge_fairness_marts")
        if "challenge_fairness_marts" in context.data_sources.all()
        else context.data_sources.add_pandas("challenge_fairness_marts")
    )
    asset = datasource.add_dataframe_asset(asset_name)
    batch = asset.add_batch_definition_whole_dataframe("all_rows")
    suite = context.suites.add(ExpectationSuite(**definition))
    validation = context.validation_definitions.add(
        gx.ValidationDefinition(name=asset_name, data=batch, suite=suite)
    )

    identifying_columns = sorted(
        {
            column
            for expectation in definition["expectations"]
            for column in expectation.get("meta", {}).get("identifying_columns", [])
        }
    )
    outcome = validation.run(
        batch_parameters={"dataframe": dataframe},
        expectation_parameters=expectation_parameters(thresholds),
        result_format={
            "result_format": "COMPLETE",
            "unexpected_index_column_names": identifying_columns,
        },
    )
    # The context is per process: forget this run's objects so a rerun can re-add them.
    context.validation_definitions.delete(asset_name)
    context.suites.delete(suite_name)
    datasource.delete_asset(asset_name)

    validated_at = validated_at or datetime.now(UTC).replace(tzinfo=None)
    rows = []
    for expectation_result in outcome.results:
        config = expectation_result.expectation_config
        meta = config.meta or {}
        parameter = meta.get("threshold_parameter")
        threshold = float(thresholds[parameter]) if parameter and parameter in thresholds else None
        result = expectation_result.result or {}
        lines = _failure_lines(result, meta, threshold)
        message = None
        if not expectation_result.success:
            shown = lines[:MAX_LISTED_FAILURES]
            more = len(lines) - len(shown)
            header = f"{suite_name} failed on {mart} ({result.get('unexpected_count', '?')} rows):"
            message = "\n".join([header, *shown] + ([f"... and {more} more"] if more else []))
            if not lines and expectation_result.exception_info:
                message += f" {expectation_result.exception_info}"
        rows.append(
            {
                "validated_at": validated_at,
                "suite_name": suite_name,
                "mart_name": mart,
                "expectation_type": config.type,
                "column_name": config.kwargs.get("column"),
                "threshold_parameter": parameter,
                "threshold": threshold,
                "success": bool(expectation_result.success),
                "evaluated_rows": int(result.get("element_count", len(dataframe))),
                "failing_rows": int(result.get("unexpected_count", 0) or 0),
                "severity": severity,
                "failure_message": message,
            }
        )
    return rows


def validate_marts(
    marts: Mapping[str, pd.DataFrame],
    suite_names: Sequence[str],
    thresholds: Mapping[str, float],
    severity: str,
) -> pd.DataFrame:
    """Run every named suite on the mart it names: one row per expectation."""
    validated_at = datetime.now(UTC).replace(tzinfo=None)
    rows: list[dict[str, Any]] = []
    for suite_name in suite_names:
        mart = load_suite(suite_name)["meta"]["mart"]
        if mart not in marts:
            raise KeyError(f"suite {suite_name!r} checks {mart!r}, which was not given")
        rows.extend(validate_suite(suite_name, marts[mart], thresholds, severity, validated_at))
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
