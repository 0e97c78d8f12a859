"""Selecting a subgraph works on a fresh database with dbt's default indirect selection.

Issue 11, item 6: `dbt build --select +fct_challenge_verdicts` exited 1 on a fresh database,
because eager indirect selection (dbt's default) also runs every test that touches a selected
model, including tests whose other parent (a `relationships` target, say) that selection
never builds. The checks between models live in fct_referential_integrity instead.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import read_table, run_dbt

pytestmark = pytest.mark.dbt

PACKAGE = "challenge_fairness"


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("selection_parse")
    run = run_dbt(["parse"], database=work / "unused.duckdb", work_dir=work)
    assert run.success, run.output
    return dict(json.loads((work / "target" / "manifest.json").read_text()))


def eagerly_selected_tests_lacking_a_parent(manifest: dict[str, Any]) -> dict[str, list[str]]:
    """For each mart M, the tests `--select +M` runs (eager: any parent selected) that have a
    parent outside the selection, i.e. a model that run does not build."""
    parents: dict[str, list[str]] = manifest["parent_map"]

    @cache
    def ancestors(node: str) -> frozenset[str]:
        found: set[str] = set()
        for parent in parents.get(node, []):
            found |= {parent, *ancestors(parent)}
        return frozenset(found)

    def short(unique_ids: set[str]) -> list[str]:
        return [unique_id.split(".")[-1] for unique_id in unique_ids]

    nodes = manifest["nodes"]
    tests = {
        unique_id: {p for p in parents[unique_id] if not p.startswith("source.")}
        for unique_id, node in nodes.items()
        if node["resource_type"] == "test" and node["package_name"] == PACKAGE
    }
    marts = [
        unique_id
        for unique_id, node in nodes.items()
        if node["resource_type"] == "model"
        and node["package_name"] == PACKAGE
        and node["fqn"][1] in ("marts", "reporting")
        and node["name"].startswith(("fct_", "rpt_"))
    ]
    assert len(marts) > 20
    offenders: dict[str, list[str]] = {}
    for mart in marts:
        selected = {mart, *ancestors(mart)}
        unbuildable = sorted(
            f"{nodes[test]['name']} (needs {', '.join(sorted(short(test_parents - selected)))})"
            for test, test_parents in tests.items()
            if test_parents & selected and not test_parents <= selected
        )
        if unbuildable:
            offenders[nodes[mart]["name"]] = unbuildable
    return offenders


def test_no_mart_subgraph_selects_a_test_it_cannot_build(manifest: dict[str, Any]) -> None:
    assert eagerly_selected_tests_lacking_a_parent(manifest) == {}


def test_the_check_reports_a_two_parent_test(manifest: dict[str, Any]) -> None:
    """A test like the old `relationships` ones (a downstream model checked against a
    staging model) is reported for the marts whose subgraph holds only the staging side."""
    nodes = dict(manifest["nodes"])
    parent_map = dict(manifest["parent_map"])
    fake = "test.challenge_fairness.fake_relationships"
    nodes[fake] = {"resource_type": "test", "package_name": PACKAGE, "name": "fake_relationships"}
    parent_map[fake] = [
        "model.challenge_fairness.fct_referential_integrity",
        "model.challenge_fairness.stg_platform__challenges",
    ]
    offenders = eagerly_selected_tests_lacking_a_parent(
        {**manifest, "nodes": nodes, "parent_map": parent_map}
    )
    assert any(
        test.startswith("fake_relationships (needs fct_referential_integrity)")
        for test in offenders["fct_challenge_verdicts"]
    )


# Issue 11, item 5: layers run one way. What each layer (a model's top folder) may read.
LAYER_READS = {
    "staging": {"source", "seed", "staging"},
    "intermediate": {"seed", "staging", "intermediate"},
    "marts": {"seed", "staging", "intermediate"},
    "reporting": {"seed", "staging", "intermediate", "marts", "reporting"},
}


def layer_violations(manifest: dict[str, Any]) -> list[str]:
    """`child (layer) <- parent (layer)` for every ref against the direction of the layers."""
    nodes = manifest["nodes"]

    def layer(unique_id: str) -> str:
        kind = unique_id.split(".")[0]
        return kind if kind in ("source", "seed") else str(nodes[unique_id]["fqn"][1])

    return sorted(
        f"{node['name']} ({layer(unique_id)}) <- {parent.split('.')[-1]} ({layer(parent)})"
        for unique_id, node in nodes.items()
        if node["resource_type"] == "model" and node["package_name"] == PACKAGE
        for parent in manifest["parent_map"][unique_id]
        if layer(parent) not in LAYER_READS[layer(unique_id)]
    )


def test_layers_run_one_way(manifest: dict[str, Any]) -> None:
    """staging -> intermediate -> marts -> reporting: no model reads a later layer, and no
    mart reads another mart (what two marts share is an intermediate model)."""
    layers = {
        node["fqn"][1]
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["package_name"] == PACKAGE
    }
    assert layers == set(LAYER_READS)
    assert layer_violations(manifest) == []


def test_the_layer_check_reports_a_mart_read_by_a_mart(manifest: dict[str, Any]) -> None:
    parent_map = dict(manifest["parent_map"])
    verdicts = "model.challenge_fairness.fct_challenge_verdicts"
    parent_map[verdicts] = [*parent_map[verdicts], "model.challenge_fairness.fct_family_deviation"]
    assert layer_violations({**manifest, "parent_map": parent_map}) == [
        "fct_challenge_verdicts (marts) <- fct_family_deviation (marts)"
    ]


def build_subgraph(tmp_path: Path, selector: str, spec: PlatformSpec) -> Path:
    """`dbt build --select <selector>` on a fresh database of a generated platform."""
    write_parquet(generate_platform(spec), str(tmp_path / "raw"))
    database = tmp_path / "fresh.duckdb"
    run = run_dbt(
        ["build", "--select", selector],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw"), "fairness_gate_severity": "warn"},
    )
    assert run.success, run.output
    return database


def test_verdict_subgraph_builds_on_a_fresh_database(tmp_path: Path) -> None:
    database = build_subgraph(
        tmp_path, "+fct_challenge_verdicts", PlatformSpec(seed=23, n_attempts=4_000)
    )
    verdicts = read_table(database, "select count(*) as n from main.fct_challenge_verdicts")
    assert int(verdicts["n"].iloc[0]) > 0


def test_referential_integrity_covers_the_models_and_catches_an_orphan(tmp_path: Path) -> None:
    database = build_subgraph(
        tmp_path,
        "+fct_referential_integrity",
        PlatformSpec(seed=29, n_attempts=4_000, detector_plants=True),
    )
    integrity = read_table(database, "select * from main.fct_referential_integrity")
    assert len(integrity) >= 30
    assert int(integrity["orphan_rows"].sum()) == 0
    attempts = integrity.set_index(["child_model", "child_column"]).loc[
        ("stg_platform__attempts", "challenge_id")
    ]
    assert attempts["parent_model"] == "stg_platform__challenges"
    assert int(attempts["child_rows"]) > 0

    # a challenge vanishes from staging after its attempts were staged: the check fails
    with duckdb.connect(str(database)) as connection:
        [(removed,)] = connection.execute(
            "delete from staging.base_platform__challenges where challenge_id ="
            " (select min(challenge_id) from staging.stg_platform__attempts)"
            " returning challenge_id"
        ).fetchall()
    run = run_dbt(
        ["build", "--select", "fct_referential_integrity"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw")},
    )
    assert not run.success
    assert any("referential_integrity_has_no_orphans" in m for m in run.messages), run.messages
    orphans = read_table(
        database, "select * from main.fct_referential_integrity where orphan_rows > 0"
    ).set_index(["child_model", "child_column"])
    assert orphans.loc[("stg_platform__attempts", "challenge_id"), "first_orphan_value"] == removed
