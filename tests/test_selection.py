"""Selecting a subgraph works on a fresh database; every source is in the lineage.

Issue 11, item 6: `dbt build --select +fct_challenge_verdicts` exited 1 on a fresh database,
because eager indirect selection (dbt's default) also runs every test that touches a selected
model, including tests whose other parent (a `relationships` target, say) that selection
never builds. Issue 34: the keys between models are dbt's own `relationships` tests, and the
project sets `flags: {indirect_selection: buildable}`, under which a two-parent test runs
only when the selection builds both parents. The checks below simulate both modes from the
manifest for every public mart, and hold the simulation to dbt's own `dbt ls` on one mart.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import REPO_ROOT, read_table, run_dbt

pytestmark = pytest.mark.dbt

PACKAGE = "challenge_fairness"


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("selection_parse")
    run = run_dbt(["parse"], database=work / "unused.duckdb", work_dir=work)
    assert run.success, run.output
    return work


@pytest.fixture(scope="module")
def manifest(parsed: Path) -> dict[str, Any]:
    return dict(json.loads((parsed / "target" / "manifest.json").read_text()))


def public_marts(manifest: dict[str, Any]) -> list[str]:
    return sorted(
        unique_id
        for unique_id, node in manifest["nodes"].items()
        if node["resource_type"] == "model"
        and node["package_name"] == PACKAGE
        and node["access"] == "public"
    )


def ancestors_of(manifest: dict[str, Any]) -> Any:
    parents: dict[str, list[str]] = manifest["parent_map"]

    @cache
    def ancestors(node: str) -> frozenset[str]:
        found: set[str] = set()
        for parent in parents.get(node, []):
            found |= {parent, *ancestors(parent)}
        return frozenset(found)

    return ancestors


def package_tests(manifest: dict[str, Any]) -> dict[str, set[str]]:
    """Each test of the package and the models, seeds and snapshots it reads."""
    return {
        unique_id: {p for p in manifest["parent_map"][unique_id] if not p.startswith("source.")}
        for unique_id, node in manifest["nodes"].items()
        if node["resource_type"] == "test" and node["package_name"] == PACKAGE
    }


def selected_tests(manifest: dict[str, Any], mart: str, mode: str) -> set[str]:
    """The tests `dbt build --select +<mart>` runs under an indirect-selection mode: eager,
    any parent selected; buildable, every parent selected or an ancestor of the selection."""
    ancestors = ancestors_of(manifest)
    selected = {mart, *ancestors(mart)}
    buildable = selected | {a for node in selected for a in ancestors(node)}
    return {
        test
        for test, test_parents in package_tests(manifest).items()
        if test_parents & selected and (mode == "eager" or test_parents <= buildable)
    }


def unbuildable_tests_by_mart(manifest: dict[str, Any], mode: str) -> dict[str, list[str]]:
    """For each public mart M, the tests `--select +M` runs under `mode` that have a parent
    outside the selection, i.e. a model that run does not build."""
    ancestors = ancestors_of(manifest)
    nodes = manifest["nodes"]
    tests = package_tests(manifest)
    marts = public_marts(manifest)
    assert len(marts) > 40
    offenders: dict[str, list[str]] = {}
    for mart in marts:
        selected = {mart, *ancestors(mart)}
        unbuildable = sorted(
            f"{nodes[test]['name']} (needs "
            f"{', '.join(sorted(p.split('.')[-1] for p in tests[test] - selected))})"
            for test in selected_tests(manifest, mart, mode)
            if not tests[test] <= selected
        )
        if unbuildable:
            offenders[nodes[mart]["name"]] = unbuildable
    return offenders


def test_the_project_selects_tests_buildably() -> None:
    project = yaml.safe_load((REPO_ROOT / "dbt_project.yml").read_text())
    assert project["flags"]["indirect_selection"] == "buildable"


def test_no_public_mart_subgraph_selects_a_test_it_cannot_build(manifest: dict[str, Any]) -> None:
    assert unbuildable_tests_by_mart(manifest, "buildable") == {}


def test_eager_selection_would_select_unbuildable_relationship_tests(
    manifest: dict[str, Any],
) -> None:
    """The check can fail: under dbt's default the relationships tests whose other side a
    mart's subgraph lacks are selected (e.g. fct_challenge_verdicts' subgraph has the staged
    challenges, and the marts' challenge_id tests read them)."""
    offenders = unbuildable_tests_by_mart(manifest, "eager")
    assert any(
        test.startswith("relationships_") for test in offenders.get("fct_challenge_verdicts", [])
    ), offenders


def test_dbt_selects_what_the_simulation_says(manifest: dict[str, Any], parsed: Path) -> None:
    """dbt's own selector (the project's flag, no CLI override) picks the simulated tests."""
    mart = "model.challenge_fairness.fct_challenge_verdicts"
    run = run_dbt(
        [
            "ls",
            "--select",
            "+fct_challenge_verdicts",
            "--resource-type",
            "test",
            "--output",
            "json",
            "--output-keys",
            "unique_id",
        ],
        database=parsed / "unused.duckdb",
        work_dir=parsed,
    )
    assert run.success, run.output
    listed = {json.loads(line)["unique_id"] for line in run.result.result}
    assert listed == selected_tests(manifest, mart, "buildable")
    assert any(".relationships_" in test for test in listed)


def test_every_source_is_in_the_lineage(manifest: dict[str, Any]) -> None:
    """Optional tables included: `dbt ls -s source:platform.<table>+` reaches the models that
    read it (macro optional_source_rows calls source() even when the table is absent)."""
    readers = {
        source: sorted(
            manifest["nodes"][child]["name"]
            for child in manifest["child_map"][source]
            if child.startswith("model.")
        )
        for source in manifest["sources"]
    }
    assert len(readers) == 10
    assert {source: names for source, names in readers.items() if not names} == {}
    assert (
        "base_platform__test_results" in readers["source.challenge_fairness.platform.test_results"]
    )
    assert (
        "base_platform__reference_corpus"
        in readers["source.challenge_fairness.platform.reference_corpus"]
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


def test_verdict_subgraph_builds_on_a_fresh_database_and_its_keys_are_tested(
    tmp_path: Path,
) -> None:
    database = build_subgraph(
        tmp_path, "+fct_challenge_verdicts", PlatformSpec(seed=23, n_attempts=4_000)
    )
    verdicts = read_table(database, "select count(*) as n from main.fct_challenge_verdicts")
    assert int(verdicts["n"].iloc[0]) > 0

    # the clean attempts and challenges pass their relationships test; then a challenge
    # vanishes from staging after the key checks ran: the test fails, named
    run = run_dbt(
        ["build", "--select", "int_keyed__attempts", "stg_platform__challenges"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw")},
    )
    assert run.success, run.output
    with duckdb.connect(str(database)) as connection:
        connection.execute(
            "delete from staging.base_platform__challenges where challenge_id ="
            " (select min(challenge_id) from intermediate.int_keyed__attempts)"
        )
    run = run_dbt(
        ["test", "--select", "int_keyed__attempts", "stg_platform__challenges"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw")},
    )
    assert not run.success
    failed = [result.node.name for result in run.result.result if str(result.status) == "fail"]
    assert failed == [
        "relationships_int_keyed__attempts_challenge_id__challenge_id__ref_stg_platform__challenges_"
    ], run.messages
