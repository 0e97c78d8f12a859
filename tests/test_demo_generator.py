"""Tests for the deterministic demo platform generator (challenge_fairness.demo)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import sys
from collections import Counter
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

if importlib.util.find_spec("challenge_fairness") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python_udfs"))

from challenge_fairness.demo import (
    Platform,
    PlatformSpec,
    canonical_variables,
    generate_platform,
    main,
    write_duckdb,
    write_parquet,
)

CONTRACT = {
    "attempts": pa.schema(
        [
            ("attempt_id", pa.string()),
            ("challenge_id", pa.string()),
            ("agent_id", pa.string()),
            ("score", pa.float64()),
            ("submitted_at", pa.timestamp("us")),
        ]
    ),
    "challenges": pa.schema(
        [
            ("challenge_id", pa.string()),
            ("template_id", pa.string()),
            ("variables", pa.string()),
            ("briefing_style", pa.string()),
            ("experiment_id", pa.string()),
            ("experiment_arm", pa.string()),
            ("tags", pa.list_(pa.string())),
        ]
    ),
    "agents": pa.schema([("agent_id", pa.string()), ("model_id", pa.string())]),
    "models": pa.schema(
        [
            ("model_id", pa.string()),
            ("model_family", pa.string()),
            ("training_cutoff", pa.date32()),
        ]
    ),
}
DUCKDB_CONTRACT = {
    "attempts": ["VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE", "TIMESTAMP"],
    "challenges": ["VARCHAR"] * 6 + ["VARCHAR[]"],
    "agents": ["VARCHAR", "VARCHAR"],
    "models": ["VARCHAR", "VARCHAR", "DATE"],
}
ID_COLUMN = {
    "attempts": "attempt_id",
    "challenges": "challenge_id",
    "agents": "agent_id",
    "models": "model_id",
}


def same_table(left: pa.Table, right: pa.Table) -> bool:
    """Table equality that treats NaN as equal to NaN (Arrow's equals does not)."""
    if not left.schema.equals(right.schema):
        return False
    for name in left.column_names:
        a, b = left.column(name), right.column(name)
        if pa.types.is_floating(a.type):
            values_a = a.to_numpy(zero_copy_only=False)
            values_b = b.to_numpy(zero_copy_only=False)
            if not pc.is_null(a).equals(pc.is_null(b)):
                return False
            if not np.array_equal(values_a, values_b, equal_nan=True):
                return False
        elif not a.equals(b):
            return False
    return True


@pytest.fixture(scope="module")
def clean() -> Platform:
    """Default platform without bad rows."""
    return generate_platform(PlatformSpec())


@pytest.fixture(scope="module")
def dirty() -> Platform:
    """Default platform with bad rows of every kind."""
    return generate_platform(PlatformSpec(dirty=True))


def scored_with_family(platform: Platform) -> pd.DataFrame:
    """Scored attempts joined to their model family."""
    t = platform.tables
    attempts = t["attempts"].to_pandas().dropna(subset=["score"])
    agents = t["agents"].to_pandas()
    models = t["models"].to_pandas()
    return attempts.merge(agents, on="agent_id").merge(models, on="model_id")


def detect_problems(tables: dict[str, pa.Table]) -> Counter[tuple[str, str]]:
    """Independent mini-validator: count (table, reason) over rows."""
    found: Counter[tuple[str, str]] = Counter()
    frames = {name: t.to_pandas() for name, t in tables.items()}
    for name, df in frames.items():
        key = ID_COLUMN[name]
        found[(name, f"null_{key}")] += int(df[key].isna().sum())
        comparable = df.assign(**{c: df[c].astype(str) for c in df.columns})
        ids = comparable[df[key].notna()]
        exact_extra = ids.duplicated(keep="first")
        found[(name, "duplicate_" + key)] += int(exact_extra.sum())
        distinct = ids[~exact_extra]
        found[(name, "conflicting_" + key)] += int(distinct[key].duplicated(keep=False).sum())

    a = frames["attempts"]
    score = tables["attempts"].column("score")
    finite = pc.fill_null(pc.is_finite(score), True).to_numpy(zero_copy_only=False)
    values = pc.fill_null(score, 50.0).to_numpy(zero_copy_only=False)
    found[("attempts", "score_not_finite")] += int((~finite).sum())
    found[("attempts", "score_out_of_range")] += int(
        (finite & ((values < 0) | (values > 100))).sum()
    )
    known_challenges = set(frames["challenges"]["challenge_id"].dropna())
    known_agents = set(frames["agents"]["agent_id"].dropna())
    known_models = set(frames["models"]["model_id"].dropna())
    for col, known, table in (
        ("challenge_id", known_challenges, "attempts"),
        ("agent_id", known_agents, "attempts"),
    ):
        found[(table, f"null_{col}")] += int(a[col].isna().sum())
        found[(table, f"unknown_{col}")] += int((a[col].notna() & ~a[col].isin(known)).sum())
    g = frames["agents"]
    found[("agents", "unknown_model_id")] += int(
        (g["model_id"].notna() & ~g["model_id"].isin(known_models)).sum()
    )
    found[("models", "null_model_family")] += int(frames["models"]["model_family"].isna().sum())
    for variables in frames["challenges"]["variables"]:
        try:
            parsed = json.loads(variables)
        except json.JSONDecodeError:
            found[("challenges", "malformed_variables_json")] += 1
            continue
        if not isinstance(parsed, dict):
            found[("challenges", "variables_not_json_object")] += 1
    return +found


def test_deterministic_for_a_seed() -> None:
    """Same spec gives identical tables; another seed gives different scores."""
    spec = PlatformSpec(n_attempts=5_000, dirty=True)
    first, second = generate_platform(spec), generate_platform(spec)
    for name in first.tables:
        assert same_table(first.tables[name], second.tables[name]), name
    assert first.dirty_rows.equals(second.dirty_rows)
    other = generate_platform(PlatformSpec(n_attempts=5_000, seed=8))
    assert not other.tables["attempts"].equals(first.tables["attempts"])


@pytest.mark.parametrize("kind", ["clean", "dirty"])
def test_schema_matches_contract(kind: str, request: pytest.FixtureRequest) -> None:
    """Column names, order and Arrow types are exactly the source contract."""
    platform: Platform = request.getfixturevalue(kind)
    assert set(platform.tables) == set(CONTRACT)
    for name, schema in CONTRACT.items():
        assert platform.tables[name].schema.equals(schema), name


def test_ids_unique_and_references_resolve(clean: Platform) -> None:
    """Clean data has unique non-null ids and no dangling references."""
    t = clean.tables
    for name, col in ID_COLUMN.items():
        ids = t[name].column(col)
        assert ids.null_count == 0
        assert pc.count_distinct(ids).as_py() == len(ids), name
    assert detect_problems(t) == Counter()
    assert t["attempts"].num_rows == 60_000
    assert t["challenges"].num_rows == 18 + 6 * 4 + 8 + 12
    assert t["agents"].num_rows == 6 * 2 * 3
    assert t["models"].num_rows == 12


def test_score_range_and_outcomes(clean: Platform) -> None:
    """Scores are integers in 0..100 with the expected null and crash shares."""
    score = clean.tables["attempts"].column("score").to_numpy(zero_copy_only=False)
    scored = score[~np.isnan(score)]
    assert scored.min() >= 0 and scored.max() <= 100
    assert np.array_equal(scored, np.rint(scored))
    assert 0.005 < np.isnan(score).mean() < 0.015
    assert 0.03 < (scored <= 5).mean() < 0.06
    submitted = clean.tables["attempts"].column("submitted_at")
    assert pc.min(submitted).as_py() >= pd.Timestamp("2026-01-01")
    assert pc.max(submitted).as_py() < pd.Timestamp("2026-07-01")


def test_fractional_scores_when_not_integer() -> None:
    """integer_scores=False keeps fractional scores, still clipped."""
    spec = PlatformSpec(n_attempts=2_000, integer_scores=False)
    score = generate_platform(spec).tables["attempts"].column("score").drop_null().to_numpy()
    assert (score != np.rint(score)).any()
    assert score.min() >= 0 and score.max() <= 100


def test_challenge_catalogue(clean: Platform) -> None:
    """Templates enumerate every combination; other contract columns carry plausible values."""
    ch = clean.tables["challenges"].to_pandas()
    ch["canonical"] = ch["variables"].map(canonical_variables)
    standalone = ch["variables"] == "{}"
    assert standalone.sum() == 12
    assert ch.loc[standalone, "template_id"].is_unique
    assert ch.loc[standalone, "briefing_style"].isna().all()
    templated = ch[~standalone]
    assert set(templated["briefing_style"]) == {"markdown", "plain"}
    for _, group in templated.groupby("template_id"):
        variables = [json.loads(v) for v in group["variables"]]
        values = {k: sorted({v[k] for v in variables}) for k in variables[0]}
        assert all(2 <= len(vals) <= 3 for vals in values.values())
        assert len(group) == math.prod(len(vals) for vals in values.values())
        assert group["canonical"].is_unique
        assert len(group) == len(list(itertools.product(*values.values())))
    non_canonical = (templated["variables"] != templated["canonical"]).mean()
    assert 0.3 < non_canonical < 0.7
    assert templated["variables"].str.contains('": "').any()
    experiment = ch[ch["experiment_id"].notna()]
    assert set(experiment["experiment_id"]) == {"exp-001"}
    assert sorted(experiment["experiment_arm"]) == ["A", "B"]
    tags = Counter(tag for row in ch["tags"] for tag in row)
    assert {"api:stripe", "api:twilio", "string-handling"} <= set(tags)
    assert (ch["tags"].map(len) == 0).sum() > len(ch) / 2
    cutoffs = clean.tables["models"].column("training_cutoff")
    assert cutoffs.null_count == 1
    years = {d.year for d in cutoffs.drop_null().to_pylist()}
    assert years <= {2024, 2025}


def test_planted_truth_tables(clean: Platform) -> None:
    """Truth tables list the defaults, with canonical variables that exist in the data."""
    biases = clean.planted_family_biases.to_pylist()
    assert len({b["challenge_id"] for b in biases}) == 3
    assert {b["shift"] for b in biases} == {20.0, -20.0}
    assert any(b["challenge_id"].startswith("ch-s") for b in biases)
    assert any(b["challenge_id"].startswith("ch-t") for b in biases)
    (hard,) = clean.planted_hard_combinations.to_pylist()
    assert hard["variables"] == canonical_variables(hard["variables"])
    ch = clean.tables["challenges"].to_pandas()
    same_template = ch[ch["template_id"] == hard["template_id"]]
    assert len(same_template) >= 6
    assert hard["variables"] in set(same_template["variables"].map(canonical_variables))


def test_planted_family_bias_visible(clean: Platform) -> None:
    """Family-vs-others gap on the planted challenge, net of the gap elsewhere, is the shift."""
    df = scored_with_family(clean)
    for row in clean.planted_family_biases.to_pylist():
        on = df["challenge_id"] == row["challenge_id"]
        fam = df["model_family"] == row["model_family"]
        gap_on = df[on & fam]["score"].mean() - df[on & ~fam]["score"].mean()
        gap_off = df[~on & fam]["score"].mean() - df[~on & ~fam]["score"].mean()
        assert gap_on - gap_off == pytest.approx(row["shift"], abs=6), row


def test_hard_combination_visible(clean: Platform) -> None:
    """The planted combination is by far the hardest challenge of its template."""
    (hard,) = clean.planted_hard_combinations.to_pylist()
    df = scored_with_family(clean)
    ch = clean.tables["challenges"].to_pandas()
    ch["canonical"] = ch["variables"].map(canonical_variables)
    ch = ch[ch["template_id"] == hard["template_id"]]
    means = df[df["challenge_id"].isin(ch["challenge_id"])].groupby("challenge_id")["score"].mean()
    target = ch.loc[ch["canonical"] == hard["variables"], "challenge_id"].item()
    others = means.drop(target)
    assert means.idxmin() == target
    assert means[target] - others.mean() < hard["shift"] / 2
    assert means[target] - others.mean() == pytest.approx(hard["shift"], abs=10)


def test_family_routing_confounds() -> None:
    """A routed family lands on the template's hardest combinations far more often."""
    spec = PlatformSpec(n_attempts=30_000, family_routing={"gpt": ("tpl-01", 6.0)})
    df = scored_with_family(generate_platform(spec))
    on_template = df["challenge_id"].str.startswith("ch-t01-")
    share = on_template.groupby(df["model_family"]).mean()
    assert share["gpt"] > 1.3 * share.drop("gpt").max()


def test_invalid_planted_ids_rejected() -> None:
    """Planted effects that do not exist in the spec raise ValueError."""
    with pytest.raises(ValueError, match="planted family bias"):
        generate_platform(
            PlatformSpec(n_attempts=10, planted_family_biases=(("nope", "gpt", 5.0),))
        )
    with pytest.raises(ValueError, match="planted hard combination"):
        generate_platform(
            PlatformSpec(n_attempts=10, planted_hard_combinations=(("tpl-01", '{"a":1}', -5.0),))
        )
    with pytest.raises(ValueError):
        generate_platform(PlatformSpec(family_skill=(1.0,)))


def test_dirty_rows_present_as_listed(clean: Platform, dirty: Platform) -> None:
    """Every listed bad row exists and an independent check finds exactly the listed problems."""
    listing = dirty.dirty_rows.to_pylist()
    assert clean.dirty_rows.num_rows == 0
    assert dirty.dirty_rows.schema.names == ["source_table", "row_key", "expected_reason"]
    expected = Counter((r["source_table"], r["expected_reason"]) for r in listing)
    assert detect_problems(dirty.tables) == expected
    reasons = {r["expected_reason"] for r in listing}
    assert reasons == {
        "null_attempt_id",
        "duplicate_attempt_id",
        "conflicting_attempt_id",
        "score_out_of_range",
        "score_not_finite",
        "unknown_challenge_id",
        "unknown_agent_id",
        "null_challenge_id",
        "null_agent_id",
        "conflicting_challenge_id",
        "malformed_variables_json",
        "variables_not_json_object",
        "unknown_model_id",
        "null_model_family",
        "null_model_id",
    }
    assert expected[("attempts", "conflicting_attempt_id")] == 2
    assert expected[("challenges", "conflicting_challenge_id")] == 2
    for row in listing:
        if "IS NULL" in row["row_key"]:
            continue
        ids = dirty.tables[row["source_table"]].column(ID_COLUMN[row["source_table"]])
        assert row["row_key"] in set(ids.to_pylist()), row


def test_dirty_rows_do_not_cascade(clean: Platform, dirty: Platform) -> None:
    """Dirty dimension rows have no dependants and the clean rows are unchanged."""
    t = dirty.tables

    def added(name: str) -> set[str]:
        """Non-null ids that only the dirty table has."""
        col = ID_COLUMN[name]
        before = set(clean.tables[name].column(col).to_pylist())
        return set(t[name].column(col).drop_null().to_pylist()) - before

    new_challenges, new_agents, new_models = added("challenges"), added("agents"), added("models")
    assert new_challenges and new_agents and new_models
    assert not new_challenges & set(t["attempts"].column("challenge_id").to_pylist())
    assert not new_agents & set(t["attempts"].column("agent_id").to_pylist())
    assert not new_models & set(t["agents"].column("model_id").to_pylist())
    for name, table in clean.tables.items():
        assert same_table(t[name].slice(0, table.num_rows), table), name


def test_write_duckdb_round_trip(dirty: Platform, tmp_path: Path) -> None:
    """DuckDB tables keep contract types and every value, including NaN and infinity."""
    path = tmp_path / "demo.duckdb"
    write_duckdb(dirty, str(path), schema="raw")
    write_duckdb(dirty, str(path), schema="raw")  # idempotent: CREATE OR REPLACE
    with duckdb.connect(str(path), read_only=True) as con:
        for name, table in dirty.tables.items():
            described = con.sql(f"DESCRIBE raw.{name}").fetchall()
            assert [r[0] for r in described] == table.schema.names
            assert [r[1] for r in described] == DUCKDB_CONTRACT[name]
            back = con.sql(f"SELECT * FROM raw.{name}").to_arrow_table()
            assert back.num_rows == table.num_rows
            assert same_table(back.cast(CONTRACT[name]), table), name
        scores = con.sql("SELECT score FROM raw.attempts WHERE NOT isfinite(score)").fetchall()
        assert len(scores) == 2


def test_write_parquet_round_trip(dirty: Platform, tmp_path: Path) -> None:
    """One Parquet file per table, identical on read-back."""
    out = tmp_path / "nested" / "raw"
    write_parquet(dirty, str(out))
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.parquet" for n in CONTRACT)
    for name, table in dirty.tables.items():
        assert same_table(pq.read_table(out / f"{name}.parquet"), table), name


def test_cli_writes_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI writes DuckDB or Parquet plus the truth JSON and prints one line."""
    db = tmp_path / "cli.duckdb"
    truth = tmp_path / "truth.json"
    argv = [
        "--duckdb",
        str(db),
        "--attempts",
        "500",
        "--seed",
        "3",
        "--dirty",
        "--truth-json",
        str(truth),
    ]
    assert main(argv) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT count(*) FROM raw.attempts").fetchall()[0][0] > 500
    payload = json.loads(truth.read_text())
    assert payload["spec"]["seed"] == 3 and payload["dirty_rows"]
    assert len(payload["planted_family_biases"]) == 3
    assert main(["--parquet-dir", str(tmp_path / "pq"), "--attempts", "100"]) == 0
    assert (tmp_path / "pq" / "attempts.parquet").exists()
    with pytest.raises(SystemExit):
        main(["--attempts", "10"])


def test_cli_quickstart_is_the_make_demo_platform(tmp_path: Path) -> None:
    """`--quickstart` (what `make demo` runs) writes exactly QUICKSTART_DEMO's truth."""
    from challenge_fairness.demo import QUICKSTART_DEMO

    truth = tmp_path / "truth.json"
    argv = ["--parquet-dir", str(tmp_path / "pq"), "--quickstart", "--truth-json", str(truth)]
    assert main(argv) == 0
    payload = json.loads(truth.read_text())
    assert payload["spec"]["n_attempts"] == QUICKSTART_DEMO.n_attempts == 240_000
    assert payload["spec"]["bias_fix"] and payload["spec"]["verdict_drift"]
    assert payload["spec"]["dirty"] and payload["spec"]["detector_plants"]
    attempts = pq.read_table(tmp_path / "pq" / "attempts.parquet")
    assert attempts.num_rows == generate_platform(QUICKSTART_DEMO).tables["attempts"].num_rows


def test_one_million_attempts_generate() -> None:
    """A million attempts generate (benchmark scale smoke test, no timing assertion)."""
    attempts = generate_platform(PlatformSpec(n_attempts=1_000_000)).tables["attempts"]
    assert attempts.num_rows == 1_000_000
    assert pc.count_distinct(attempts.column("attempt_id")).as_py() == 1_000_000
    assert attempts.column("attempt_id")[-1].as_py() == "att-001000000"


# --- signals planted for the other detectors (PlatformSpec.detector_plants) --------------


@pytest.fixture(scope="module")
def planted_platform():
    return generate_platform(PlatformSpec(seed=7, n_attempts=60_000, detector_plants=True))


def test_detector_plants_leave_the_default_platform_unchanged() -> None:
    plain = generate_platform(PlatformSpec(seed=3, n_attempts=2_000))
    assert set(plain.tables) == {"attempts", "challenges", "agents", "models"}
    assert "approach" not in plain.tables["attempts"].column_names
    assert plain.detector_truth == {}


def test_style_twins_share_content_and_one_family_loses_in_plain(planted_platform) -> None:
    challenges = planted_platform.tables["challenges"].to_pandas()
    twins = challenges[challenges.challenge_id.str.endswith("-plain")]
    assert len(twins) == 6 and (twins.briefing_style == "plain").all()
    originals = challenges.set_index("challenge_id").loc[
        twins.challenge_id.str.removesuffix("-plain")
    ]
    assert (originals.briefing_style == "markdown").all()
    assert [canonical_variables(v) for v in originals.variables] == [
        canonical_variables(v) for v in twins.variables
    ]
    scores = _scores_with_family(planted_platform)
    on_twins = scores[scores.challenge_id.isin(twins.challenge_id)]
    on_originals = scores[scores.challenge_id.isin(originals.index)]
    gap = lambda frame: (  # noqa: E731
        frame[frame.model_family == "llama"].score.mean()
        - frame[frame.model_family != "llama"].score.mean()
    )
    assert gap(on_twins) - gap(on_originals) == pytest.approx(-15, abs=4)


def test_approach_labels_and_gap(planted_platform) -> None:
    attempts = _scores_with_family(planted_platform)
    s07 = attempts[attempts.challenge_id == "ch-s07"]
    assert set(s07.approach.dropna()) == {"app-router", "pages-router"}
    assert s07.approach.notna().all()
    within = s07.groupby(["model_family", "approach"]).score.mean().unstack()
    assert (within["pages-router"] - within["app-router"]).mean() == pytest.approx(-15, abs=4)
    assert attempts[~attempts.challenge_id.isin(["ch-s07", "ch-s08"])].approach.isna().all()


def test_test_tables_cover_scored_attempts_and_plant_one_dif_case(planted_platform) -> None:
    cases = planted_platform.tables["test_cases"].to_pandas()
    results = planted_platform.tables["test_results"].to_pandas()
    attempts = _scores_with_family(planted_platform)
    scored = attempts[attempts.score.notna()]
    assert len(results) == len(scored) * 6
    assert cases.test_case_id.is_unique
    joined = results.merge(scored, on="attempt_id").merge(
        cases, on=["test_case_id", "challenge_id"]
    )
    assert len(joined) == len(results)  # every result belongs to its attempt's challenge
    planted = joined[joined.test_case_id == "ch-s05-tc3"]
    high = planted[planted.score >= 60]
    rate = high.groupby(high.model_family == "mistral").passed.mean()
    assert rate[False] - rate[True] > 0.2
    lacking = cases[cases.challenge_id == "ch-s03"].input_text
    assert not lacking.str.contains("漢|ש").any() and lacking.str.contains("🚀").any()


def _scores_with_family(platform):
    tables = {name: table.to_pandas() for name, table in platform.tables.items()}
    return (
        tables["attempts"]
        .merge(tables["agents"], on="agent_id")
        .merge(tables["models"], on="model_id")
    )
