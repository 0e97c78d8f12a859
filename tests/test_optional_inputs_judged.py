"""Optional inputs are judged like required ones (issue 32, item 4): an optional table that is
present but wholly (or beyond fairness_gate_max_optional_rejected_share) rejected makes its
detectors unavailable with the reason in fct_detector_coverage, and the gate reports it as
unusable input (optional_table_unusable), instead of "available, 0 rows analysed" and a
green gate."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import read_table, run_dbt

pytestmark = pytest.mark.dbt


def test_a_wholly_rejected_optional_table_makes_its_detector_unavailable(tmp_path: Path) -> None:
    platform = generate_platform(PlatformSpec(seed=5, n_attempts=2_000, detector_plants=True))
    results = platform.tables["test_results"]
    assert results.num_rows > 0
    index = results.schema.get_field_index("passed")
    platform.tables["test_results"] = results.set_column(
        index, "passed", pa.array(["perhaps"] * results.num_rows, pa.string())
    )
    raw = tmp_path / "raw"
    write_parquet(platform, str(raw))
    database = tmp_path / "platform.duckdb"
    run = run_dbt(
        [
            "build",
            "--select",
            "+fct_detector_coverage",
            "+int_fairness_gate_inputs_checked",
            "--exclude-resource-type",
            "test",
            "--exclude-resource-type",
            "unit_test",
        ],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(raw)},
    )
    assert run.success, run.output
    coverage = read_table(
        database,
        "select * from main.fct_detector_coverage where detector = 'test_case_bias'",
    ).iloc[0]
    assert not coverage.is_available
    assert coverage.missing_inputs.startswith(
        f"optional table test_results unusable: {results.num_rows} of {results.num_rows} raw"
        " rows rejected (above fairness_gate_max_optional_rejected_share = 0.5"
    )
    checked = read_table(
        database,
        "select * from intermediate.int_fairness_gate_inputs_checked"
        " where check_name = 'optional_table_unusable' and is_failed",
    )
    assert list(checked.checked_object) == ["test_results"]
    assert "optional table test_results is unusable" in checked.message[0]
    # the usable optional tables pass the same rule
    usable = read_table(
        database,
        "select * from intermediate.int_fairness_gate_inputs_checked"
        " where check_name = 'optional_table_unusable' and not is_failed",
    )
    assert "test_cases" in set(usable.checked_object)
