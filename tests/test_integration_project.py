"""Tier 5: the package installed into a consumer dbt project (integration_tests/)."""

from __future__ import annotations

from pathlib import Path

import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_duckdb
from conftest import REPO_ROOT, read_table, run_dbt

pytestmark = pytest.mark.dbt
CONSUMER = REPO_ROOT / "integration_tests"


@pytest.fixture(scope="module")
def consumer_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("consumer")
    database = work / "consumer.duckdb"
    platform = generate_platform(PlatformSpec(seed=5, n_attempts=5_000))
    write_duckdb(platform, str(database), schema="platform_raw")
    deps = run_dbt(["deps"], database=database, work_dir=work, project_dir=CONSUMER)
    assert deps.success, deps.output
    return database


def test_consumer_builds_the_package_marts_with_its_own_vars(
    consumer_database: Path, tmp_path: Path
) -> None:
    run = run_dbt(
        ["build"],
        database=consumer_database,
        work_dir=tmp_path,
        project_dir=CONSUMER,
        dbt_vars={"fairness_gate_severity": "warn"},
    )
    assert run.success, run.output
    assert "assert_consumer_vars_reach_the_package" in run.output
    flagged = read_table(consumer_database, "select * from main.consumer_challenges_to_review")
    deviations = read_table(consumer_database, "select * from main.fct_family_deviation")
    assert len(flagged) == int(deviations.is_flagged.sum()) > 0
    eligible = deviations[deviations.challenge_attempts.between(50, 99)]
    assert len(eligible) > 0 and eligible.is_eligible.all()


def test_consumer_build_fails_on_the_gate_by_default(
    consumer_database: Path, tmp_path: Path
) -> None:
    run = run_dbt(["build"], database=consumer_database, work_dir=tmp_path, project_dir=CONSUMER)
    assert not run.success
    assert "FAIRNESS GATE (error)" in run.output
