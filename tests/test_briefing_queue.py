"""A briefing finding explains a flagged family bias whatever the challenge's tags (issue 33).

A small platform of standalone challenges, none tagged competitive, two with a planted
family bias: one whose briefing names a holiday (a library locale finding), one whose
briefing uses an undefined billing code (a jargon candidate); a third briefing assumes
customary rules but has no bias. The review queue must attribute both biases to the
briefing (fix_briefing), not retire the challenges as unexplained; the unbiased challenge's
finding is no queue item (only a competitive tag makes a finding an item on its own).
"""

from __future__ import annotations

from typing import Any

import audit_fixtures
import pyarrow as pa
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform
from conftest import read_table, run_dbt

pytestmark = pytest.mark.dbt
BRIEFINGS = {
    "ch-s03": "Deliver every order before Boxing Day and log late ones.",
    "ch-s05": "Group each claim line by its HCPCS code and sum the amounts.",
    "ch-s07": "Rank the teams the usual way and print the table.",
}
NEUTRAL = "Sort the records by name and remove duplicates."


@pytest.fixture(scope="module")
def queue_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("briefing_queue")
    platform = generate_platform(
        PlatformSpec(
            seed=5,
            n_attempts=24_000,
            n_templates=0,
            n_standalone_challenges=8,
            planted_family_biases=(("ch-s03", "llama", -25.0), ("ch-s05", "qwen", 25.0)),
            planted_hard_combinations=(),
        )
    )
    challenges = platform.tables["challenges"]
    ids = challenges.column("challenge_id").to_pylist()
    texts = [BRIEFINGS.get(c, NEUTRAL) for c in ids]
    challenges = challenges.append_column("briefing_text", pa.array(texts, pa.string()))
    database = work / "queue.duckdb"
    audit_fixtures.write_platform({**platform.tables, "challenges": challenges}, database)
    for args in (["seed"], ["run", "--select", "+rpt_review_queue"]):
        run = run_dbt(args, database=database, work_dir=work)
        assert run.success, run.output
    return {"database": database}


def test_family_bias_with_a_locale_finding_is_fixed_in_the_briefing(
    queue_build: dict[str, Any],
) -> None:
    evidence = read_table(
        queue_build["database"],
        "select * from intermediate.int_bias_evidence_unioned where detector = 'family_verdict'",
    ).set_index("challenge_id")
    assert {"ch-s03", "ch-s05"} <= set(evidence.index)
    locale = evidence.loc["ch-s03"]
    assert locale.recommended_action == "fix_briefing", locale.action_reason
    assert locale.cause == "briefing of ch-s03 assumes a locale"
    assert "briefing_locale finding ch-s03/named_holiday" in locale.action_reason
    jargon = evidence.loc["ch-s05"]
    assert jargon.recommended_action == "fix_briefing", jargon.action_reason
    assert "briefing_domain_assumptions finding ch-s05/jargon:hcpcs" in jargon.action_reason
    assert not evidence.cause.str.contains("no detector explains").any()


def test_queue_items_are_the_briefings_and_no_unbiased_finding(
    queue_build: dict[str, Any],
) -> None:
    queue = read_table(queue_build["database"], "select * from main.rpt_review_queue")
    briefing_items = queue[queue.detectors.str.contains("briefing_")]
    by_challenge = dict(
        zip(briefing_items.challenge_ids, briefing_items.recommended_action, strict=True)
    )
    assert by_challenge == {"ch-s03": "fix_briefing", "ch-s05": "fix_briefing"}
    assert not briefing_items.challenge_ids.str.contains("ch-s07").any()
    for detectors in briefing_items.detectors:
        assert "family_verdict" in detectors
