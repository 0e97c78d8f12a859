"""Optional `test_cases` / `test_results` tables for a generated platform (test fixtures).

Same shape as the demo data contract: about six test cases per challenge; one result per
attempt and test case of its challenge; P(pass) = sigmoid((score - difficulty) / 8), plus
a planted log-odds shift for (test case, family) pairs that are implementation-specific.
String-handling challenges get inputs covering every Unicode category, except the
categories a fixture says a challenge lacks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from challenge_fairness.demo import Platform

TEST_CASES_SCHEMA = pa.schema(
    [("test_case_id", pa.string()), ("challenge_id", pa.string()), ("input_text", pa.string())]
)
TEST_RESULTS_SCHEMA = pa.schema(
    [("attempt_id", pa.string()), ("test_case_id", pa.string()), ("passed", pa.bool_())]
)
UNICODE_SAMPLES: dict[str, str] = {
    "accented_latin": "café ñandú über",
    "cjk": "漢字 かな 한글",
    "emoji": "party 😀🎉",
    "right_to_left": "שלום مرحبا",
    "zero_width": "zero\u200bwidth\u200djoin\ufeff",
}
PASS_SLOPE = 8.0


def build_test_case_tables(
    platform: Platform,
    tests_per_challenge: int = 6,
    biased: Sequence[tuple[str, str, float]] = (),
    unicode_gaps: Mapping[str, Sequence[str]] | None = None,
    seed: int = 0,
    include_unscored: bool = False,
    without_test_cases: Sequence[str] = (),
) -> dict[str, pa.Table]:
    """`test_cases` and `test_results` for `platform`; `biased` holds
    (test_case_id, family, log-odds shift), `unicode_gaps` challenge -> lacking categories;
    unscored attempts get (failed) results when `include_unscored`."""
    rng = np.random.default_rng(seed)
    challenges = platform.tables["challenges"].to_pylist()
    gaps = unicode_gaps or {}
    case_rows: list[dict[str, str]] = []
    for challenge in challenges:
        challenge_id = challenge["challenge_id"]
        if challenge_id in without_test_cases:
            continue
        inputs = [f"plain input {i + 1} of {challenge_id}" for i in range(tests_per_challenge)]
        if "string-handling" in (challenge["tags"] or []):
            present = [c for c in UNICODE_SAMPLES if c not in gaps.get(challenge_id, ())]
            for i, category in enumerate(present):
                inputs[i % tests_per_challenge] += " " + UNICODE_SAMPLES[category]
        for i in range(tests_per_challenge):
            case_rows.append(
                {
                    "test_case_id": f"{challenge_id}-tc{i + 1}",
                    "challenge_id": challenge_id,
                    "input_text": inputs[i],
                }
            )
    test_cases = pa.Table.from_pylist(case_rows, schema=TEST_CASES_SCHEMA)

    attempts = platform.tables["attempts"]
    if not include_unscored:
        attempts = attempts.filter(pc.is_valid(attempts.column("score")))
    attempts = attempts.filter(
        pc.invert(
            pc.is_in(
                attempts.column("challenge_id"), pa.array(list(without_test_cases), pa.string())
            )
        )
    )
    agents = platform.tables["agents"].to_pandas()
    models = platform.tables["models"].to_pandas()
    family_of_agent = agents.merge(models, on="model_id").set_index("agent_id")["model_family"]
    challenge_ids = [c["challenge_id"] for c in challenges]
    challenge_pos = {c: i for i, c in enumerate(challenge_ids)}
    difficulty = 60.0 + rng.normal(0.0, 12.0, size=(len(challenge_ids), tests_per_challenge))

    attempt_ids = np.asarray(attempts.column("attempt_id").to_pylist(), dtype=object)
    positions = np.array([challenge_pos[c] for c in attempts.column("challenge_id").to_pylist()])
    families = family_of_agent.loc[attempts.column("agent_id").to_pylist()].to_numpy()
    scores = attempts.column("score").to_numpy(zero_copy_only=False)
    n = attempt_ids.size
    case_index = np.tile(np.arange(tests_per_challenge), n)
    attempt_index = np.repeat(np.arange(n), tests_per_challenge)
    logit = (scores[attempt_index] - difficulty[positions[attempt_index], case_index]) / PASS_SLOPE
    all_case_ids = np.array(
        [[f"{c}-tc{i + 1}" for i in range(tests_per_challenge)] for c in challenge_ids],
        dtype=object,
    )
    case_ids = all_case_ids[positions[attempt_index], case_index]
    for test_case_id, family, shift in biased:
        logit[(case_ids == test_case_id) & (families[attempt_index] == family)] += shift
    passed = rng.random(logit.size) < 1.0 / (1.0 + np.exp(-np.nan_to_num(logit, nan=-50.0)))
    test_results = pa.table(
        {
            "attempt_id": pa.array(attempt_ids[attempt_index], pa.string()),
            "test_case_id": pa.array(case_ids, pa.string()),
            "passed": pa.array(passed, pa.bool_()),
        },
        schema=TEST_RESULTS_SCHEMA,
    )
    return {"test_cases": test_cases, "test_results": test_results}


def write_tables_parquet(tables: Mapping[str, pa.Table], directory: str) -> None:
    """Write extra tables as `<directory>/<name>.parquet`."""
    for name, table in tables.items():
        pq.write_table(table, f"{directory}/{name}.parquet")


def with_string_handling(platform: Platform, challenge_ids: Sequence[str]) -> Platform:
    """The platform with the tag 'string-handling' on exactly `challenge_ids`."""
    challenges = platform.tables["challenges"]
    tags = [
        sorted({t for t in (row or []) if t != "string-handling"} | {"string-handling"})
        if challenge_id in challenge_ids
        else [t for t in (row or []) if t != "string-handling"]
        for challenge_id, row in zip(
            challenges.column("challenge_id").to_pylist(),
            challenges.column("tags").to_pylist(),
            strict=True,
        )
    ]
    index = challenges.schema.get_field_index("tags")
    challenges = challenges.set_column(index, "tags", pa.array(tags, pa.list_(pa.string())))
    return dataclasses.replace(platform, tables={**platform.tables, "challenges": challenges})


def dirty_test_tables(
    tables: Mapping[str, pa.Table], platform: Platform
) -> tuple[dict[str, pa.Table], list[tuple[str, str]]]:
    """Append bad rows of every kind (passed as text); return them with (table, reason).

    The clean rows' statistics are untouched: duplicates repeat a clean row (the first copy
    stays), and the conflicting results are on an extra test case without other results.
    """
    cases = tables["test_cases"].to_pylist()
    results = tables["test_results"].to_pylist()
    challenge = cases[0]["challenge_id"]
    attempts = platform.tables["attempts"].to_pylist()
    own = next(a["attempt_id"] for a in attempts if a["challenge_id"] == challenge)
    other = next(a["attempt_id"] for a in attempts if a["challenge_id"] != challenge)
    extra_case = f"{challenge}-tc-extra"
    bad_cases = [
        ({"test_case_id": None, "challenge_id": challenge, "input_text": "x"}, "null_test_case_id"),
        (dict(cases[1]), "duplicate_test_case_id"),
        (
            {"test_case_id": "tc-conflict", "challenge_id": challenge, "input_text": "a"},
            "conflicting_test_case_id",
        ),
        (
            {"test_case_id": "tc-conflict", "challenge_id": challenge, "input_text": "b"},
            "conflicting_test_case_id",
        ),
        (
            {"test_case_id": "tc-orphan", "challenge_id": "ch-unknown", "input_text": "x"},
            "unknown_challenge_id",
        ),
        (
            {"test_case_id": "tc-no-challenge", "challenge_id": None, "input_text": "x"},
            "null_challenge_id",
        ),
    ]
    clean_extra = {"test_case_id": extra_case, "challenge_id": challenge, "input_text": "extra"}
    first = results[0]
    bad_results = [
        (
            {"attempt_id": None, "test_case_id": cases[0]["test_case_id"], "passed": "true"},
            "null_attempt_id",
        ),
        ({"attempt_id": own, "test_case_id": None, "passed": "true"}, "null_test_case_id"),
        (dict(first), "duplicate_test_result_id"),
        (
            {"attempt_id": own, "test_case_id": extra_case, "passed": "true"},
            "conflicting_test_result_id",
        ),
        (
            {"attempt_id": own, "test_case_id": extra_case, "passed": "false"},
            "conflicting_test_result_id",
        ),
        (
            {"attempt_id": "att-unknown", "test_case_id": cases[0]["test_case_id"], "passed": "1"},
            "unknown_attempt_id",
        ),
        ({"attempt_id": own, "test_case_id": "tc-orphan", "passed": "0"}, "unknown_test_case_id"),
        (
            {"attempt_id": other, "test_case_id": extra_case, "passed": "t"},
            "test_case_of_other_challenge",
        ),
        ({"attempt_id": own, "test_case_id": "tc-null-passed", "passed": None}, "null_passed"),
        ({"attempt_id": own, "test_case_id": "tc-maybe", "passed": "maybe"}, "passed_not_boolean"),
    ]
    for test_case_id in ("tc-null-passed", "tc-maybe"):
        cases.append({"test_case_id": test_case_id, "challenge_id": challenge, "input_text": "x"})
    text_schema = pa.schema(
        [("attempt_id", pa.string()), ("test_case_id", pa.string()), ("passed", pa.string())]
    )

    def as_text(row: dict[str, object]) -> dict[str, object]:
        """The row with `passed` as text ('true'/'false' for booleans)."""
        value = row["passed"]
        return {**row, "passed": None if value is None else str(value).lower()}

    dirty = {
        "test_cases": pa.Table.from_pylist(
            [*cases, clean_extra, *(row for row, _ in bad_cases)], schema=TEST_CASES_SCHEMA
        ),
        "test_results": pa.Table.from_pylist(
            [as_text(row) for row in [*results, *(row for row, _ in bad_results)]],
            schema=text_schema,
        ),
    }
    expected = [("test_cases", reason) for _, reason in bad_cases]
    expected += [("test_results", reason) for _, reason in bad_results]
    return dirty, expected


# --- dbt builds shared by the test case bias and Unicode coverage tests --------------------

SELECTION = (
    "+fct_test_case_bias",
    "+fct_test_case_family_dif",
    "+fct_string_challenge_unicode_coverage",
    "+fct_detector_coverage",
)
LARGE_SKILL_GAP = (-6.0, -3.6, -1.2, 1.2, 3.6, 6.0)  # 12 points between families
STRING_CHALLENGES = ("ch-s03", "ch-s04", "ch-s06")
PLANTED = ("ch-s05-tc3", "mistral", -2.5)
UNICODE_GAP = ("ch-s03", ("cjk", "right_to_left"))
WITHOUT_TEST_CASES = "ch-s06"
_BUILDS: dict[str, dict[str, object]] = {}


def _platform(seed: int) -> Platform:
    """A small platform (30 challenges) with a large genuine skill gap between families."""
    from challenge_fairness.demo import PlatformSpec, generate_platform

    spec = PlatformSpec(
        seed=seed,
        n_attempts=12_000,
        n_templates=1,
        planted_family_biases=(),
        family_skill=LARGE_SKILL_GAP,
    )
    return with_string_handling(generate_platform(spec), STRING_CHALLENGES)


def _build(work: Path, dbt_vars: dict[str, object]) -> Path:
    """dbt build of the two detectors (and their upstream) into work/marts.duckdb."""
    from conftest import run_dbt

    database = work / "marts.duckdb"
    run = run_dbt(
        ["build", "--select", *SELECTION, "--indirect-selection", "cautious"],
        database=database,
        work_dir=work,
        dbt_vars=dbt_vars,
    )
    assert run.success, run.output
    return database


def planted_build(base: Path) -> dict[str, object]:
    """Parquet platform: one implementation-specific test case, a Unicode gap, a
    string-handling challenge without test cases, bad rows of every kind."""
    if "planted" not in _BUILDS:
        from challenge_fairness.demo import write_parquet

        work = base / "planted"
        work.mkdir(exist_ok=True)
        platform = _platform(seed=11)
        tables = build_test_case_tables(
            platform,
            biased=[PLANTED],
            unicode_gaps=dict([UNICODE_GAP]),
            without_test_cases=[WITHOUT_TEST_CASES],
            include_unscored=True,
        )
        dirty, expected_rejections = dirty_test_tables(tables, platform)
        write_parquet(platform, str(work / "raw"))
        write_tables_parquet(dirty, str(work / "raw"))
        database = _build(work, {"raw_parquet_dir": str(work / "raw")})
        _BUILDS["planted"] = {
            "database": database,
            "platform": platform,
            "tables": tables,
            "expected_rejections": expected_rejections,
        }
    return _BUILDS["planted"]


def fair_build(base: Path) -> dict[str, object]:
    """DuckDB raw schema, another seed, no planted DIF and complete Unicode inputs."""
    if "fair" not in _BUILDS:
        import duckdb
        from challenge_fairness.demo import write_duckdb

        work = base / "fair"
        work.mkdir(exist_ok=True)
        platform = _platform(seed=29)
        tables = build_test_case_tables(platform, seed=5)
        database = work / "marts.duckdb"
        write_duckdb(platform, str(database))
        with duckdb.connect(str(database)) as connection:
            for name, table in tables.items():
                connection.register("extra_table", table)
                connection.execute(f"create table raw.{name} as select * from extra_table")
                connection.unregister("extra_table")
        _build(work, {})
        _BUILDS["fair"] = {"database": database, "platform": platform, "tables": tables}
    return _BUILDS["fair"]


def absent_build(base: Path) -> dict[str, object]:
    """Parquet platform without the optional tables."""
    if "absent" not in _BUILDS:
        from challenge_fairness.demo import write_parquet

        work = base / "absent"
        work.mkdir(exist_ok=True)
        platform = _platform(seed=3)
        write_parquet(platform, str(work / "raw"))
        database = _build(work, {"raw_parquet_dir": str(work / "raw")})
        _BUILDS["absent"] = {"database": database, "platform": platform}
    return _BUILDS["absent"]
