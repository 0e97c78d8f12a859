"""The fairness gate: validate marts with the Great Expectations suites in ``gx_suites/``.

Each suite file names the mart it checks (``meta.mart``); thresholds reach the suites as
GX expectation parameters (``{"$PARAMETER": name}``) filled from dbt vars. The result is
one row per expectation, kept as a table for BI, with its status:

- ``passed``: the expectation ran and held;
- ``failed``: it ran and some mart rows broke it; each such row is a *finding* (subject,
  model family, value, threshold, message), listed in the ``findings`` JSON column;
- ``error``: the suite could not run (unknown suite, malformed or invalid file, a
  missing column, a bad parameter, an unknown mart). An error is never a fairness
  finding: the gate's dbt tests fail the build on it whatever ``fairness_gate_severity``.

Messages and findings are sorted, so two runs on the same marts give the same text.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from contextlib import suppress
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
    "expectation_number",
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
    "status",
    "findings",
)


# The keys of a finding (the `findings` JSON column; fct_fairness_gate_findings reads them).
FINDING_FIELDS = ("subject", "model_family", "value", "message", "evidence", "cause_id", "cause")


class SuiteError(Exception):
    """A gate suite that cannot run: its file is missing, malformed or invalid."""


def load_suite(suite_name: str) -> dict[str, Any]:
    """The suite definition stored as ``gx_suites/<suite_name>.json``."""
    path = SUITES_DIRECTORY / f"{suite_name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in SUITES_DIRECTORY.glob("*.json"))
        raise FileNotFoundError(f"no GX suite {suite_name!r} in {SUITES_DIRECTORY}; known: {known}")
    try:
        suite = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SuiteError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(suite, dict) or not isinstance(suite.get("expectations"), list):
        raise SuiteError(f"{path} is not a GX suite: it needs a list 'expectations'")
    if not isinstance(suite.get("meta"), dict) or not suite["meta"].get("mart"):
        raise SuiteError(f"{path} names no mart to check ('meta': {{'mart': ...}})")
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


def _number(value: Any) -> float | None:
    """A finite float, or None (text, NULL, NaN)."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def _findings(
    result: Mapping[str, Any], meta: Mapping[str, Any], threshold: float | None
) -> list[dict[str, Any]]:
    """One finding per failing row (GX's unexpected_index_list), sorted by its message.

    Besides subject, family, value and message, a finding carries what ties it to its root
    cause (fct_fairness_gate_findings): ``evidence``, the keys that find its detector's
    findings in int_bias_evidence_unioned (``finding_id``, ``challenge_id``, ``cause_id``,
    or ``template_id`` with ``variable_combination``), and ``cause_id`` / ``cause``, its own
    root cause when no detector finding matches. Each is a template over the row's columns
    in the suite's ``meta.finding``; absent, None.
    """
    template = meta.get("failure_template")
    fields = meta.get("finding") or {}
    findings = []
    for item in result.get("unexpected_index_list") or []:
        values = {**item, "threshold": threshold}
        message = template.format(**values) if template else json.dumps(item, default=str)
        subject = fields["subject"].format(**values) if "subject" in fields else None
        family = item.get(fields["family_column"]) if "family_column" in fields else None
        value = _number(item.get(fields["value_column"])) if "value_column" in fields else None
        evidence = {key: text.format(**values) for key, text in fields.get("evidence", {}).items()}
        findings.append(
            {
                "subject": subject,
                "model_family": None if family is None else str(family),
                "value": value,
                "message": message,
                "evidence": evidence or None,
                "cause_id": fields["cause_id"].format(**values) if "cause_id" in fields else None,
                "cause": fields["cause"].format(**values) if "cause" in fields else None,
            }
        )
    return sorted(findings, key=lambda finding: finding["message"])


def _exception_message(exception_info: Any) -> str | None:
    """The message of an exception GX caught while running an expectation, if any."""
    if not isinstance(exception_info, Mapping):
        return None
    if "raised_exception" in exception_info:
        if exception_info.get("raised_exception"):
            return str(exception_info.get("exception_message") or "unknown error")
        return None
    # One entry per metric: {metric id: {raised_exception, exception_message, ...}}.
    messages = sorted(
        {
            str(info.get("exception_message") or "unknown error")
            for info in exception_info.values()
            if isinstance(info, Mapping) and info.get("raised_exception")
        }
    )
    return "; ".join(messages) or None


def error_row(
    suite_name: str,
    reason: str,
    severity: str,
    validated_at: datetime,
    mart: str | None = None,
    expectation_type: str | None = None,
    column: str | None = None,
    expectation_number: int | None = None,
) -> dict[str, Any]:
    """The result row of a suite (or one expectation of it, numbered) that could not run."""
    return {
        "validated_at": validated_at,
        "suite_name": suite_name,
        "expectation_number": expectation_number,
        "mart_name": mart,
        "expectation_type": expectation_type,
        "column_name": column,
        "threshold_parameter": None,
        "threshold": None,
        "success": False,
        "evaluated_rows": 0,
        "failing_rows": 0,
        "severity": severity,
        "failure_message": f"suite {suite_name} could not run: {reason}",
        "status": "error",
        "findings": "[]",
    }


def _check_expectations(definition: Mapping[str, Any]) -> None:
    """Raise SuiteError naming the first expectation GX cannot build (GX would skip it)."""
    from great_expectations.expectations.expectation_configuration import (
        ExpectationConfiguration,
    )

    for index, expectation in enumerate(definition["expectations"], start=1):
        try:
            ExpectationConfiguration(**expectation).to_domain_obj()
        except Exception as error:  # noqa: BLE001 - any invalid configuration
            raise SuiteError(
                f"expectation {index} ({expectation.get('type')!r}) is not a valid GX "
                f"expectation: {getattr(error, 'message', None) or error}"
            ) from error


def _run_validation(
    suite_name: str, definition: dict[str, Any], dataframe: pd.DataFrame, parameters: Any
) -> Any:
    """Validate `dataframe` against the suite `definition`: GX's validation result."""
    import great_expectations as gx
    from great_expectations.core import ExpectationSuite

    mart = definition["meta"]["mart"]
    context = _context()
    asset_name = f"{mart}__{suite_name}"
    datasource = (
        context.data_sources.get("challenge_fairness_marts")
        if "challenge_fairness_marts" in context.data_sources.all()
        else context.data_sources.add_pandas("challenge_fairness_marts")
    )
    identifying_columns = sorted(
        {
            column
            for expectation in definition["expectations"]
            for column in (expectation.get("meta") or {}).get("identifying_columns", [])
        }
    )
    try:
        asset = datasource.add_dataframe_asset(asset_name)
        batch = asset.add_batch_definition_whole_dataframe("all_rows")
        suite = context.suites.add(ExpectationSuite(**definition))
        validation = context.validation_definitions.add(
            gx.ValidationDefinition(name=asset_name, data=batch, suite=suite)
        )
        return validation.run(
            batch_parameters={"dataframe": dataframe},
            expectation_parameters=parameters,
            result_format={
                "result_format": "COMPLETE",
                "unexpected_index_column_names": identifying_columns,
            },
        )
    finally:
        # The context is per process: forget this run's objects so a rerun can re-add them.
        for forget in (
            lambda: context.validation_definitions.delete(asset_name),
            lambda: context.suites.delete(definition.get("name", suite_name)),
            lambda: datasource.delete_asset(asset_name),
        ):
            with suppress(Exception):
                forget()


def validate_suite(
    suite_name: str,
    dataframe: pd.DataFrame,
    thresholds: Mapping[str, float],
    severity: str,
    validated_at: datetime | None = None,
) -> list[dict[str, Any]]:
    """Run one suite on one mart's rows: a result row per expectation.

    A suite that cannot run gives one row with status 'error' (and an expectation that
    raised, its own 'error' row) instead of an exception.
    """
    validated_at = validated_at or datetime.now(UTC).replace(tzinfo=None)
    try:
        definition = load_suite(suite_name)
    except (FileNotFoundError, SuiteError) as error:
        return [error_row(suite_name, str(error), severity, validated_at)]
    mart = str(definition["meta"]["mart"])
    parameters = expectation_parameters(thresholds)
    for expectation in definition["expectations"]:
        wanted = (expectation.get("meta") or {}).get("threshold_parameter")
        if wanted and wanted not in thresholds:
            return [
                error_row(
                    suite_name,
                    f"threshold_parameter {wanted!r} is not a gate threshold "
                    f"(known: {sorted(thresholds)})",
                    severity,
                    validated_at,
                    mart,
                    expectation.get("type"),
                )
            ]
    try:
        _check_expectations(definition)
        outcome = _run_validation(suite_name, definition, dataframe, parameters)
    except SuiteError as error:
        return [error_row(suite_name, str(error), severity, validated_at, mart)]
    except Exception as error:  # noqa: BLE001 - any GX failure is this suite's error
        return [
            error_row(suite_name, f"{type(error).__name__}: {error}", severity, validated_at, mart)
        ]
    if len(outcome.results) != len(definition["expectations"]):
        reason = (
            f"GX ran {len(outcome.results)} of its {len(definition['expectations'])} expectations"
        )
        return [error_row(suite_name, reason, severity, validated_at, mart)]

    rows = []
    for number, expectation_result in enumerate(outcome.results, start=1):
        config = expectation_result.expectation_config
        meta = config.meta or {}
        parameter = meta.get("threshold_parameter")
        threshold = float(thresholds[parameter]) if parameter and parameter in thresholds else None
        raised = _exception_message(expectation_result.exception_info)
        if raised is not None:
            rows.append(
                error_row(
                    suite_name,
                    f"{config.type} on column {config.kwargs.get('column')!r} raised: {raised}",
                    severity,
                    validated_at,
                    mart,
                    config.type,
                    config.kwargs.get("column"),
                    number,
                )
            )
            continue
        result = expectation_result.result or {}
        findings = _findings(result, meta, threshold)
        unexpected = int(result.get("unexpected_count", 0) or 0)
        message = None
        if not expectation_result.success:
            header = f"{suite_name} failed on {mart} ({unexpected} rows):"
            if not findings:  # failed without listing rows: the failure is the finding
                findings = [dict.fromkeys(FINDING_FIELDS) | {"message": header}]
            lines = [finding["message"] for finding in findings]
            shown = lines[:MAX_LISTED_FAILURES]
            more = len(lines) - len(shown)
            message = "\n".join([header, *shown] + ([f"... and {more} more"] if more else []))
        rows.append(
            {
                "validated_at": validated_at,
                "suite_name": suite_name,
                "expectation_number": number,
                "mart_name": mart,
                "expectation_type": config.type,
                "column_name": config.kwargs.get("column"),
                "threshold_parameter": parameter,
                "threshold": threshold,
                "success": bool(expectation_result.success),
                "evaluated_rows": int(result.get("element_count", len(dataframe))),
                "failing_rows": unexpected,
                "severity": severity,
                "failure_message": message,
                "status": "passed" if expectation_result.success else "failed",
                "findings": json.dumps(findings if not expectation_result.success else []),
            }
        )
    return rows


def validate_marts(
    marts: Mapping[str, pd.DataFrame],
    suite_names: Sequence[str],
    thresholds: Mapping[str, float],
    severity: str,
) -> pd.DataFrame:
    """Run every named suite on the mart it names: one row per expectation.

    A suite that cannot run (see :func:`validate_suite`), or that names a mart not given,
    gives a row with status 'error'.
    """
    validated_at = datetime.now(UTC).replace(tzinfo=None)
    rows: list[dict[str, Any]] = []
    for suite_name in suite_names:
        try:
            mart = str(load_suite(suite_name)["meta"]["mart"])
        except (FileNotFoundError, SuiteError) as error:
            rows.append(error_row(suite_name, str(error), severity, validated_at))
            continue
        if mart not in marts:
            reason = f"it checks {mart!r}, which is not one of the gate's marts {sorted(marts)}"
            rows.append(error_row(suite_name, reason, severity, validated_at, mart))
            continue
        rows.extend(validate_suite(suite_name, marts[mart], thresholds, severity, validated_at))
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
