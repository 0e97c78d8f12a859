"""Tier 2: the UDFs registered on an in-memory DuckDB, called from SQL."""

from __future__ import annotations

import itertools

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from challenge_fairness import udfs
from challenge_fairness.detectors import test_case_bias
from challenge_fairness.plugin import Plugin
from challenge_fairness.registry import all_udfs, register_udfs
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats


@pytest.fixture
def connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    Plugin(name="challenge_fairness", plugin_config={}).configure_connection(connection)
    return connection


def test_plugin_registers_every_udf_of_the_registry(connection: duckdb.DuckDBPyConnection) -> None:
    registered = {
        row[0]
        for row in connection.sql(
            "select function_name from duckdb_functions() where function_name like 'cf_%'"
        ).fetchall()
    }
    assert registered == {spec.name for spec in all_udfs()}


def test_registering_twice_on_one_instance_fails_loudly(
    connection: duckdb.DuckDBPyConnection,
) -> None:
    with pytest.raises(Exception, match="already"):
        register_udfs(connection)


def test_kruskal_wallis_udf_over_many_challenges_matches_scipy(
    connection: duckdb.DuckDBPyConnection,
) -> None:
    rng = np.random.default_rng(3)
    rows = []
    expected = {}
    for challenge in range(200):
        k = int(rng.integers(2, 6))
        samples = [
            rng.integers(0, 101, size=int(rng.integers(1, 80))).astype(float) for _ in range(k)
        ]
        expected[challenge] = scipy_stats.kruskal(*samples)
        for family, sample in enumerate(samples):
            for value in sample:
                rows.append((challenge, f"family_{family}", float(value)))
    connection.execute("create table scores (challenge integer, family varchar, score double)")
    connection.executemany("insert into scores values (?, ?, ?)", rows)
    result = connection.sql(
        """
        with counted as (
            select challenge, family, score, count(*) as n from scores group by all
        )
        select challenge, cf_kruskal_wallis(list(family), list(score), list(n)) as kw
        from counted group by challenge order by challenge
        """
    ).fetchall()
    assert len(result) == 200
    for challenge, kw in result:
        assert kw["status"] == "ok"
        assert kw["h_statistic"] == pytest.approx(expected[challenge].statistic, rel=1e-9)
        assert kw["p_value"] == pytest.approx(expected[challenge].pvalue, rel=1e-9)


def test_kruskal_wallis_udf_degenerate_rows_are_null_with_reason(
    connection: duckdb.DuckDBPyConnection,
) -> None:
    rows = connection.sql(
        """
        select cf_kruskal_wallis(groups, scores, counts) as kw from (values
            (['a', 'a'], [1.0, 2.0], [3, 4]),
            (['a', 'b'], [5.0, 5.0], [3, 4]),
            ([]::varchar[], []::double[], []::bigint[]),
            (null, null, null)
        ) as t(groups, scores, counts)
        """
    ).fetchall()
    one_family, identical, empty, missing = (row[0] for row in rows)
    assert one_family["h_statistic"] is None and "fewer than two" in one_family["reason"]
    assert identical["h_statistic"] is None and "identical" in identical["reason"]
    assert empty["status"] == "not_computable"
    assert missing is None


@given(
    st.lists(
        st.tuples(st.integers(0, 50), st.floats(0, 100), st.floats(0, 900)), min_size=1, max_size=50
    )
)
@settings(max_examples=50, deadline=None)
def test_cohens_d_udf_equals_the_pure_function(rows: list[tuple[int, float, float]]) -> None:
    from challenge_fairness import stats

    connection = duckdb.connect()
    register_udfs(connection)
    table = [(n, m, v, n + 1, m / 2, v / 3) for n, m, v in rows]
    connection.execute(
        "create table moments (na double, ma double, va double, nb double, mb double, vb double)"
    )
    connection.executemany("insert into moments values (?, ?, ?, ?, ?, ?)", table)
    got = connection.sql(
        "select d.cohens_d, d.status "
        "from (select cf_cohens_d(na, ma, va, nb, mb, vb) as d from moments)"
    ).fetchall()
    expected = stats.cohens_d(*np.array(table, dtype=float).T)
    for (d, status), want, want_status in zip(got, expected.cohens_d, expected.status, strict=True):
        assert status == want_status
        if np.isnan(want):
            assert d is None
        else:
            assert d == pytest.approx(want, rel=1e-12)


def test_cohens_d_udf_handles_null_moments(connection: duckdb.DuckDBPyConnection) -> None:
    (row,) = connection.sql("select cf_cohens_d(1, 5.0, null, 10, 4.0, 2.0) as d").fetchall()
    assert row[0]["cohens_d"] is None
    assert "fewer than two" in row[0]["reason"]


def test_plugin_runs_blas_on_one_thread_and_asks_for_no_huge_pages() -> None:
    """BLAS threads would only spin against DuckDB's in a build, and huge page requests can
    stall on the kernel's compaction (see the plugin's docstring)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    multiarray = np._core.multiarray
    before = multiarray._get_madvise_hugepage()
    multiarray._set_madvise_hugepage(True)
    try:
        with threadpool_limits(limits=2, user_api="blas"):
            Plugin(name="challenge_fairness", plugin_config={})
            blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
            assert blas
            assert [pool["num_threads"] for pool in blas] == [1] * len(blas)
        assert multiarray._get_madvise_hugepage() is False
    finally:
        multiarray._set_madvise_hugepage(before)


@given(
    labels=st.lists(st.one_of(st.none(), st.text(max_size=3)), max_size=40),
    cuts=st.lists(st.integers(0, 40), max_size=4),
)
def test_label_codes_of_a_chunked_array_are_those_of_its_rows_in_one_array(
    labels: list[str | None], cuts: list[int]
) -> None:
    """A chunked array (a table as DuckDB hands it over, in batches) is coded against one
    dictionary: the same codes and sorted labels as its rows in one array, whatever the
    chunks (empty ones included) and whichever labels each chunk meets first."""
    bounds = [0, *sorted(min(cut, len(labels)) for cut in cuts), len(labels)]
    chunked = pa.chunked_array(
        [pa.array(labels[start:stop], pa.string()) for start, stop in itertools.pairwise(bounds)],
        pa.string(),
    )
    codes, sorted_labels = udfs.label_codes(chunked)
    whole_codes, whole_labels = udfs.label_codes(pa.array(labels, pa.string()))
    np.testing.assert_array_equal(codes, whole_codes)
    np.testing.assert_array_equal(sorted_labels, whole_labels)
    filled = ["" if label is None else label for label in labels]
    assert list(sorted_labels) == sorted(set(filled))
    assert [sorted_labels[code] for code in codes] == filled


@given(order=st.permutations(range(6)), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_grouped_udfs_give_the_same_bits_whatever_rows_share_the_batch(
    order: list[int], seed: int
) -> None:
    """A row's result does not depend on the other rows of its arrow batch, which DuckDB
    fills in any order: the groups of a row are coded by label, not by their first
    appearance in the batch (Kruskal-Wallis, Dunn pairs, test-case DIF; bit for bit)."""
    rng = np.random.default_rng(seed)
    names = np.array(["delta", "alpha", "charlie", "bravo"])
    rows = []
    for _ in range(6):
        families = rng.permutation(names)[: int(rng.integers(2, 5))]
        row: tuple[list, ...] = ([], [], [], [], [])
        for family in families:
            for value in rng.choice(np.arange(0, 100.5, 0.5), size=int(rng.integers(2, 8))):
                row[0].append(str(family))
                row[1].append(float(value))
                row[2].append(int(rng.integers(1, 5)))
                row[3].append(int(value // 25))
                row[4].append(int(rng.integers(0, 5)))
        rows.append(row)

    def run(batch: list[tuple[list, ...]]) -> list[tuple[object, object, object]]:
        groups, values, counts, bands, failures = (
            pa.chunked_array([[row[i] for row in batch]]) for i in range(5)
        )
        constants = [
            pa.chunked_array([[v] * len(batch)], type=pa.float64()) for v in (0.05, 1.0, 1.5)
        ]
        return list(
            zip(
                udfs.kruskal_wallis(groups, values, counts).to_pylist(),
                udfs.dunn(groups, values, counts).to_pylist(),
                test_case_bias.dif_by_test_case(
                    groups, bands, counts, failures, *constants
                ).to_pylist(),
                strict=True,
            )
        )

    alone = run(rows)
    permuted = run([rows[i] for i in order])
    for position, row in enumerate(order):
        assert permuted[position] == alone[row]
