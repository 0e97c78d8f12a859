"""F5, documentation memorisation: pure statistics, the code fixtures, and dbt end to end
(planted copies found, unrelated code quiet, MinHash estimates vs exact Jaccard, evidence,
absent inputs)."""

from __future__ import annotations

import dataclasses
import sysconfig
from datetime import date
from itertools import product
from pathlib import Path
from typing import Any

import contamination_reference as reference
import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from challenge_fairness.detectors import contamination_fixtures as fixtures
from challenge_fairness.detectors.contamination import (
    STATUS_NOT_TESTABLE,
    STATUS_TESTED,
    welch_difference,
)
from challenge_fairness.gate import validate_suite
from challenge_fairness.registry import register_udfs
from conftest import read_table, run_dbt
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

THRESHOLD = 0.5
PERMUTATIONS = 128
PUBLISHED_AT = date(2024, 12, 1)
PLANTED = {"ch-s09": "verbatim", "ch-s04": "renamed", "ch-s01": "reformatted", "ch-s02": "partial"}
SHARED = [("ch-t01-01", "ch-t01-02"), ("ch-t02-01", "ch-t05-03")]
PUBLICATION_SHIFT = 15.0  # points added on ch-s01 to models trained after PUBLISHED_AT
# Real, independent code: standard library modules that share no code with each other.
STDLIB_REFERENCES = (
    "argparse", "base64", "bisect", "calendar", "csv", "fractions", "gettext", "heapq",
    "netrc", "numbers", "pprint", "queue", "sched", "shlex", "statistics",
)  # fmt: skip
STDLIB_CHALLENGE_FILES = ("colorsys", "contextlib", "dataclasses", "textwrap", "uuid", "zipapp")
SELECT_MARTS = [
    "--indirect-selection",
    "cautious",
    "--select",
    "+fct_challenge_contamination",
    "+fct_family_deviation",
    "+fct_contamination_family_evidence",
    "+fct_contamination_publication_effect",
    "+fct_challenge_instance_overlap",
    "+fct_detector_coverage",
    "base_platform__challenge_files",
    "base_platform__reference_corpus",
]
SELECT_SIGNATURES = [
    "--indirect-selection",
    "cautious",
    "--select",
    "+fct_challenge_contamination",
    "+fct_detector_coverage",
    "base_platform__challenge_files",
]
COVERAGE_SQL = """
    select * exclude (mart) from main.fct_detector_coverage
    where detector = 'challenge_contamination'
    union all
    select * exclude (mart) from main.fct_detector_coverage
    where detector = 'challenge_instance_overlap'
"""
MARTS = (
    "fct_challenge_contamination",
    "fct_challenge_instance_overlap",
    "fct_contamination_family_evidence",
    "fct_contamination_publication_effect",
)


# --- pure statistics ---------------------------------------------------------------------


samples = st.lists(
    st.floats(min_value=-100, max_value=100, allow_nan=False), min_size=2, max_size=40
).filter(lambda values: np.ptp(values) > 1e-6)


@settings(max_examples=150, deadline=None)
@given(a=samples, b=samples, alpha=st.sampled_from([0.01, 0.05, 0.1]))
def test_welch_difference_matches_scipy_ttest_on_raw_samples(
    a: list[float], b: list[float], alpha: float
) -> None:
    """Moments in, the same numbers as scipy.stats.ttest_ind(equal_var=False) on the data."""
    x, y = np.array(a), np.array(b)
    result = welch_difference(
        x.size, x.mean(), x.var(ddof=1), y.size, y.mean(), y.var(ddof=1), alpha
    )
    expected = stats.ttest_ind(x, y, equal_var=False)
    interval = expected.confidence_interval(1 - alpha)
    assert result.status == STATUS_TESTED and result.reason is None
    for got, want in [
        (result.difference, x.mean() - y.mean()),
        (result.t_statistic, expected.statistic),
        (result.p_value, expected.pvalue),
        (result.degrees_of_freedom, expected.df),
        (result.ci_low, interval.low),
        (result.ci_high, interval.high),
    ]:
        assert got == pytest.approx(float(want), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    ("arguments", "reason_part"),
    [
        ((1, 5.0, np.nan, 10, 3.0, 2.0, 0.05), "at least two"),
        ((0, np.nan, np.nan, 10, 3.0, 2.0, 0.05), "at least two"),
        ((np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, 0.05), "at least two"),
        ((5, 5.0, 0.0, 7, 3.0, 0.0, 0.05), "constant"),
        ((5, 5.0, np.nan, 7, 3.0, 1.0, 0.05), "missing"),
        ((5, 5.0, 1.0, 7, 3.0, 1.0, 1.5), "alpha"),
    ],
)
def test_welch_difference_degenerate_inputs_give_null_with_a_reason(
    arguments: tuple[float, ...], reason_part: str
) -> None:
    """Thin or constant groups: no statistic, a status and a reason, never a crash."""
    result = welch_difference(*arguments)
    assert result.status == STATUS_NOT_TESTABLE
    assert reason_part in (result.reason or "")
    assert result.t_statistic is None and result.ci_low is None and result.p_value is None


def test_welch_difference_udf_registered_and_vectorised() -> None:
    """cf_welch_difference on an in-memory DuckDB: rows in, one struct per row, NULL-safe."""
    connection = duckdb.connect()
    register_udfs(connection)
    rows = connection.sql(
        """
        select unnest(cf_welch_difference(n_a, m_a, v_a, n_b, m_b, v_b, 0.05))
        from (values (10.0, 5.0, 4.0, 12.0, 3.0, 9.0), (null, null, null, 12.0, 3.0, 9.0))
            as t(n_a, m_a, v_a, n_b, m_b, v_b)
        """
    ).fetchall()
    expected = welch_difference(10, 5.0, 4.0, 12, 3.0, 9.0, 0.05)
    assert rows[0][0] == pytest.approx(2.0) and rows[0][5] == pytest.approx(expected.ci_low)
    assert rows[0][7] == STATUS_TESTED
    assert rows[1][0] is None and rows[1][7] == STATUS_NOT_TESTABLE


# --- the code fixtures ---------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_copies_keep_what_their_kind_keeps(seed: int) -> None:
    """Reformatted: identical raw tokens; renamed: identical normalised tokens, raw mostly
    changed; partial: Jaccard near 0.7 / 1.1 (checked with the independent scanner)."""
    rng = np.random.default_rng(seed)
    original = fixtures.generate_code(rng)
    reformatted = fixtures.copy_code(original, "reformatted", rng)
    assert reference.raw_tokens(reformatted) == reference.raw_tokens(original)
    assert reformatted != original
    renamed = fixtures.copy_code(original, "renamed", rng)
    assert reference.normalised_tokens(renamed) == reference.normalised_tokens(original)
    raw = [reference.shingle_set(reference.raw_tokens(t)) for t in (original, renamed)]
    assert reference.jaccard(*raw) < 0.2
    partial = fixtures.copy_code(original, "partial", rng)
    raw = [reference.shingle_set(reference.raw_tokens(t)) for t in (original, partial)]
    assert 0.5 < reference.jaccard(*raw) < 0.9


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_fixture_lexer_agrees_with_the_independent_scanner(seed: int) -> None:
    """The generator's regex lexer (mirror of the SQL one) == the character scanner."""
    rng = np.random.default_rng(seed)
    text = fixtures.generate_code(rng) + ' x = "unterminated\n/* open comment `tick` 0x1F.5e3 $a'
    assert fixtures.tokens(text) == reference.scan_tokens(text)
    assert fixtures.raw_tokens(text) == reference.raw_tokens(text)
    assert fixtures.normalised_tokens(text) == reference.normalised_tokens(text)


def test_make_code_tables_is_deterministic_and_plants_what_it_says() -> None:
    """Same seed, same tables; truth lists the plants; bad plans are refused."""
    ids = [f"c{i}" for i in range(8)]
    first = fixtures.make_code_tables(ids, seed=3)
    second = fixtures.make_code_tables(ids, seed=3)
    for name in first:
        assert first[name].equals(second[name])
    truth = first["planted_contamination"].to_pandas()
    assert truth[["challenge_id", "copy_kind"]].values.tolist() == [
        ["c0", "verbatim"],
        ["c1", "renamed"],
    ]
    assert first["planted_instance_overlap"].to_pylist() == [
        {"challenge_a": "c2", "challenge_b": "c3"}
    ]
    files = first["challenge_files"].to_pandas()
    corpus = first["reference_corpus"].to_pandas().set_index("document_id")
    copied = files[(files.challenge_id == "c0") & (files.file_path == "src/main.py")]
    assert copied.content.item() == corpus.loc[truth.document_id[0], "content"]
    with pytest.raises(ValueError, match="unknown copy kind"):
        fixtures.make_code_tables(ids, seed=1, planted={"c0": "stolen"})
    with pytest.raises(ValueError, match="not in challenge_ids"):
        fixtures.make_code_tables(ids, seed=1, planted={"zz": "verbatim"})
    with pytest.raises(ValueError, match="shared instance"):
        fixtures.make_code_tables(
            ids, seed=1, planted={"c0": "verbatim"}, shared_instances=[("c0", "c1")]
        )


# --- GX suites -------------------------------------------------------------------------------


def test_gx_suites_pass_quiet_rows_and_name_the_flagged_ones() -> None:
    """challenges_not_contaminated and challenge_instances_unique on small frames: the
    similarity expectation and the containment expectation each name their own rows."""
    thresholds = {
        "contamination_similarity_threshold": THRESHOLD,
        "contamination_containment_threshold": 0.7,
    }
    contamination = pd.DataFrame(
        {
            "challenge_id": ["ch-1", "ch-2", "ch-3", "ch-4"],
            "best_file_path": ["src/a.py", "src/b.py", None, "src/d.py"],
            "best_document_id": ["doc-9", "doc-2", None, "doc-4"],
            "best_document_source": ["public-code-sample", "earlier", None, "stdlib"],
            "best_raw_similarity": [0.05, 0.1, None, 0.3],
            "best_normalised_similarity": [0.97, 0.2, None, 0.31],
            "match_level": ["normalised_only", "none", "none", "raw"],
            "similarity": [0.97, 0.2, None, 0.31],
            "containment_file_path": ["src/a.py", "src/b.py", None, "src/d.py"],
            "containment_document_id": ["doc-9", "doc-2", None, "doc-4"],
            "containment_direction": [
                "file_in_document",
                "file_in_document",
                None,
                "file_in_document",
            ],
            "containment": [0.98, 0.3, None, 0.92],
        }
    )
    quiet = validate_suite(
        "challenges_not_contaminated", contamination.iloc[1:3], thresholds, "error"
    )
    assert [row["success"] for row in quiet] == [True, True]
    similar, contained = validate_suite(
        "challenges_not_contaminated", contamination, thresholds, "error"
    )
    assert not similar["success"] and similar["failing_rows"] == 1
    assert "challenge 'ch-1'" in similar["failure_message"]
    assert (
        "'doc-9'" in similar["failure_message"] and "normalised 0.97" in similar["failure_message"]
    )
    assert "ch-2" not in similar["failure_message"]
    # ch-4: a file contained in a larger document, whole-text similarity below the threshold
    assert not contained["success"] and contained["failing_rows"] == 2
    assert "challenge 'ch-4'" in contained["failure_message"]
    assert "containment 0.92" in contained["failure_message"]
    assert "ch-2" not in contained["failure_message"]

    overlap = pd.DataFrame(
        {
            "challenge_a": ["ch-t01-01", "ch-t02-01"],
            "challenge_b": ["ch-t01-02", "ch-t02-02"],
            "template_a": ["tpl-01", "tpl-02"],
            "template_b": ["tpl-01", "tpl-02"],
            "raw_similarity": [0.71, 0.30],
            "normalised_similarity": [0.83, 0.33],
            "similarity": [0.83, 0.33],
            "contained_challenge_id": [None, "ch-t02-01"],
            "contained_file_path": [None, "src/main.py"],
            "containing_file_path": [None, "src/main.py"],
            "containment": [None, 0.95],
        }
    )
    passed = validate_suite("challenge_instances_unique", overlap.iloc[:0], thresholds, "error")
    assert all(row["success"] for row in passed)
    similar, contained = validate_suite("challenge_instances_unique", overlap, thresholds, "error")
    assert not similar["success"]
    assert "'ch-t01-01' (tpl-01) and 'ch-t01-02' (tpl-01)" in similar["failure_message"]
    assert not contained["success"] and contained["failing_rows"] == 1
    assert "'ch-t02-01' file 'src/main.py'" in contained["failure_message"]
    assert "containment 0.95" in contained["failure_message"]


# --- dbt end to end ------------------------------------------------------------------------


def _stdlib_text(module: str) -> str:
    """Source text of a standard library module."""
    return (Path(sysconfig.get_paths()["stdlib"]) / f"{module}.py").read_text(encoding="utf-8")


def _with_publication_shift(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """Add PUBLICATION_SHIFT points on ch-s01 to attempts of models trained after PUBLISHED_AT."""
    attempts = tables["attempts"].to_pandas()
    cutoffs = (
        tables["agents"]
        .to_pandas()
        .merge(tables["models"].to_pandas(), on="model_id")
        .set_index("agent_id")["training_cutoff"]
    )
    cutoff = pd.to_datetime(attempts["agent_id"].map(cutoffs))
    shifted = (attempts["challenge_id"] == "ch-s01") & (cutoff > pd.Timestamp(PUBLISHED_AT))
    attempts.loc[shifted, "score"] = (attempts.loc[shifted, "score"] + PUBLICATION_SHIFT).clip(
        upper=100
    )
    schema = tables["attempts"].schema
    return {
        **tables,
        "attempts": pa.Table.from_pandas(attempts, schema=schema, preserve_index=False),
    }


def _code_tables(challenge_ids: list[str], templates: dict[str, str]) -> dict[str, pd.DataFrame]:
    """Planted fixtures + real stdlib code + dirty rows, as pandas frames."""
    generated = fixtures.make_code_tables(
        challenge_ids,
        seed=17,
        planted=PLANTED,
        shared_instances=SHARED,
        templates=templates,
        published_at=PUBLISHED_AT,
    )
    files = generated["challenge_files"].to_pandas()
    corpus = generated["reference_corpus"].to_pandas()
    stdlib_files = pd.DataFrame(
        {
            "challenge_id": [f"ch-t06-0{i + 1}" for i in range(len(STDLIB_CHALLENGE_FILES))],
            "file_path": [f"lib/{m}.py" for m in STDLIB_CHALLENGE_FILES],
            "content": [_stdlib_text(m) for m in STDLIB_CHALLENGE_FILES],
        }
    )
    stdlib_corpus = pd.DataFrame(
        {
            "document_id": [f"stdlib-{m}" for m in STDLIB_REFERENCES],
            "source": "python-stdlib",
            "content": [_stdlib_text(m) for m in STDLIB_REFERENCES],
            "published_at": date(2023, 10, 2),
        }
    )
    tiny = pd.DataFrame(
        {
            "challenge_id": ["ch-s12"],
            "file_path": ["setup.cfg"],
            "content": ["[metadata]\nname = x"],
        }
    )
    dirty_files = pd.DataFrame(
        {
            "challenge_id": [None, "ch-s10", "ch-s10", "ch-s10", "ch-nope", "ch-s11"],
            "file_path": ["a.py", None, "src/conflict.py", "src/conflict.py", "b.py", "empty.py"],
            "content": ["x = 1", "y = 2", "conflicting copy", "conflicting copy 2", "z = 3", None],
        }
    )
    # ch-s12's files: only the tiny one (not compared)
    files = files[files.challenge_id != "ch-s12"]
    # published_at as text, so that a bad date can be in it; the first row repeated exactly
    corpus["published_at"] = corpus["published_at"].astype(str)
    stdlib_corpus["published_at"] = stdlib_corpus["published_at"].astype(str)
    dirty_corpus = pd.DataFrame(
        {
            "document_id": [corpus.document_id[0], "bad-date", None],
            "source": [corpus.source[0], "x", "x"],
            "content": [corpus.content[0], "q = 1", "r = 2"],
            "published_at": [corpus.published_at[0], "not a date", None],
        }
    )
    return {
        "challenge_files": pd.concat([files, stdlib_files, tiny, dirty_files], ignore_index=True),
        "reference_corpus": pd.concat([corpus, stdlib_corpus, dirty_corpus], ignore_index=True),
        "planted_contamination": generated["planted_contamination"].to_pandas(),
        "planted_instance_overlap": generated["planted_instance_overlap"].to_pandas(),
    }


@pytest.fixture(scope="module")
def contamination_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A small platform with planted copies, shared instances, real unrelated code and a
    publication-date effect, built once (the contamination marts and their upstream)."""
    work = tmp_path_factory.mktemp("contamination")
    platform = generate_platform(PlatformSpec(seed=11, n_attempts=25_000))
    platform = dataclasses.replace(platform, tables=_with_publication_shift(platform.tables))
    write_parquet(platform, str(work / "raw"))
    challenges = platform.tables["challenges"].to_pandas()
    code = _code_tables(
        list(challenges.challenge_id),
        dict(zip(challenges.challenge_id, challenges.template_id, strict=True)),
    )
    for name in ("challenge_files", "reference_corpus"):
        pq.write_table(
            pa.Table.from_pandas(code[name], preserve_index=False), work / "raw" / f"{name}.parquet"
        )
    database = work / "marts.duckdb"
    run = run_dbt(
        ["build", *SELECT_MARTS],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(work / "raw"), "fairness_gate_severity": "warn"},
    )
    assert run.success, run.output
    tables = {name: table.to_pandas() for name, table in platform.tables.items()}
    return {"database": database, "code": code, "tables": tables}


def _clean_code(code: dict[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows staging keeps (the dirty ones are known by construction)."""
    files = code["challenge_files"]
    files = files[files.challenge_id.notna() & (files.challenge_id != "ch-nope")]
    files = files[files.file_path.notna() & files.content.notna()]
    files = files[files.file_path != "src/conflict.py"]
    corpus = code["reference_corpus"]
    corpus = corpus[corpus.document_id.notna() & (corpus.document_id != "bad-date")]
    return files, corpus.drop_duplicates("document_id")


def _brute_force_similarities(code: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every (challenge file, document) pair's exact Jaccard, raw and normalised, in Python."""
    files, corpus = _clean_code(code)
    rows = []
    file_sets = [
        (row.challenge_id, row.file_path, *_shingles(row.content)) for row in files.itertuples()
    ]
    document_sets = [(row.document_id, *_shingles(row.content)) for row in corpus.itertuples()]
    for (challenge, path, raw_a, norm_a), (document, raw_b, norm_b) in product(
        file_sets, document_sets
    ):
        if len(norm_a) < 50 or len(norm_b) < 50:
            continue
        raw, norm = reference.jaccard(raw_a, raw_b), reference.jaccard(norm_a, norm_b)
        rows.append((challenge, path, document, raw, norm))
    return pd.DataFrame(rows, columns=["challenge_id", "file_path", "document_id", "raw", "norm"])


def _shingles(text: str) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """Raw and normalised 5-shingle sets by the independent scanner."""
    return (
        reference.shingle_set(reference.raw_tokens(text)),
        reference.shingle_set(reference.normalised_tokens(text)),
    )


@pytest.mark.dbt
def test_planted_copies_are_flagged_and_nothing_else(contamination_build: dict[str, Any]) -> None:
    """Verbatim, renamed, reformatted and partial copies flagged with the right document and
    match level; every other challenge (generated and real stdlib code) quiet; the flagged
    set equals the brute-force all-pairs answer."""
    marts = read_table(
        contamination_build["database"], "select * from main.fct_challenge_contamination"
    )
    truth = contamination_build["code"]["planted_contamination"].set_index("challenge_id")
    flagged = marts[marts.is_flagged].set_index("challenge_id")
    assert sorted(flagged.index) == sorted(PLANTED)
    for challenge_id, row in flagged.iterrows():
        assert row.best_document_id == truth.loc[challenge_id, "document_id"]
        assert row.best_file_path == "src/main.py"
        assert row.match_level == truth.loc[challenge_id, "expected_match_level"]
        assert pd.Timestamp(row.first_published_at) == pd.Timestamp(PUBLISHED_AT)
    assert flagged.loc["ch-s04", "best_raw_similarity"] < 0.2  # renamed: raw misses it
    assert flagged.loc["ch-s04", "best_normalised_similarity"] == 1.0
    assert 0.5 < flagged.loc["ch-s02", "similarity"] < 0.9  # partial copy
    brute = _brute_force_similarities(contamination_build["code"])
    above = brute[np.maximum(brute.raw, brute.norm) > THRESHOLD]
    assert sorted(above.challenge_id.unique()) == sorted(PLANTED)
    stdlib = brute[
        brute.document_id.str.startswith("stdlib-") | brute.file_path.str.startswith("lib/")
    ]
    assert np.maximum(stdlib.raw, stdlib.norm).max() < 0.35  # real independent code
    quiet = marts[~marts.is_flagged]
    assert (quiet.match_level == "none").all() and quiet.similarity.fillna(0).max() < THRESHOLD
    tiny = marts.set_index("challenge_id").loc["ch-s12"]
    assert tiny.status == "not_compared" and tiny.compared_files == 0 and "50" in tiny.reason


@pytest.mark.dbt
def test_exact_similarities_equal_the_independent_computation(
    contamination_build: dict[str, Any],
) -> None:
    """Every compared (file, document) pair: SQL Jaccard == Python tuple-set Jaccard, both
    normalisations (tokeniser, normalisation, shingles and set algebra all checked)."""
    pairs = read_table(
        contamination_build["database"],
        """
        select files.challenge_id, files.file_path, docs.document_id,
            pairs.raw_similarity, pairs.normalised_similarity
        from intermediate.int_code_pairs_compared as pairs
        inner join intermediate.int_code_documents_indexed as files
            on pairs.document_a = files.document_number
        inner join intermediate.int_code_documents_indexed as docs
            on pairs.document_b = docs.document_number
        where pairs.pair_kind = 'contamination' and pairs.is_compared_exactly
        """,
    )
    brute = _brute_force_similarities(contamination_build["code"])
    merged = pairs.merge(brute, on=["challenge_id", "file_path", "document_id"], how="left")
    assert len(merged) == len(pairs) >= len(PLANTED) and merged.raw.notna().all()
    np.testing.assert_allclose(merged.raw_similarity, merged.raw, rtol=1e-12)
    np.testing.assert_allclose(merged.normalised_similarity, merged.norm, rtol=1e-12)
    tokens = read_table(
        contamination_build["database"],
        """
        select
            coalesce(indexed.document_id, indexed.challenge_id || ':' || indexed.file_path)
                as document,
            shingled.normalisation, shingled.tokens, shingled.shingle_count
        from intermediate.int_code_documents_shingled as shingled
        inner join intermediate.int_code_documents_indexed as indexed
            on shingled.document_number = indexed.document_number
        where indexed.document_kind <> 'challenge_codebase'
        """,
    )
    files, corpus = _clean_code(contamination_build["code"])
    texts = pd.concat(
        [
            pd.DataFrame(
                {"document": files.challenge_id + ":" + files.file_path, "text": files.content}
            ),
            pd.DataFrame({"document": corpus.document_id, "text": corpus.content}),
        ]
    )
    expected = []
    for document, text in zip(texts.document, texts.text, strict=True):
        for normalisation, tokeniser in (
            ("raw", reference.raw_tokens),
            ("normalised", reference.normalised_tokens),
        ):
            found = tokeniser(text)
            expected.append(
                (document, normalisation, len(found), len(reference.shingle_set(found)))
            )
    expected_frame = pd.DataFrame(expected, columns=["document", "normalisation", "n", "shingles"])
    merged = tokens.merge(expected_frame, on=["document", "normalisation"])
    assert len(merged) == len(tokens) == len(expected_frame) > 300
    assert (merged.tokens == merged.n).all() and (merged.shingle_count == merged.shingles).all()


@pytest.mark.dbt
def test_shared_instances_are_listed(contamination_build: dict[str, Any]) -> None:
    """Exactly the planted instance pairs, with the same-template flag; scaffold sharing
    between same-template instances stays below the threshold."""
    overlap = read_table(
        contamination_build["database"], "select * from main.fct_challenge_instance_overlap"
    )
    assert sorted(zip(overlap.challenge_a, overlap.challenge_b, strict=True)) == sorted(SHARED)
    same = dict(
        zip(
            zip(overlap.challenge_a, overlap.challenge_b, strict=True),
            overlap.is_same_template,
            strict=True,
        )
    )
    assert same[("ch-t01-01", "ch-t01-02")] and not same[("ch-t02-01", "ch-t05-03")]
    assert (overlap.similarity > THRESHOLD).all()


@pytest.mark.dbt
def test_evidence_puts_family_effects_beside_the_similarity(
    contamination_build: dict[str, Any],
) -> None:
    """One row per (flagged challenge, family); the planted family bias on the verbatim
    copy (ch-s09, qwen +20) shows as a flagged adjusted effect."""
    evidence = read_table(
        contamination_build["database"], "select * from main.fct_contamination_family_evidence"
    )
    deviation = read_table(
        contamination_build["database"], "select * from main.fct_family_deviation"
    )
    expected = deviation[deviation.challenge_id.isin(list(PLANTED))]
    assert len(evidence) == len(expected)
    qwen = evidence.set_index(["challenge_id", "model_family"]).loc[("ch-s09", "qwen")]
    assert qwen.is_adjusted_flagged and qwen.adjusted_ci_low > 10 and qwen.similarity == 1.0
    assert (evidence.post_publication_attempts.notna()).all()


@pytest.mark.dbt
def test_publication_effect_matches_scipy_and_finds_the_planted_gain(
    contamination_build: dict[str, Any],
) -> None:
    """On ch-s01 post-publication models got +15: the Welch difference equals the pandas +
    scipy.stats.ttest_ind computation and its interval covers 15, not 0."""
    effect = read_table(
        contamination_build["database"], "select * from main.fct_contamination_publication_effect"
    )
    assert sorted(effect.challenge_id) == sorted(PLANTED)
    row = effect.set_index("challenge_id").loc["ch-s01"]
    want = reference.publication_effect(contamination_build["tables"], "ch-s01", PUBLISHED_AT, 0.05)
    for column, value in want.items():
        assert row[column] == pytest.approx(value, rel=1e-9), column
    assert (
        row.status == "tested" and row.ci_low > 0 and row.ci_low < PUBLICATION_SHIFT < row.ci_high
    )


@pytest.mark.dbt
def test_bad_code_rows_are_rejected_with_reasons(contamination_build: dict[str, Any]) -> None:
    """Staging keeps every raw row and names the first rule a bad one breaks."""
    files = read_table(
        contamination_build["database"],
        """
        select record_id, rejection_reason
        from intermediate.int_keyed__rows_rejected where source_table = 'challenge_files'
        """,
    )
    assert sorted(files.rejection_reason) == sorted(
        ["null_challenge_id", "null_file_path", "conflicting_file_path", "conflicting_file_path",
         "unknown_challenge_id", "null_content"]
    )  # fmt: skip
    corpus = read_table(
        contamination_build["database"],
        """
        select document_id, rejection_reason
        from staging.base_platform__reference_corpus where rejection_reason is not null
        """,
    )
    assert sorted(corpus.rejection_reason) == [
        "duplicate_document_id",
        "null_document_id",
        "published_at_not_date",
    ]
    coverage = read_table(
        contamination_build["database"],
        COVERAGE_SQL,
    )
    assert coverage.is_available.all() and coverage.missing_inputs.isna().all()
    assert (coverage.rows_analysed > 50).all()


def _estimator_pairs(seed: int, pairs: int) -> list[tuple[str, str]]:
    """Independent (original, overlapping variant) texts with Jaccard spread over 0..1."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(pairs):
        original = fixtures.generate_code(rng, functions=4)
        lines = original.split("\n")
        share = rng.uniform(0.05, 1.0)
        kept = max(1, round(len(lines) * share))
        start = int(rng.integers(0, len(lines) - kept + 1))
        added = fixtures.generate_code(rng, functions=int(rng.integers(0, 4)))
        out.append((original, "\n".join([*lines[start : start + kept], added])))
    return out


@pytest.mark.dbt
def test_minhash_estimates_agree_with_exact_jaccard(tmp_path: Path) -> None:
    """500 independent (original, variant) pairs: each pair's agreeing signature positions
    are Binomial(P, J) (two-sided exact test, Bonferroni over the pairs, family-wise 0.1%),
    no pair is off by more than 3 / sqrt(P), and for raw shingles (independent across
    pairs) (estimate - J) / sqrt(J (1 - J) / P) has variance 1 (chi-square test at 0.1%,
    which fails for DuckDB's two-argument hash(x, i)) and mean 0. With only challenge files
    (no corpus) the contamination mart is empty and coverage says why."""
    platform = generate_platform(PlatformSpec(seed=2, n_attempts=2_000))
    write_parquet(platform, str(tmp_path / "raw"))
    challenge_ids = platform.tables["challenges"].column("challenge_id").to_pylist()
    texts = _estimator_pairs(seed=23, pairs=500)
    rows = []
    for index, (original, variant) in enumerate(texts):
        challenge = challenge_ids[index % len(challenge_ids)]
        rows.append((challenge, f"pair_{index:03d}_a.py", original))
        rows.append((challenge, f"pair_{index:03d}_b.py", variant))
    files = pd.DataFrame(rows, columns=["challenge_id", "file_path", "content"])
    pq.write_table(
        pa.Table.from_pandas(files, preserve_index=False),
        tmp_path / "raw" / "challenge_files.parquet",
    )
    database = tmp_path / "estimates.duckdb"
    run = run_dbt(
        ["build", *SELECT_SIGNATURES],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw"), "fairness_gate_severity": "warn"},
    )
    assert run.success, run.output
    signatures = read_table(
        database,
        """
        select indexed.file_path, documents.normalisation, signed.signature, documents.shingles
        from intermediate.int_code_documents_signed as signed
        inner join intermediate.int_code_documents_shingled as documents
            on signed.document_number = documents.document_number
            and signed.normalisation = documents.normalisation
        inner join intermediate.int_code_documents_indexed as indexed
            on signed.document_number = indexed.document_number
        where documents.document_kind = 'challenge_file'
        """,
    ).set_index(["file_path", "normalisation"])
    records = []
    for index, (original, variant) in enumerate(texts):
        for normalisation, tokeniser in (
            ("raw", reference.raw_tokens),
            ("normalised", reference.normalised_tokens),
        ):
            keys = [(f"pair_{index:03d}_{side}.py", normalisation) for side in "ab"]
            if not all(key in signatures.index for key in keys):
                continue
            a, b = (signatures.loc[key] for key in keys)
            exact = reference.jaccard(
                reference.shingle_set(tokeniser(original)),
                reference.shingle_set(tokeniser(variant)),
            )
            sql_exact = len(set(a.shingles) & set(b.shingles)) / len(
                set(a.shingles) | set(b.shingles)
            )
            assert sql_exact == pytest.approx(exact, abs=1e-12)
            estimate = float(np.mean(np.asarray(a.signature) == np.asarray(b.signature)))
            records.append((normalisation, exact, estimate))
    table = pd.DataFrame(records, columns=["normalisation", "exact", "estimate"])
    assert len(table) > 800 and table.exact.between(0.05, 0.95).mean() > 0.5
    assert (table.estimate - table.exact).abs().max() <= 3 / np.sqrt(PERMUTATIONS)
    for normalisation, group in table.groupby("normalisation"):
        interior = group[(group.exact > 0) & (group.exact < 1)]
        n = len(interior)
        # each pair alone: agreeing positions ~ Binomial(P, J); Bonferroni over the pairs
        # keeps the family-wise error at 0.1% whatever the dependence between pairs
        agreeing = np.round(interior.estimate * PERMUTATIONS)
        lower = stats.binom.cdf(agreeing, PERMUTATIONS, interior.exact)
        upper = stats.binom.sf(agreeing - 1, PERMUTATIONS, interior.exact)
        assert np.minimum(1, 2 * np.minimum(lower, upper)).min() > 0.001 / n
        if normalisation == "raw":
            # raw shingle sets of different pairs share (almost) nothing, so the pairs'
            # errors are independent: sum of z^2 ~ chi-square(n), mean z ~ N(0, 1/n).
            # (Normalised sets of unrelated code share common structural shingles, whose
            # minima are shared across pairs: their errors are correlated, not biased.)
            z = (interior.estimate - interior.exact) / np.sqrt(
                interior.exact * (1 - interior.exact) / PERMUTATIONS
            )
            assert stats.chi2.ppf(0.0005, n) < float((z**2).sum()) < stats.chi2.ppf(0.9995, n)
            assert abs(float(z.mean())) < 3.29 / np.sqrt(n)

    empty = read_table(database, "select count(*) as n from main.fct_challenge_contamination")
    assert empty.n.item() == 0
    coverage = read_table(
        database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'challenge_contamination'",
    )
    assert not coverage.is_available.item()
    assert coverage.missing_inputs.item() == "optional source table absent: reference_corpus"


@pytest.mark.dbt
def test_absent_code_tables_build_empty_marts(tmp_path: Path) -> None:
    """No challenge_files, no reference_corpus: the build succeeds, every mart is empty,
    coverage rows say what is missing."""
    platform = generate_platform(PlatformSpec(seed=4, n_attempts=2_000))
    write_parquet(platform, str(tmp_path / "raw"))
    database = tmp_path / "absent.duckdb"
    run = run_dbt(
        ["build", *SELECT_MARTS],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw"), "fairness_gate_severity": "warn"},
    )
    assert run.success, run.output
    for mart in MARTS:
        assert read_table(database, f"select count(*) as n from main.{mart}").n.item() == 0, mart
    coverage = read_table(
        database,
        COVERAGE_SQL,
    ).set_index("detector")
    assert not coverage.is_available.any()
    assert coverage.loc["challenge_contamination", "missing_inputs"] == (
        "optional source tables absent: challenge_files, reference_corpus"
    )
    assert coverage.loc["challenge_instance_overlap", "missing_inputs"] == (
        "optional source table absent: challenge_files"
    )
    assert (coverage.rows_analysed == 0).all()


# --- per-file containment (issue 17) -------------------------------------------------------

CONTAINMENT_TEMPLATE = "tpl-02"  # six instances in the demo catalogue
SHARED_MAIN = ("ch-t02-01", "ch-t02-02")  # main file verbatim, each with its own helpers
RENAMED_MAIN = ("ch-t02-03", "ch-t02-04")  # main file with every identifier renamed
IGNORED_PAIR = ("ch-t03-01", "ch-t03-02")  # share vendor/lib.py, an ignored path
CONTAINED = {
    "ch-s01": ("similarity_and_containment", "raw"),  # a corpus document as one of 5 files
    "ch-s02": ("containment", "raw"),  # a corpus document inside a larger file
    "ch-s03": ("containment", "raw"),  # a file copied from a larger corpus document
    "ch-s04": ("similarity_and_containment", "normalised_only"),  # renamed, inside a larger file
}


def _containment_code(challenge_ids: list[str]) -> dict[str, pd.DataFrame]:
    """Challenge files and a corpus for the containment cases (see the constants above):
    every instance of CONTAINMENT_TEMPLATE ships the same scaffolding (a settings module
    with its own instance name, a setup script); other challenges ship own code."""
    rng = np.random.default_rng(1717)

    def code(functions: int) -> str:
        return fixtures.generate_code(rng, functions=functions)

    settings = fixtures.generate_code(rng, functions=1, statements=8)
    setup = fixtures.generate_code(rng, functions=2, statements=6)
    rows: list[tuple[str, str, str]] = []
    template = sorted(c for c in challenge_ids if c.startswith("ch-t02-"))
    for challenge in template:
        rows += [
            (challenge, "config/settings.py", f'INSTANCE = "{challenge}"\n{settings}'),
            (challenge, "setup.py", setup),
            (challenge, "src/helpers.py", code(7)),
        ]
    mains = {challenge: code(2) for challenge in template}
    mains[SHARED_MAIN[1]] = mains[SHARED_MAIN[0]]
    mains[RENAMED_MAIN[1]] = fixtures.rename_identifiers(mains[RENAMED_MAIN[0]], rng)
    rows += [(challenge, "src/main.py", text) for challenge, text in mains.items()]
    vendored = code(2)
    for challenge in IGNORED_PAIR:
        rows += [(challenge, "vendor/lib.py", vendored), (challenge, "src/main.py", code(4))]
    documents = {f"doc-{i:02d}": code(3) for i in range(30)}
    documents["doc-s01"] = code(3)
    documents["doc-s02"] = code(3)
    documents["doc-s04"] = code(3)
    copied_part = code(3)
    documents["doc-s03"] = copied_part + "\n" + code(4)
    for challenge in ("ch-s01", "ch-s02", "ch-s03", "ch-s04", "ch-s05", "ch-s06"):
        rows += [(challenge, f"src/own_{i}.py", code(3)) for i in range(4)]
    rows += [
        ("ch-s01", "src/solver.py", documents["doc-s01"]),
        ("ch-s02", "src/engine.py", code(4) + "\n" + documents["doc-s02"] + "\n" + code(4)),
        ("ch-s03", "src/engine.py", copied_part),
        (
            "ch-s04",
            "src/engine.py",
            code(1) + "\n" + fixtures.rename_identifiers(documents["doc-s04"], rng),
        ),
    ]
    files = pd.DataFrame(rows, columns=["challenge_id", "file_path", "content"])
    corpus = pd.DataFrame(
        {
            "document_id": list(documents),
            "source": "public-code-sample",
            "content": list(documents.values()),
            "published_at": date(2024, 6, 1),
        }
    )
    return {"challenge_files": files, "reference_corpus": corpus}


@pytest.fixture(scope="module")
def containment_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The containment cases built once, with vendor/* ignored."""
    work = tmp_path_factory.mktemp("containment")
    platform = generate_platform(PlatformSpec(seed=5, n_attempts=3_000))
    write_parquet(platform, str(work / "raw"))
    code = _containment_code(platform.tables["challenges"].column("challenge_id").to_pylist())
    for name, frame in code.items():
        pq.write_table(
            pa.Table.from_pandas(frame, preserve_index=False), work / "raw" / f"{name}.parquet"
        )
    database = work / "containment.duckdb"
    run = run_dbt(
        ["build", *SELECT_MARTS],
        database=database,
        work_dir=work,
        dbt_vars={
            "raw_parquet_dir": str(work / "raw"),
            "fairness_gate_severity": "warn",
            "contamination_ignored_paths": ["vendor/*"],
        },
    )
    assert run.success, run.output
    return {"database": database, "code": code}


@pytest.mark.dbt
def test_a_shared_main_file_is_flagged_and_shared_scaffolding_is_not(
    containment_build: dict[str, Any],
) -> None:
    """Two instances sharing their main file among unrelated files: whole-codebase Jaccard
    stays below the threshold, the main file's containment flags the pair; a renamed copy
    is flagged by the normalised shingles; the scaffolding every instance ships is
    classified as scaffold and flags nothing; a shared file on an ignored path neither."""
    database = containment_build["database"]
    overlap = read_table(database, "select * from main.fct_challenge_instance_overlap")
    pairs = overlap.set_index(["challenge_a", "challenge_b"])
    assert sorted(pairs.index) == sorted([SHARED_MAIN, RENAMED_MAIN])
    for pair in (SHARED_MAIN, RENAMED_MAIN):
        row = pairs.loc[pair]
        assert row.similarity < THRESHOLD < row.containment  # Jaccard alone misses it
        assert row.flag_rule == "containment" and row.is_same_template
        assert row.contained_file_path == row.containing_file_path == "src/main.py"
        assert row.scaffold_files_a == row.scaffold_files_b == 2
    assert pairs.loc[SHARED_MAIN].raw_containment == 1.0
    assert pairs.loc[SHARED_MAIN].match_level == "raw"
    assert pairs.loc[RENAMED_MAIN].raw_containment < 0.2
    assert pairs.loc[RENAMED_MAIN].normalised_containment == 1.0
    assert pairs.loc[RENAMED_MAIN].match_level == "normalised_only"

    files = read_table(database, "select * from intermediate.int_code_files_classified").set_index(
        ["challenge_id", "file_path"]
    )
    template = files[files.template_id == CONTAINMENT_TEMPLATE]
    scaffold = template[template.is_scaffold]
    assert sorted(set(scaffold.index.get_level_values("file_path"))) == [
        "config/settings.py",
        "setup.py",
    ]
    assert scaffold.is_compared.all() and (scaffold.instances_with_file == 6).all()
    assert files.loc[(SHARED_MAIN[0], "src/main.py"), "instances_with_file"] == 2
    assert files.loc[(IGNORED_PAIR[0], "vendor/lib.py"), "is_ignored"]
    assert not files.drop(index=list(product(IGNORED_PAIR, ["vendor/lib.py"]))).is_ignored.any()
    # the scaffolding and the vendored file are contained, yet flag nothing
    contained = read_table(
        database,
        """
        select files_a.file_path, files_a.challenge_id, pairs.containment_a
        from intermediate.int_code_pairs_compared as pairs
        inner join intermediate.int_code_documents_indexed as files_a
            on pairs.document_a = files_a.document_number
        inner join intermediate.int_code_documents_indexed as files_b
            on pairs.document_b = files_b.document_number
        where pairs.pair_kind = 'instance_file' and files_a.file_path = files_b.file_path
        """,
    )
    for path in ("config/settings.py", "setup.py", "vendor/lib.py"):
        assert contained[contained.file_path == path].containment_a.min() > 0.8, path


@pytest.mark.dbt
def test_a_copied_corpus_file_inside_a_larger_codebase_is_flagged(
    containment_build: dict[str, Any],
) -> None:
    """A corpus document copied as one of five files, embedded in a larger file, a file
    copied out of a larger document, and a renamed document inside a larger file: all
    flagged, with the rule, direction and level that found them; own code quiet."""
    marts = read_table(
        containment_build["database"], "select * from main.fct_challenge_contamination"
    ).set_index("challenge_id")
    flagged = marts[marts.is_flagged]
    assert sorted(flagged.index) == sorted(CONTAINED)
    for challenge, (rule, level) in CONTAINED.items():
        row = flagged.loc[challenge]
        assert (row.flag_rule, row.match_level) == (rule, level), challenge
        assert row.containment_document_id == f"doc-{challenge.removeprefix('ch-')}"
        assert row.containment > 0.95 and row.first_published_at is not None
    for challenge in ("ch-s02", "ch-s03", "ch-s04"):
        if challenge != "ch-s04":
            assert flagged.loc[challenge, "similarity"] < THRESHOLD  # Jaccard alone misses it
        assert flagged.loc[challenge, "containment_file_path"] == "src/engine.py"
    assert flagged.loc["ch-s02", "containment_direction"] == "document_in_file"
    assert flagged.loc["ch-s03", "containment_direction"] == "file_in_document"
    assert flagged.loc["ch-s04", "raw_containment"] < 0.2
    quiet = marts[~marts.is_flagged]
    assert (quiet.flag_rule == "none").all()
    assert quiet.containment.fillna(0).max() < 0.7


@pytest.mark.dbt
def test_containments_equal_the_independent_computation(
    containment_build: dict[str, Any],
) -> None:
    """Every exactly compared file-grain pair: SQL containment == Python tuple-set
    |A n B| / |A| in both directions and normalisations; normalised containment is NULL
    exactly when the container is more than four times larger."""
    pairs = read_table(
        containment_build["database"],
        """
        select
            coalesce(a.challenge_id || ':' || a.file_path, a.document_id) as name_a,
            coalesce(b.challenge_id || ':' || b.file_path, b.document_id) as name_b,
            pairs.*
        from intermediate.int_code_pairs_compared as pairs
        inner join intermediate.int_code_documents_indexed as a
            on pairs.document_a = a.document_number
        inner join intermediate.int_code_documents_indexed as b
            on pairs.document_b = b.document_number
        where pairs.pair_kind in ('contamination', 'instance_file') and pairs.is_compared_exactly
        """,
    )
    code = containment_build["code"]
    files = code["challenge_files"]
    texts = dict(zip(files.challenge_id + ":" + files.file_path, files.content, strict=True))
    corpus = code["reference_corpus"]
    texts.update(zip(corpus.document_id, corpus.content, strict=True))
    sets = {name: _shingles(text) for name, text in texts.items()}
    assert len(pairs) >= 10
    for row in pairs.itertuples():
        (raw_a, norm_a), (raw_b, norm_b) = sets[row.name_a], sets[row.name_b]
        assert row.raw_containment_a == pytest.approx(len(raw_a & raw_b) / len(raw_a), abs=1e-12)
        assert row.raw_containment_b == pytest.approx(len(raw_a & raw_b) / len(raw_b), abs=1e-12)
        if len(norm_b) <= 4 * len(norm_a):
            want = len(norm_a & norm_b) / len(norm_a)
            assert row.normalised_containment_a == pytest.approx(want, abs=1e-12)
        else:
            assert pd.isna(row.normalised_containment_a)
        assert row.containment_a == pytest.approx(
            max(row.raw_containment_a, np.nan_to_num(row.normalised_containment_a))
        )


# --- stored scans (issue 35: a daily run tokenises and signs only what changed) ----------


def _code_platform(tmp_path: Path) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    """A small platform's raw parquet folder (tmp_path/raw) and copies of the challenge
    files and reference corpus of _containment_code, to edit and write with _write_raw."""
    platform = generate_platform(PlatformSpec(seed=5, n_attempts=1_000))
    raw = tmp_path / "raw"
    write_parquet(platform, str(raw))
    code = _containment_code(platform.tables["challenges"].column("challenge_id").to_pylist())
    return raw, code["challenge_files"].copy(), code["reference_corpus"].copy()


def _write_raw(raw: Path, **tables: pd.DataFrame) -> None:
    """Writes each table as raw/<name>.parquet, replacing the file."""
    for name, frame in tables.items():
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), raw / f"{name}.parquet")


def _run_selected(selection: str, database: Path, work_dir: Path, raw: Path) -> None:
    """`dbt run --select <selection>` of the parquet platform in `raw` into `database`."""
    run = run_dbt(
        ["run", "--select", selection],
        database=database,
        work_dir=work_dir,
        dbt_vars={"raw_parquet_dir": str(raw)},
    )
    assert run.success, run.output


def _rows_differing(database: Path, fresh: Path, relation: str) -> int:
    """How many rows of `relation` the two databases do not share (as multisets)."""
    with duckdb.connect(str(database), read_only=True) as connection:
        connection.execute(f"attach '{fresh}' as fresh (read_only)")
        return connection.execute(
            f"""
            select count(*) from (
                (select * from {relation} except all select * from fresh.{relation})
                union all
                (select * from fresh.{relation} except all select * from {relation})
            )
            """
        ).fetchone()[0]


@pytest.mark.dbt
def test_a_run_scans_only_new_or_changed_code_documents(tmp_path: Path) -> None:
    """int_code_documents_scanned keeps a stored scan while the document's content and what
    scans it (scanned_with) are unchanged; scans again an edited file and its codebase, an
    older scanner's rows, a new document, and every document under another shingle size;
    drops a document that is gone; then equals a full refresh of the same raw rows."""
    raw, files, corpus = _code_platform(tmp_path)

    def write_code() -> None:
        _write_raw(raw, challenge_files=files, reference_corpus=corpus)

    write_code()
    database = tmp_path / "scans.duckdb"
    select = ["run", "--select", "+int_code_documents_scanned"]
    stored = "intermediate.int_code_documents_scanned"

    def scans(db: Path = database) -> pd.DataFrame:
        return read_table(
            db,
            f"""
            select indexed.document_kind as kind,
                coalesce(indexed.document_id, indexed.challenge_id || ':'
                    || coalesce(indexed.file_path, '')) as name,
                scanned.* exclude (document_kind)
            from {stored} as scanned
            inner join intermediate.int_code_documents_indexed as indexed
                using (document_key)
            where scanned.normalisation = 'raw'
            """,
        ).set_index(["kind", "name"])

    run = run_dbt(
        select, database=database, work_dir=tmp_path, dbt_vars={"raw_parquet_dir": str(raw)}
    )
    assert run.success, run.output
    first = scans()
    assert len(first) == len(files) + len(corpus) + files.challenge_id.nunique()
    kept = ("reference_document", "doc-00")
    upgraded = ("challenge_file", "ch-s05:src/own_0.py")
    edited = ("challenge_file", "ch-s06:src/own_1.py")
    removed, added = "doc-01", "doc-new"
    with duckdb.connect(str(database)) as connection:
        for (kind, name), scanned_with in ((kept, None), (upgraded, "an older scanner")):
            connection.execute(
                f"update {stored} set tokens = -1,"
                " scanned_with = coalesce(?, scanned_with) where document_key = ?",
                [scanned_with, first.loc[(kind, name), "document_key"]],
            )
    is_edited = (files.challenge_id == "ch-s06") & (files.file_path == "src/own_1.py")
    files.loc[is_edited, "content"] = "def edited(x):\n    return x + 1\n"
    new_document = corpus[corpus.document_id == "doc-02"].assign(
        document_id=added, content=files.content[0]
    )
    corpus = pd.concat([corpus[corpus.document_id != removed], new_document], ignore_index=True)
    write_code()

    run = run_dbt(
        select, database=database, work_dir=tmp_path, dbt_vars={"raw_parquet_dir": str(raw)}
    )
    assert run.success, run.output
    second = scans()
    assert second.loc[kept, "tokens"] == -1  # not scanned again
    assert second.loc[upgraded, "tokens"] == first.loc[upgraded, "tokens"]
    assert second.loc[upgraded, "scanned_with"] == first.loc[upgraded, "scanned_with"]
    for key in (edited, ("challenge_codebase", "ch-s06:")):  # the file and its codebase
        assert second.loc[key, "content_digest"] != first.loc[key, "content_digest"]
        assert second.loc[key, "tokens"] < first.loc[key, "tokens"]
    unchanged = ("challenge_codebase", "ch-s05:")
    assert second.loc[unchanged, "content_digest"] == first.loc[unchanged, "content_digest"]
    assert ("reference_document", removed) not in second.index
    assert second.loc[("reference_document", added), "tokens"] > 0
    assert len(second) == len(first)  # one document gone, one new

    shingles_4 = {"raw_parquet_dir": str(raw), "shingle_tokens": 4}
    run = run_dbt(select, database=database, work_dir=tmp_path, dbt_vars=shingles_4)
    assert run.success, run.output
    third = scans()
    assert (third.scanned_with != second.scanned_with.reindex(third.index)).all()
    fresh = tmp_path / "fresh.duckdb"
    run = run_dbt(select, database=fresh, work_dir=tmp_path, dbt_vars=shingles_4)
    assert run.success, run.output
    assert _rows_differing(database, fresh, stored) == 0
    assert len(third) == len(second)


@pytest.mark.dbt
def test_the_reference_corpus_is_staged_again_only_when_it_changed(tmp_path: Path) -> None:
    """base_platform__reference_corpus inserts nothing while its raw rows and staging are
    as stored (a stored row tampered with stays); an edited, a removed and a new document
    stage every row again, which then equals a full build of the same raw rows; so does a
    table an older version stored (no staged_with), without --full-refresh."""
    raw, _, corpus = _code_platform(tmp_path)

    def write_corpus() -> None:
        _write_raw(raw, reference_corpus=corpus)

    def build(database: Path) -> None:
        _run_selected("base_platform__reference_corpus", database, tmp_path, raw)

    staged = "staging.base_platform__reference_corpus"
    write_corpus()
    database = tmp_path / "daily.duckdb"
    build(database)
    with duckdb.connect(str(database)) as connection:
        connection.execute(f"update {staged} set source = 'tampered' where document_id = 'doc-00'")
    build(database)  # nothing changed: the tampered row is kept, nothing is inserted
    kept = read_table(database, f"select document_id, source from {staged}")
    assert len(kept) == len(corpus)
    assert kept.set_index("document_id").loc["doc-00", "source"] == "tampered"

    corpus.loc[corpus.document_id == "doc-02", "content"] = "def edited(x):\n    return x\n"
    corpus = pd.concat(
        [
            corpus[corpus.document_id != "doc-01"],
            corpus[corpus.document_id == "doc-03"].assign(document_id="doc-new"),
        ],
        ignore_index=True,
    )
    write_corpus()
    build(database)
    fresh = tmp_path / "fresh.duckdb"
    build(fresh)
    assert len(read_table(database, f"select document_id from {staged}")) == len(corpus)
    assert _rows_differing(database, fresh, staged) == 0

    with duckdb.connect(str(database)) as connection:  # as an older version stored it
        connection.execute(f"alter table {staged} drop column staged_with")
    build(database)  # no --full-refresh needed: staged again, the column added
    assert _rows_differing(database, fresh, staged) == 0


@pytest.mark.dbt
def test_a_run_measures_only_new_or_changed_candidate_pairs(tmp_path: Path) -> None:
    """int_code_pairs_measured keeps a stored pair while both documents and what measures
    them are unchanged (a stored value tampered with stays); measures again the pairs of an
    edited file, drops the pairs of a removed file; every pair then equals a full build of
    the same raw rows, and so does int_code_pairs_compared."""
    raw, files, corpus = _code_platform(tmp_path)

    def write_code() -> None:
        _write_raw(raw, challenge_files=files, reference_corpus=corpus)

    def build(database: Path) -> None:
        _run_selected("+int_code_pairs_compared", database, tmp_path, raw)

    measured = "intermediate.int_code_pairs_measured"
    pairs = f"""
        select
            measured.pair_kind,
            json_extract_string(measured.document_key_a, '$[1]') as challenge_a,
            json_extract_string(measured.document_key_a, '$[2]') as file_a,
            measured.raw_minhash_estimate,
            measured.measured_with
        from {measured} as measured
        """
    write_code()
    database = tmp_path / "daily.duckdb"
    build(database)
    first = read_table(database, pairs)
    assert len(first) > 0
    edited = ("ch-t02-01", "config/settings.py")
    removed = ("ch-t03-01", "vendor/lib.py")
    is_pair_of = {
        name: (first.challenge_a == challenge) & (first.file_a == path)
        for name, (challenge, path) in (("edited", edited), ("removed", removed))
    }
    assert is_pair_of["edited"].any() and is_pair_of["removed"].any()
    with duckdb.connect(str(database)) as connection:
        connection.execute(f"update {measured} set raw_minhash_estimate = -1")
    build(database)  # nothing changed: every stored pair is kept as it is
    assert (read_table(database, pairs).raw_minhash_estimate == -1).all()

    is_edited = (files.challenge_id == edited[0]) & (files.file_path == edited[1])
    files.loc[is_edited, "content"] = (
        files.loc[is_edited, "content"] + "\n\ndef more(x):\n    return x\n"
    )
    files = files[~((files.challenge_id == removed[0]) & (files.file_path == removed[1]))]
    write_code()
    build(database)
    second = read_table(database, pairs)
    again = (second.challenge_a == edited[0]) & (second.file_a == edited[1])
    assert again.any() and (second[again].raw_minhash_estimate >= 0).all()
    assert (second[~again & (second.challenge_a != edited[0])].raw_minhash_estimate == -1).any()
    assert not ((second.challenge_a == removed[0]) & (second.file_a == removed[1])).any()

    with duckdb.connect(str(database)) as connection:
        connection.execute(f"delete from {measured} where raw_minhash_estimate = -1")
    build(database)  # the pairs deleted above are measured again
    fresh = tmp_path / "fresh.duckdb"
    build(fresh)
    for relation in (measured, "intermediate.int_code_pairs_compared"):
        assert _rows_differing(database, fresh, relation) == 0, relation
