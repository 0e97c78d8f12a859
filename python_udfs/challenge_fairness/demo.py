"""Deterministic simulator of an AI-agent evaluation platform's raw logs.

The generated tables follow the package's source contract (``attempts``,
``challenges``, ``agents``, ``models``) and are used by the demo, the tests
and the benchmarks.  Everything is derived from ``PlatformSpec.seed`` and the
per-attempt work is fully vectorised, so 10,000,000 attempts take seconds.

Platform structure
------------------
* Every family has ``models_per_family`` models (``<family>-m<k>``), every
  model ``agents_per_model`` agents (``agent-001`` ...).  Models carry a
  ``training_cutoff`` in 2024-2025; the last model's cutoff is NULL.
* Templated challenges come from a fixed catalogue of templates
  (``tpl-01`` ...), each with 2-3 variables of 2-3 values; every combination
  of a template is one challenge (``ch-t01-01`` ...).  Standalone challenges
  (``ch-s01`` ...) have variables ``'{}'`` and their own template
  (``tpl-s01`` ...).  The catalogue does not depend on the seed, so the
  default planted ids exist for every seed.
* Roughly half of the templated challenges store their variables JSON with
  the keys in reverse-sorted order (and sometimes with ``': '`` separators),
  so consumers must canonicalise; the truth tables use the canonical form
  ``json.dumps(dict(sorted(...)), separators=(",", ":"))``.
* ``briefing_style`` alternates ``'markdown'``/``'plain'`` over templated
  challenges and is NULL for standalone ones; ``ch-s01``/``ch-s02`` form
  experiment ``exp-001`` (arms ``'A'``/``'B'``); a few challenges carry the
  tags ``'api:stripe'``, ``'api:twilio'`` or ``'string-handling'``.

Score model
-----------
For an attempt of agent ``a`` (model ``m``, family ``f``) on challenge ``c``::

    score = 60
          + difficulty[c]   # standalone: N(0, 8); templated: template base
                            # N(0, 6) + combination offset N(0, 3)
          + family_skill[f] # default: evenly spread over [-2, +2]
          + model_offset[m] # N(0, 1)
          + agent_offset[a] # N(0, 1.5)
          + planted[c, f]   # family bias on (c, f) and/or the hard-combination
                            # shift on every attempt of that combination
          + N(0, noise_sd)

A share ``crash_rate`` of attempts crash and score Uniform(0, 5) instead; a
share ``unscored_rate`` has a NULL score.  Scores are clipped to [0, 100] and
rounded to integers when ``integer_scores``.  Attempts pick an agent
uniformly and a challenge uniformly; with ``family_routing`` a family's
attempts pick the hardest third (at least one) of the given template's
combinations ``weight`` times more often than any other challenge, which
confounds naive family comparisons.  ``submitted_at`` is uniform over
2026-01-01 00:00 .. 2026-06-30 23:59:59.

With ``dirty=True`` a handful of bad rows of every kind is appended; each is
listed in ``Platform.dirty_rows`` with the reason a validator should give.

CLI::

    python -m challenge_fairness.demo (--duckdb PATH [--schema raw] | --parquet-dir DIR)
        [--attempts N] [--seed S] [--dirty] [--detector-plants] [--quickstart]
        [--truth-json PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from challenge_fairness.cli_guard import (
    DEMO_MARKER,
    DEMO_PARQUET_KEY,
    Refused,
    is_duckdb_file,
    run_cli,
)
from challenge_fairness.demo_test_code import add_test_code

ATTEMPTS_SCHEMA = pa.schema(
    [
        ("attempt_id", pa.string()),
        ("challenge_id", pa.string()),
        ("agent_id", pa.string()),
        ("score", pa.float64()),
        ("submitted_at", pa.timestamp("us")),
    ]
)
CHALLENGES_SCHEMA = pa.schema(
    [
        ("challenge_id", pa.string()),
        ("template_id", pa.string()),
        ("variables", pa.string()),
        ("briefing_style", pa.string()),
        ("experiment_id", pa.string()),
        ("experiment_arm", pa.string()),
        ("tags", pa.list_(pa.string())),
    ]
)
AGENTS_SCHEMA = pa.schema([("agent_id", pa.string()), ("model_id", pa.string())])
MODELS_SCHEMA = pa.schema(
    [
        ("model_id", pa.string()),
        ("model_family", pa.string()),
        ("training_cutoff", pa.date32()),
    ]
)
SCHEMAS: dict[str, pa.Schema] = {
    "attempts": ATTEMPTS_SCHEMA,
    "challenges": CHALLENGES_SCHEMA,
    "agents": AGENTS_SCHEMA,
    "models": MODELS_SCHEMA,
}
DUCKDB_TYPES: dict[str, dict[str, str]] = {
    "attempts": {
        "attempt_id": "VARCHAR",
        "challenge_id": "VARCHAR",
        "agent_id": "VARCHAR",
        "score": "DOUBLE",
        "submitted_at": "TIMESTAMP",
    },
    "challenges": {
        "challenge_id": "VARCHAR",
        "template_id": "VARCHAR",
        "variables": "VARCHAR",
        "briefing_style": "VARCHAR",
        "experiment_id": "VARCHAR",
        "experiment_arm": "VARCHAR",
        "tags": "VARCHAR[]",
    },
    "agents": {"agent_id": "VARCHAR", "model_id": "VARCHAR"},
    "models": {"model_id": "VARCHAR", "model_family": "VARCHAR", "training_cutoff": "DATE"},
    # optional inputs, present with PlatformSpec.detector_plants
    "test_cases": {"test_case_id": "VARCHAR", "challenge_id": "VARCHAR", "input_text": "VARCHAR"},
    "test_results": {"attempt_id": "VARCHAR", "test_case_id": "VARCHAR", "passed": "BOOLEAN"},
    "challenge_files": {"challenge_id": "VARCHAR", "file_path": "VARCHAR", "content": "VARCHAR"},
    "reference_corpus": {
        "document_id": "VARCHAR",
        "source": "VARCHAR",
        "content": "VARCHAR",
        "published_at": "DATE",
    },
}
OPTIONAL_COLUMN_TYPES: dict[str, dict[str, str]] = {"attempts": {"approach": "VARCHAR"}}
PLANTED_FAMILY_BIASES_SCHEMA = pa.schema(
    [("challenge_id", pa.string()), ("model_family", pa.string()), ("shift", pa.float64())]
)
PLANTED_HARD_COMBINATIONS_SCHEMA = pa.schema(
    [("template_id", pa.string()), ("variables", pa.string()), ("shift", pa.float64())]
)
DIRTY_ROWS_SCHEMA = pa.schema(
    [("source_table", pa.string()), ("row_key", pa.string()), ("expected_reason", pa.string())]
)

BASE_SCORE = 60.0
STANDALONE_DIFFICULTY_SD = 8.0
TEMPLATE_DIFFICULTY_SD = 6.0
COMBINATION_DIFFICULTY_SD = 3.0
MODEL_OFFSET_SD = 1.0
AGENT_OFFSET_SD = 1.5
CRASH_SCORE_MAX = 5.0
ROUTED_SHARE_OF_COMBINATIONS = 1 / 3
PERIOD_START = np.datetime64("2026-01-01T00:00:00", "us")
PERIOD_END = np.datetime64("2026-07-01T00:00:00", "us")  # exclusive
CUTOFF_START = np.datetime64("2024-01-01", "D")
CUTOFF_END = np.datetime64("2026-01-01", "D")  # exclusive
EXPERIMENT_ID = "exp-001"

# Template catalogue: variables in declared order (the order combinations are enumerated in).
TEMPLATE_CATALOGUE: tuple[dict[str, Any], ...] = (
    {
        "variables": {
            "framework": ("Hono", "Express", "FastAPI"),
            "database": ("SQLite", "Postgres"),
            "domain": ("inventory", "billing", "bookings"),
        },
        "tags": (),
    },
    {
        "variables": {"language": ("Python", "Go", "Rust"), "output_format": ("json", "csv")},
        "tags": ("string-handling",),
    },
    {
        "variables": {"source": ("csv", "parquet", "rest"), "orchestrator": ("airflow", "dagster")},
        "tags": (),
    },
    {
        "variables": {"ui_framework": ("React", "Vue", "Svelte"), "validation": ("zod", "yup")},
        "tags": (),
    },
    {
        "variables": {"auth": ("jwt", "session"), "database": ("Postgres", "MySQL", "SQLite")},
        "tags": ("api:twilio",),
    },
    {
        "variables": {
            "language": ("Python", "TypeScript"),
            "target": ("news", "shop"),
            "storage": ("sqlite", "s3"),
        },
        "tags": (),
    },
)
# Tags of standalone challenges, cycled by standalone index.
STANDALONE_TAGS: tuple[tuple[str, ...], ...] = (
    (),
    (),
    ("api:stripe",),
    ("string-handling",),
    (),
    ("api:stripe", "string-handling"),
    ("api:twilio",),
    (),
    (),
    (),
    ("api:stripe",),
    (),
)

# Signals planted for the detectors when PlatformSpec.detector_plants is set.
DETECTOR_PLANTS: dict[str, Any] = {
    # every combination of this template is offered in both styles; in 'plain' style the
    # family loses `shift` points (a style-specific family effect)
    "briefing_style": {
        "template_id": "tpl-03",
        "style": "plain",
        "family": "llama",
        "shift": -15.0,
    },
    # experiment -> (arm A challenge, arm B challenge, family biased in A, its shift,
    # difficulty of B relative to A)
    "experiments": {
        "exp-001": ("ch-s01", "ch-s02", "gpt", 15.0, 0.0),
        "exp-002": ("ch-s10", "ch-s11", None, 0.0, -12.0),
    },
    # points per year of training cutoff (centred): on every challenge, and extra on a tag
    "cutoff_points_per_year": 1.5,
    "api_memorization": {"tag": "api:stripe", "extra_points_per_year": 4.0},
    "api_tagged_template": "tpl-06",  # tagged api:stripe as a whole, for power
    # challenge -> (approach A, approach B, score shift of B, families preferring A)
    "approaches": {
        "ch-s07": ("app-router", "pages-router", -15.0, ("claude", "gemini")),
        "ch-s08": ("rest", "graphql", 0.0, ("gpt", "qwen")),
    },
    "extra_agent_ability_sd": 6.0,
    # challenge code copied from the reference corpus, and two instances sharing code
    "contamination": {
        "copies": {"ch-s09": "verbatim", "ch-s06": "renamed"},
        "shared_instances": [("ch-t03-01", "ch-t03-02")],
    },
    "test_cases_per_challenge": 6,
    "test_case_slope": 8.0,  # P(pass) = sigmoid((score - difficulty) / slope)
    "test_case_dif": {"test_case_id": "ch-s05-tc3", "family": "mistral", "log_odds": -2.5},
    "string_challenge_lacking": {"challenge_id": "ch-s03", "lacks": ("cjk", "right_to_left")},
}
UNICODE_SAMPLES: dict[str, str] = {
    "accented_latin": "Crème brûlée for Zoë in São Paulo",
    "cjk": "漢字 かな 한글",
    "emoji": "launch 🚀 party 🎉 😀",
    "right_to_left": "שלום مرحبا",
    "zero_width": "zero\u200bwidth\u200djoin\ufeff",
}

DEFAULT_PLANTED_FAMILY_BIASES: tuple[tuple[str, str, float], ...] = (
    ("ch-t02-03", "gemini", 20.0),
    ("ch-s04", "llama", -20.0),
    ("ch-s09", "qwen", 20.0),
)
DEFAULT_PLANTED_HARD_COMBINATIONS: tuple[tuple[str, str, float], ...] = (
    ("tpl-01", '{"database":"Postgres","domain":"bookings","framework":"Express"}', -30.0),
)


@dataclass(frozen=True)
class PlatformSpec:
    """Knobs of the simulated platform; every table is a pure function of this spec."""

    seed: int = 7
    n_attempts: int = 60_000
    families: tuple[str, ...] = ("claude", "gemini", "gpt", "llama", "mistral", "qwen")
    family_skill: tuple[float, ...] | None = None  # points per family; None: linspace(-2, 2)
    models_per_family: int = 2
    agents_per_model: int = 3
    n_templates: int = 6  # templated: every combination of a template's variables is a challenge
    n_standalone_challenges: int = 12  # variables '{}', each its own template
    noise_sd: float = 15.0
    crash_rate: float = 0.04  # crashed attempts score Uniform(0, 5)
    unscored_rate: float = 0.01  # NULL score
    integer_scores: bool = True  # round to integers (many ties)
    # (challenge_id, family, shift in points)
    planted_family_biases: tuple[tuple[str, str, float], ...] = DEFAULT_PLANTED_FAMILY_BIASES
    # (template_id, variables JSON in any key order, shift in points)
    planted_hard_combinations: tuple[tuple[str, str, float], ...] = (
        DEFAULT_PLANTED_HARD_COMBINATIONS
    )
    # family -> (template_id, weight): routed weight-times as often to its hardest combinations
    family_routing: dict[str, tuple[str, float]] | None = field(default=None, hash=False)
    dirty: bool = False  # append bad rows of every kind, listed in Platform.dirty_rows
    # plant the signals of the other detectors (briefing styles, A/B experiments, API
    # memorisation, approach labels, test cases and results): see DETECTOR_PLANTS
    detector_plants: bool = False
    # a model family arriving mid-period with a bias on one otherwise fair challenge (the
    # verdict history's drift): see VERDICT_DRIFT_PLANT; on in the --detector-plants demo
    verdict_drift: bool = False
    # a planted family bias that is fixed part-way through the period (the verdict
    # history's "fixed"): see BIAS_FIX_PLANT; on in the --detector-plants demo
    bias_fix: bool = False
    # test cases per challenge (and so test results per scored attempt) without the other
    # detector plants, for benchmarks at scale; ignored with detector_plants (6 per challenge)
    test_cases_per_challenge: int = 0


# The platform `make demo` builds (CLI flag --quickstart): every plant, dirty rows, and
# enough attempts per month for the verdict history to decide most challenges.
QUICKSTART_DEMO = PlatformSpec(
    n_attempts=240_000, dirty=True, detector_plants=True, verdict_drift=True, bias_fix=True
)


@dataclass(frozen=True)
class Platform:
    """Generated raw tables plus the ground truth that was planted in them."""

    spec: PlatformSpec
    tables: dict[str, pa.Table]
    planted_family_biases: pa.Table
    planted_hard_combinations: pa.Table
    dirty_rows: pa.Table
    detector_truth: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Challenges:
    """Challenge catalogue: the contract table plus arrays the score model needs."""

    table: pa.Table
    ids: list[str]
    template_ids: list[str]
    canonical_variables: list[str]


def canonical_variables(variables: str | dict[str, Any]) -> str:
    """Return the canonical JSON form (sorted keys, compact separators) of a variables object."""
    obj = json.loads(variables) if isinstance(variables, str) else variables
    if not isinstance(obj, dict):
        raise ValueError(f"variables must be a JSON object, got {variables!r}")
    return json.dumps(dict(sorted(obj.items())), separators=(",", ":"))


def _family_skill(spec: PlatformSpec) -> np.ndarray:
    """Genuine ability offset per family (evenly spread over [-2, 2] by default)."""
    if spec.family_skill is None:
        if len(spec.families) == 1:
            return np.zeros(1)
        return np.linspace(-2.0, 2.0, len(spec.families)).round(12)
    return np.asarray(spec.family_skill, dtype=np.float64)


def _validate(spec: PlatformSpec) -> None:
    """Raise ValueError when the spec is inconsistent."""
    if not spec.families or len(set(spec.families)) != len(spec.families):
        raise ValueError("families must be a non-empty tuple of distinct names")
    if spec.family_skill is not None and len(spec.family_skill) != len(spec.families):
        raise ValueError("family_skill must have one value per family")
    if spec.n_attempts < 0:
        raise ValueError("n_attempts must be >= 0")
    if min(spec.models_per_family, spec.agents_per_model) < 1:
        raise ValueError("models_per_family and agents_per_model must be >= 1")
    if min(spec.n_templates, spec.n_standalone_challenges) < 0:
        raise ValueError("n_templates and n_standalone_challenges must be >= 0")
    if spec.n_templates + spec.n_standalone_challenges == 0:
        raise ValueError("the platform needs at least one challenge")
    rates_ok = spec.crash_rate >= 0 and spec.unscored_rate >= 0
    if not rates_ok or spec.crash_rate + spec.unscored_rate > 1:
        raise ValueError("crash_rate and unscored_rate must be >= 0 and sum to at most 1")
    if spec.noise_sd < 0:
        raise ValueError("noise_sd must be >= 0")


def _variables_json(values: dict[str, str], position: int) -> str:
    """Serialise a combination: canonical, or (every other pair) reverse-sorted keys."""
    if (position // 2) % 2 == 0:
        return canonical_variables(values)
    separators = (", ", ": ") if position % 2 == 1 else (",", ":")
    return json.dumps(dict(sorted(values.items(), reverse=True)), separators=separators)


def _build_challenges(spec: PlatformSpec) -> _Challenges:
    """Enumerate templated and standalone challenges with their contract columns."""
    rows: list[dict[str, Any]] = []
    canonical: list[str] = []
    for t in range(spec.n_templates):
        entry = TEMPLATE_CATALOGUE[t % len(TEMPLATE_CATALOGUE)]
        names = list(entry["variables"])
        combos = itertools.product(*entry["variables"].values())
        for k, combo in enumerate(combos):
            values = dict(zip(names, combo, strict=True))
            position = len(canonical)
            rows.append(
                {
                    "challenge_id": f"ch-t{t + 1:02d}-{k + 1:02d}",
                    "template_id": f"tpl-{t + 1:02d}",
                    "variables": _variables_json(values, position),
                    "briefing_style": ("markdown", "plain")[position % 2],
                    "experiment_id": None,
                    "experiment_arm": None,
                    "tags": list(entry["tags"]),
                }
            )
            canonical.append(canonical_variables(values))
    if spec.detector_plants:
        rows, canonical = _with_briefing_style_twins(rows, canonical)
    for s in range(spec.n_standalone_challenges):
        in_experiment = s < 2 and spec.n_standalone_challenges >= 2
        rows.append(
            {
                "challenge_id": f"ch-s{s + 1:02d}",
                "template_id": f"tpl-s{s + 1:02d}",
                "variables": "{}",
                "briefing_style": None,
                "experiment_id": EXPERIMENT_ID if in_experiment else None,
                "experiment_arm": ("A", "B")[s] if in_experiment else None,
                "tags": list(STANDALONE_TAGS[s % len(STANDALONE_TAGS)]),
            }
        )
        canonical.append("{}")
    if spec.detector_plants:
        _plant_catalogue_labels(rows)
    table = pa.Table.from_pylist(rows, schema=CHALLENGES_SCHEMA)
    return _Challenges(
        table=table,
        ids=[r["challenge_id"] for r in rows],
        template_ids=[r["template_id"] for r in rows],
        canonical_variables=canonical,
    )


def _with_briefing_style_twins(
    rows: list[dict[str, Any]], canonical: list[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Offer every combination of the style template in 'markdown' and in a twin style."""
    plant = DETECTOR_PLANTS["briefing_style"]
    out_rows, out_canonical = [], []
    for row, key in zip(rows, canonical, strict=True):
        out_rows.append(row)
        out_canonical.append(key)
        if row["template_id"] == plant["template_id"]:
            row["briefing_style"] = "markdown"
            out_rows.append(
                {
                    **row,
                    "challenge_id": f"{row['challenge_id']}-{plant['style']}",
                    "briefing_style": plant["style"],
                    "tags": list(row["tags"]),
                }
            )
            out_canonical.append(key)
    return out_rows, out_canonical


def _plant_catalogue_labels(rows: list[dict[str, Any]]) -> None:
    """Experiments, API tags and string-handling tags the detector plants need."""
    by_id = {row["challenge_id"]: row for row in rows}
    for experiment_id, (arm_a, arm_b, *_rest) in DETECTOR_PLANTS["experiments"].items():
        for challenge_id, arm in ((arm_a, "A"), (arm_b, "B")):
            if challenge_id in by_id:
                by_id[challenge_id]["experiment_id"] = experiment_id
                by_id[challenge_id]["experiment_arm"] = arm
    api_tag = DETECTOR_PLANTS["api_memorization"]["tag"]
    for row in rows:
        if (
            row["template_id"] == DETECTOR_PLANTS["api_tagged_template"]
            and api_tag not in row["tags"]
        ):
            row["tags"] = [*row["tags"], api_tag]
    lacking = by_id.get(DETECTOR_PLANTS["string_challenge_lacking"]["challenge_id"])
    if lacking is not None and "string-handling" not in lacking["tags"]:
        lacking["tags"] = [*lacking["tags"], "string-handling"]


def _build_population(
    spec: PlatformSpec, rng: np.random.Generator
) -> tuple[pa.Table, pa.Table, np.ndarray, np.ndarray]:
    """Build models and agents; return them with each agent's family index and total offset."""
    n_families = len(spec.families)
    n_models = n_families * spec.models_per_family
    model_family_idx = np.repeat(np.arange(n_families), spec.models_per_family)
    model_ids = [f"{f}-m{k + 1}" for f in spec.families for k in range(spec.models_per_family)]
    span = int((CUTOFF_END - CUTOFF_START).astype(np.int64))
    cutoffs = CUTOFF_START + rng.integers(0, span, size=n_models).astype("timedelta64[D]")
    cutoff_mask = np.arange(n_models) == n_models - 1
    models = pa.table(
        {
            "model_id": pa.array(model_ids, pa.string()),
            "model_family": pa.array([spec.families[i] for i in model_family_idx], pa.string()),
            "training_cutoff": pa.array(cutoffs, pa.date32(), mask=cutoff_mask),
        },
        schema=MODELS_SCHEMA,
    )
    model_offset = rng.normal(0.0, MODEL_OFFSET_SD, size=n_models)

    n_agents = n_models * spec.agents_per_model
    agent_model_idx = np.repeat(np.arange(n_models), spec.agents_per_model)
    width = max(3, len(str(n_agents)))
    agents = pa.table(
        {
            "agent_id": pa.array(
                [f"agent-{i + 1:0{width}d}" for i in range(n_agents)], pa.string()
            ),
            "model_id": pa.array([model_ids[i] for i in agent_model_idx], pa.string()),
        },
        schema=AGENTS_SCHEMA,
    )
    agent_family_idx = model_family_idx[agent_model_idx]
    agent_offset = (
        _family_skill(spec)[agent_family_idx]
        + model_offset[agent_model_idx]
        + rng.normal(0.0, AGENT_OFFSET_SD, size=n_agents)
    )
    return models, agents, agent_family_idx, agent_offset


def _difficulty(challenges: _Challenges, rng: np.random.Generator) -> np.ndarray:
    """Draw each challenge's difficulty offset (template base + combination, or standalone)."""
    template_codes, template_idx = np.unique(challenges.template_ids, return_inverse=True)
    templated = np.array([not t.startswith("tpl-s") for t in challenges.template_ids], dtype=bool)
    template_base = rng.normal(0.0, TEMPLATE_DIFFICULTY_SD, size=len(template_codes))
    combination = rng.normal(0.0, COMBINATION_DIFFICULTY_SD, size=len(challenges.ids))
    standalone = rng.normal(0.0, STANDALONE_DIFFICULTY_SD, size=len(challenges.ids))
    return np.where(templated, template_base[template_idx] + combination, standalone)


def _planted_shifts(
    spec: PlatformSpec, challenges: _Challenges
) -> tuple[np.ndarray, np.ndarray, pa.Table, pa.Table]:
    """Resolve planted effects: per-challenge shift, challenge x family shift, truth tables."""
    challenge_pos = {c: i for i, c in enumerate(challenges.ids)}
    family_pos = {f: i for i, f in enumerate(spec.families)}
    bias = np.zeros((len(challenges.ids), len(spec.families)))
    bias_rows = []
    for challenge_id, family, shift in spec.planted_family_biases:
        if challenge_id not in challenge_pos or family not in family_pos:
            raise ValueError(
                f"planted family bias ({challenge_id!r}, {family!r}) does not exist in this spec; "
                "pass planted_family_biases=() or ids that exist"
            )
        bias[challenge_pos[challenge_id], family_pos[family]] += shift
        bias_rows.append(
            {"challenge_id": challenge_id, "model_family": family, "shift": float(shift)}
        )

    combo_pos = {
        (t, v): i
        for i, (t, v) in enumerate(
            zip(challenges.template_ids, challenges.canonical_variables, strict=True)
        )
    }
    hard = np.zeros(len(challenges.ids))
    hard_rows = []
    for template_id, variables, shift in spec.planted_hard_combinations:
        key = (template_id, canonical_variables(variables))
        if key not in combo_pos:
            raise ValueError(
                f"planted hard combination {key} does not exist in this spec; "
                "pass planted_hard_combinations=() or a combination that exists"
            )
        hard[combo_pos[key]] += shift
        hard_rows.append({"template_id": key[0], "variables": key[1], "shift": float(shift)})
    return (
        hard,
        bias,
        pa.Table.from_pylist(bias_rows, schema=PLANTED_FAMILY_BIASES_SCHEMA),
        pa.Table.from_pylist(hard_rows, schema=PLANTED_HARD_COMBINATIONS_SCHEMA),
    )


def _routing_weights(
    spec: PlatformSpec, challenges: _Challenges, difficulty: np.ndarray
) -> dict[int, np.ndarray]:
    """Challenge probabilities per routed family index, favouring a template's hardest combos."""
    weights: dict[int, np.ndarray] = {}
    template_ids = np.asarray(challenges.template_ids)
    for family, (template_id, multiplier) in sorted((spec.family_routing or {}).items()):
        if family not in spec.families:
            raise ValueError(f"family_routing names unknown family {family!r}")
        members = np.flatnonzero(template_ids == template_id)
        if template_id.startswith("tpl-s") or members.size == 0:
            raise ValueError(f"family_routing names unknown templated template {template_id!r}")
        if multiplier <= 0:
            raise ValueError("family_routing weight multipliers must be > 0")
        n_hard = max(1, math.ceil(members.size * ROUTED_SHARE_OF_COMBINATIONS))
        hardest = members[np.argsort(difficulty[members], kind="stable")[:n_hard]]
        w = np.ones(len(challenges.ids))
        w[hardest] = multiplier
        weights[spec.families.index(family)] = w / w.sum()
    return weights


def _attempt_ids(start: int, count: int, width: int) -> pa.Array:
    """Sequential ids 'att-000000001', ... built with Arrow compute kernels."""
    numbers = pa.array(np.arange(start, start + count, dtype=np.int64))
    padded = pc.utf8_lpad(pc.cast(numbers, pa.string()), width=width, padding="0")
    return pc.binary_join_element_wise("att-", padded, "")


def _simulate_attempts(
    spec: PlatformSpec,
    challenge_ids: list[str],
    agents: pa.Table,
    expected: np.ndarray,
    agent_family_idx: np.ndarray,
    routing: dict[int, np.ndarray],
    rng: np.random.Generator,
    approach_plan: dict[int, tuple[str, str, float, np.ndarray]] | None = None,
) -> tuple[pa.Table, pa.Array]:
    """Draw every attempt at once: challenge, agent, score, outcome and timestamp; and the
    approach label of each attempt (NULL unless `approach_plan` names its challenge)."""
    n = spec.n_attempts
    n_challenges, n_agents = expected.shape
    agent_idx = rng.integers(0, n_agents, size=n, dtype=np.int32)
    challenge_idx = rng.integers(0, n_challenges, size=n, dtype=np.int32)
    family_idx = agent_family_idx[agent_idx]
    for f, p in routing.items():
        routed = family_idx == f
        challenge_idx[routed] = rng.choice(n_challenges, size=int(routed.sum()), p=p)
    del family_idx

    score = rng.standard_normal(n)
    score *= spec.noise_sd
    score += expected.ravel()[challenge_idx.astype(np.int64) * n_agents + agent_idx]
    approach = np.full(n if approach_plan else 0, None, dtype=object)
    for planned, (approach_a, approach_b, shift_b, preferring) in (approach_plan or {}).items():
        on_challenge = challenge_idx == planned
        prefers_a = np.isin(agent_family_idx[agent_idx[on_challenge]], preferring)
        chose_a = rng.random(int(on_challenge.sum())) < np.where(prefers_a, 0.7, 0.3)
        approach[on_challenge] = np.where(chose_a, approach_a, approach_b)
        score[np.flatnonzero(on_challenge)[~chose_a]] += shift_b
    outcome = rng.random(n)
    unscored = outcome < spec.unscored_rate
    crashed = ~unscored & (outcome < spec.unscored_rate + spec.crash_rate)
    del outcome
    score[crashed] = rng.uniform(0.0, CRASH_SCORE_MAX, size=int(crashed.sum()))
    np.clip(score, 0.0, 100.0, out=score)
    if spec.integer_scores:
        np.rint(score, out=score)

    start = PERIOD_START.astype(np.int64)
    end = PERIOD_END.astype(np.int64)
    submitted = rng.integers(start, end, size=n).view("datetime64[us]")
    width = max(9, len(str(n + 100)))
    return pa.table(
        {
            "attempt_id": _attempt_ids(1, n, width),
            "challenge_id": pa.array(challenge_ids, pa.string()).take(pa.array(challenge_idx)),
            "agent_id": agents.column("agent_id").take(pa.array(agent_idx)),
            "score": pa.array(score, pa.float64(), mask=unscored),
            "submitted_at": pa.array(submitted, pa.timestamp("us")),
        },
        schema=ATTEMPTS_SCHEMA,
    ), (pa.array(approach, pa.string()) if approach_plan else pa.nulls(n, pa.string()))


def _dirty_rows(
    tables: dict[str, pa.Table], spec: PlatformSpec
) -> tuple[dict[str, pa.Table], pa.Table]:
    """Append a handful of bad rows of every kind and list them with the expected reason."""
    attempts = tables["attempts"]
    if attempts.num_rows == 0:
        raise ValueError("dirty=True needs n_attempts >= 1 (one attempt is duplicated)")
    n = spec.n_attempts
    width = max(9, len(str(n + 100)))
    new_id = [f"att-{n + k:0{width}d}" for k in range(1, 10)]
    challenge = tables["challenges"].column("challenge_id")[-1].as_py()
    agent = tables["agents"].column("agent_id")[0].as_py()
    model = tables["models"].column("model_id")[0].as_py()
    family = tables["models"].column("model_family")[0].as_py()
    when = datetime(2026, 1, 1, 1, 0)
    existing = attempts.slice(0, 1).to_pylist()[0]

    def attempt(
        attempt_id: str | None, score: float, c: str | None = challenge, a: str | None = agent
    ) -> dict:
        """One attempt row with valid defaults."""
        return {
            "attempt_id": attempt_id,
            "challenge_id": c,
            "agent_id": a,
            "score": score,
            "submitted_at": when,
        }

    bad_attempts: list[tuple[dict, str, str]] = [
        (
            attempt(None, 50.0),
            f"attempt_id IS NULL (agent {agent}, challenge {challenge})",
            "null_attempt_id",
        ),
        (existing, existing["attempt_id"], "duplicate_attempt_id"),
        (attempt(new_id[0], 40.0), new_id[0], "conflicting_attempt_id"),
        (attempt(new_id[0], 70.0), new_id[0], "conflicting_attempt_id"),
        (attempt(new_id[1], 150.0), new_id[1], "score_out_of_range"),
        (attempt(new_id[2], -3.0), new_id[2], "score_out_of_range"),
        (attempt(new_id[3], math.nan), new_id[3], "score_not_finite"),
        (attempt(new_id[4], math.inf), new_id[4], "score_not_finite"),
        (attempt(new_id[5], 55.0, c="ch-unknown"), new_id[5], "unknown_challenge_id"),
        (attempt(new_id[6], 55.0, a="agent-unknown"), new_id[6], "unknown_agent_id"),
        (attempt(new_id[7], 55.0, c=None), new_id[7], "null_challenge_id"),
        (attempt(new_id[8], 55.0, a=None), new_id[8], "null_agent_id"),
    ]

    def challenge_row(challenge_id: str | None, template_id: str, variables: str) -> dict:
        """One standalone-style challenge row."""
        return {
            "challenge_id": challenge_id,
            "template_id": template_id,
            "variables": variables,
            "briefing_style": None,
            "experiment_id": None,
            "experiment_arm": None,
            "tags": [],
        }

    bad_challenges: list[tuple[dict, str, str]] = [
        (
            challenge_row("ch-dirty-dup", "tpl-x01", "{}"),
            "ch-dirty-dup",
            "conflicting_challenge_id",
        ),
        (
            challenge_row("ch-dirty-dup", "tpl-x02", "{}"),
            "ch-dirty-dup",
            "conflicting_challenge_id",
        ),
        (
            challenge_row("ch-dirty-badjson", "tpl-x03", '{"framework": "Hono"'),
            "ch-dirty-badjson",
            "malformed_variables_json",
        ),
        (
            challenge_row("ch-dirty-array", "tpl-x04", "[1,2]"),
            "ch-dirty-array",
            "variables_not_json_object",
        ),
        (
            challenge_row(None, "tpl-x05", "{}"),
            "challenge_id IS NULL (template tpl-x05)",
            "null_challenge_id",
        ),
    ]
    bad_agents: list[tuple[dict, str, str]] = [
        (
            {"agent_id": "agent-dirty-orphan", "model_id": "model-unknown"},
            "agent-dirty-orphan",
            "unknown_model_id",
        ),
        (
            {"agent_id": None, "model_id": model},
            f"agent_id IS NULL (model {model})",
            "null_agent_id",
        ),
    ]
    cutoff = date(2025, 1, 1)
    bad_models: list[tuple[dict, str, str]] = [
        (
            {"model_id": "model-dirty-nofamily", "model_family": None, "training_cutoff": cutoff},
            "model-dirty-nofamily",
            "null_model_family",
        ),
        (
            {"model_id": None, "model_family": family, "training_cutoff": cutoff},
            f"model_id IS NULL (family {family})",
            "null_model_id",
        ),
    ]

    bad = {
        "attempts": bad_attempts,
        "challenges": bad_challenges,
        "agents": bad_agents,
        "models": bad_models,
    }
    dirty_tables = {
        name: pa.concat_tables(
            [
                tables[name],
                pa.Table.from_pylist([row for row, _, _ in bad[name]], schema=SCHEMAS[name]),
            ]
        ).combine_chunks()
        for name in tables
    }
    listing = pa.Table.from_pylist(
        [
            {"source_table": name, "row_key": key, "expected_reason": reason}
            for name, rows in bad.items()
            for _, key, reason in rows
        ],
        schema=DIRTY_ROWS_SCHEMA,
    )
    return dirty_tables, listing


def generate_platform(spec: PlatformSpec = PlatformSpec()) -> Platform:
    """Generate the raw tables and the planted truth for ``spec`` (deterministic in its seed)."""
    _validate(spec)
    structure_rng, attempts_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(spec.seed).spawn(2)
    )
    challenges = _build_challenges(spec)
    models, agents, agent_family_idx, agent_offset = _build_population(spec, structure_rng)
    difficulty = _difficulty(challenges, structure_rng)
    hard, bias, bias_truth, hard_truth = _planted_shifts(spec, challenges)
    expected = (
        BASE_SCORE
        + (difficulty + hard)[:, None]
        + agent_offset[None, :]
        + bias[:, agent_family_idx]
    )
    approach_plan: dict[int, tuple[str, str, float, np.ndarray]] = {}
    detector_truth: dict[str, Any] = {}
    if spec.detector_plants:
        expected, bias_truth, approach_plan, detector_truth = _plant_detector_signals(
            spec, challenges, models, agents, agent_family_idx, difficulty, expected, bias_truth
        )
    routing = _routing_weights(spec, challenges, difficulty + hard)
    attempts, approach = _simulate_attempts(
        spec,
        challenges.ids,
        agents,
        expected,
        agent_family_idx,
        routing,
        attempts_rng,
        approach_plan,
    )
    if spec.bias_fix:
        attempts, detector_truth["bias_fix"] = _plant_bias_fix(
            spec, challenges, attempts, agents, expected, agent_family_idx, bias
        )
    tables = {
        "attempts": attempts,
        "challenges": challenges.table,
        "agents": agents,
        "models": models,
    }
    if spec.verdict_drift:
        tables, bias_truth, detector_truth["verdict_drift"] = _plant_verdict_drift(
            spec,
            challenges,
            tables,
            expected,
            _shared_offset(spec, challenges, difficulty, hard),
            bias_truth,
        )
    dirty = pa.Table.from_pylist([], schema=DIRTY_ROWS_SCHEMA)
    if spec.dirty:
        tables, dirty = _dirty_rows(tables, spec)
    if spec.detector_plants:
        padding = pa.nulls(tables["attempts"].num_rows - len(approach), pa.string())
        tables["attempts"] = tables["attempts"].append_column(
            "approach", pa.concat_arrays([approach, padding])
        )
        tables.update(
            _test_tables(
                challenges, attempts, agents, agent_family_idx, list(spec.families), attempts_rng
            )
        )
        code = _code_tables(spec, challenges)
        tables.update({name: code[name] for name in ("challenge_files", "reference_corpus")})
        detector_truth["planted_contamination"] = [
            {**row, "published_at": str(row["published_at"])}
            for row in code["planted_contamination"].to_pylist()
        ]
        detector_truth["planted_instance_overlap"] = code["planted_instance_overlap"].to_pylist()
        tables, detector_truth["briefing_rubric_audit"] = add_audit_tables(
            tables, attempts, agents, agent_family_idx, list(spec.families), spec.seed
        )
        tables, detector_truth["test_code_lint"] = add_test_code(tables)
    elif spec.test_cases_per_challenge > 0:
        tables.update(
            _test_tables(
                challenges,
                attempts,
                agents,
                agent_family_idx,
                list(spec.families),
                np.random.default_rng([spec.seed, 1009]),
                per_challenge=spec.test_cases_per_challenge,
            )
        )
    return Platform(
        spec=spec,
        tables=tables,
        planted_family_biases=bias_truth,
        planted_hard_combinations=hard_truth,
        dirty_rows=dirty,
        detector_truth=detector_truth,
    )


def _code_tables(spec: PlatformSpec, challenges: _Challenges) -> dict[str, pa.Table]:
    """Challenge code and a reference corpus with planted copies and one shared instance."""
    from challenge_fairness.detectors.contamination_fixtures import make_code_tables

    plant = DETECTOR_PLANTS["contamination"]
    return make_code_tables(
        challenges.ids,
        seed=spec.seed,
        planted=plant["copies"],
        shared_instances=plant["shared_instances"],
        templates=dict(zip(challenges.ids, challenges.template_ids, strict=True)),
    )


def _plant_detector_signals(
    spec: PlatformSpec,
    challenges: _Challenges,
    models: pa.Table,
    agents: pa.Table,
    agent_family_idx: np.ndarray,
    difficulty: np.ndarray,
    expected: np.ndarray,
    bias_truth: pa.Table,
) -> tuple[np.ndarray, pa.Table, dict[int, tuple[str, str, float, np.ndarray]], dict[str, Any]]:
    """Add the DETECTOR_PLANTS effects to the expected scores; return them with the truth."""
    position = {c: i for i, c in enumerate(challenges.ids)}
    family_position = {f: i for i, f in enumerate(spec.families)}
    expected = expected.copy()
    truth_rows = bias_truth.to_pylist()
    # A wider spread of agent ability within each family (family means unchanged), so
    # that IRT discrimination is measurable without widening the family skill gap.
    spread_rng = np.random.default_rng([spec.seed, 2])
    spread = spread_rng.normal(0.0, DETECTOR_PLANTS["extra_agent_ability_sd"], expected.shape[1])
    for family in np.unique(agent_family_idx):
        members = agent_family_idx == family
        spread[members] -= spread[members].mean()
    expected += spread[None, :]

    # Briefing style twins share their original's difficulty; one family loses in one style.
    style = DETECTOR_PLANTS["briefing_style"]
    style_family = agent_family_idx == family_position[style["family"]]
    for challenge_id, i in position.items():
        if challenge_id.endswith(f"-{style['style']}"):
            twin = position[challenge_id.removesuffix(f"-{style['style']}")]
            expected[i] += difficulty[twin] - difficulty[i]
            expected[i, style_family] += style["shift"]
            truth_rows.append(
                {
                    "challenge_id": challenge_id,
                    "model_family": style["family"],
                    "shift": style["shift"],
                }
            )

    # A/B experiments: arm B's difficulty relative to arm A; a family bias in arm A.
    for arm_a, arm_b, family, shift, b_relative in DETECTOR_PLANTS["experiments"].values():
        if arm_a not in position or arm_b not in position:
            continue
        a, b = position[arm_a], position[arm_b]
        expected[b] += (difficulty[a] + b_relative) - difficulty[b]
        if family is not None:
            expected[a, agent_family_idx == family_position[family]] += shift
            truth_rows.append({"challenge_id": arm_a, "model_family": family, "shift": shift})

    # Newer training cutoffs score higher everywhere, and more on the memorised API.
    model_index = {m: i for i, m in enumerate(models.column("model_id").to_pylist())}
    cutoff = np.array(
        [
            np.nan if d is None else d.toordinal() / 365.25
            for d in models.column("training_cutoff").to_pylist()
        ]
    )
    centred = np.nan_to_num(cutoff - np.nanmean(cutoff), nan=0.0)
    agent_cutoff = centred[[model_index[m] for m in agents.column("model_id").to_pylist()]]
    expected += DETECTOR_PLANTS["cutoff_points_per_year"] * agent_cutoff[None, :]
    api = DETECTOR_PLANTS["api_memorization"]
    tagged = np.array(
        [api["tag"] in tags for tags in challenges.table.column("tags").to_pylist()], dtype=bool
    )
    expected[tagged] += api["extra_points_per_year"] * agent_cutoff[None, :]

    plan = {
        position[challenge_id]: (
            approach_a,
            approach_b,
            shift_b,
            np.array([family_position[f] for f in preferring if f in family_position]),
        )
        for challenge_id, (approach_a, approach_b, shift_b, preferring) in DETECTOR_PLANTS[
            "approaches"
        ].items()
        if challenge_id in position
    }
    truth = {
        "briefing_style": style,
        "experiments": {k: list(v) for k, v in DETECTOR_PLANTS["experiments"].items()},
        "api_memorization": {**api, "tagged_challenges": int(tagged.sum())},
        "cutoff_points_per_year": DETECTOR_PLANTS["cutoff_points_per_year"],
        "approaches": {k: list(v) for k, v in DETECTOR_PLANTS["approaches"].items()},
        "test_case_dif": DETECTOR_PLANTS["test_case_dif"],
        "string_challenge_lacking": {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in DETECTOR_PLANTS["string_challenge_lacking"].items()
        },
    }
    return (
        expected,
        pa.Table.from_pylist(truth_rows, schema=PLANTED_FAMILY_BIASES_SCHEMA),
        plan,
        truth,
    )


def _test_tables(
    challenges: _Challenges,
    attempts: pa.Table,
    agents: pa.Table,
    agent_family_idx: np.ndarray,
    families: list[str],
    rng: np.random.Generator,
    per_challenge: int = DETECTOR_PLANTS["test_cases_per_challenge"],
) -> dict[str, pa.Table]:
    """test_cases (per challenge) and test_results (per scored attempt and test case)."""
    lacking = DETECTOR_PLANTS["string_challenge_lacking"]
    samples = list(UNICODE_SAMPLES.items())
    case_ids, case_challenges, inputs = [], [], []
    for challenge_id, tags in zip(
        challenges.ids, challenges.table.column("tags").to_pylist(), strict=True
    ):
        for k in range(per_challenge):
            text = f"case {k + 1} of {challenge_id}: plain ASCII input"
            if "string-handling" in tags and k < len(samples):
                category, sample = samples[k]
                if not (challenge_id == lacking["challenge_id"] and category in lacking["lacks"]):
                    text = f"normalise: {sample}"
            case_ids.append(f"{challenge_id}-tc{k + 1}")
            case_challenges.append(challenge_id)
            inputs.append(text)
    test_cases = pa.table(
        {
            "test_case_id": pa.array(case_ids, pa.string()),
            "challenge_id": pa.array(case_challenges, pa.string()),
            "input_text": pa.array(inputs, pa.string()),
        }
    )
    case_difficulty = rng.uniform(35.0, 75.0, size=len(case_ids))

    scored = attempts.filter(pc.is_valid(attempts.column("score")))
    challenge_idx = pc.index_in(
        scored.column("challenge_id"), value_set=pa.array(challenges.ids, pa.string())
    ).to_numpy()
    agent_idx = pc.index_in(
        scored.column("agent_id"), value_set=agents.column("agent_id").combine_chunks()
    ).to_numpy()
    family_idx = agent_family_idx[agent_idx]
    score = scored.column("score").to_numpy()
    offsets = np.arange(per_challenge)
    case_idx = (challenge_idx[:, None] * per_challenge + offsets[None, :]).ravel()
    logit = (np.repeat(score, per_challenge) - case_difficulty[case_idx]) / DETECTOR_PLANTS[
        "test_case_slope"
    ]
    dif = DETECTOR_PLANTS["test_case_dif"]
    if dif["test_case_id"] in case_ids and dif["family"] in families:
        affected = (case_idx == case_ids.index(dif["test_case_id"])) & (
            np.repeat(family_idx, per_challenge) == families.index(dif["family"])
        )
        logit[affected] += dif["log_odds"]
    passed = rng.random(logit.size) < 1.0 / (1.0 + np.exp(-logit))
    test_results = pa.table(
        {
            "attempt_id": scored.column("attempt_id").take(
                pa.array(np.repeat(np.arange(scored.num_rows), per_challenge))
            ),
            "test_case_id": pa.array(case_ids, pa.string()).take(pa.array(case_idx)),
            "passed": pa.array(passed, pa.bool_()),
        }
    )
    return {"test_cases": test_cases, "test_results": test_results}


# --- Bias fix (F4 verdict history): a planted family bias removed part-way ---------------
# From `fixed_at` on, the family's attempts on `challenge_id` are drawn without the planted
# family bias (the challenge was repaired): its verdict is flagged in the windows before and
# passes after, so the window of `fixed_at` is a fix. The challenge must carry a planted
# family bias for `family`; only those attempts' scores are redrawn.
BIAS_FIX_PLANT: dict[str, Any] = {
    "challenge_id": "ch-s04",
    "family": "llama",
    "fixed_at": "2026-05-01",
}


def _plant_bias_fix(
    spec: PlatformSpec,
    challenges: _Challenges,
    attempts: pa.Table,
    agents: pa.Table,
    expected: np.ndarray,
    agent_family_idx: np.ndarray,
    bias: np.ndarray,
) -> tuple[pa.Table, dict[str, Any]]:
    """Redraw the family's scores on the challenge from `fixed_at` without its bias."""
    plant = BIAS_FIX_PLANT
    challenge_id, family = plant["challenge_id"], plant["family"]
    if challenge_id not in challenges.ids or family not in spec.families:
        raise ValueError(f"bias_fix needs challenge {challenge_id!r} and family {family!r}")
    target, f = challenges.ids.index(challenge_id), spec.families.index(family)
    shift = float(bias[target, f])
    if shift == 0:
        raise ValueError(f"bias_fix needs a planted bias of {family!r} on {challenge_id!r}")
    rng = np.random.default_rng([spec.seed, 5])
    agent_idx = pc.index_in(attempts.column("agent_id"), value_set=agents.column("agent_id"))
    agent_idx = np.asarray(agent_idx.to_numpy(zero_copy_only=False), dtype=np.int64)
    score = np.asarray(attempts.column("score").to_numpy(zero_copy_only=False), dtype=np.float64)
    fixed_at = np.datetime64(f"{plant['fixed_at']}T00:00:00", "us")
    redrawn = np.flatnonzero(
        pc.equal(attempts.column("challenge_id"), challenge_id).to_numpy(zero_copy_only=False)
        & (agent_family_idx[agent_idx] == f)
        & (attempts.column("submitted_at").to_numpy() >= fixed_at)
        & ~np.isnan(score)
    )
    new = expected[target, agent_idx[redrawn]] - shift
    new += spec.noise_sd * rng.standard_normal(redrawn.size)
    crashed = rng.random(redrawn.size) < spec.crash_rate
    new[crashed] = rng.uniform(0.0, CRASH_SCORE_MAX, int(crashed.sum()))
    np.clip(new, 0.0, 100.0, out=new)
    if spec.integer_scores:
        np.rint(new, out=new)
    score[redrawn] = new
    position = attempts.schema.get_field_index("score")
    attempts = attempts.set_column(
        position, "score", pa.array(score, pa.float64(), mask=np.isnan(score))
    )
    return attempts, {
        **plant,
        "removed_shift": shift,
        "attempts_redrawn": int(redrawn.size),
        "fixed_window_start": plant["fixed_at"],  # with the default monthly window
    }


# --- Verdict drift (F4 verdict history): a model family that arrives late ----------------
# The family's agents submit only from `arrives_at`, at the platform's per-agent rate, and
# gain `shift` points on `challenge_id` (a standalone challenge with no other plant). The
# challenge is popular (`popular_attempts_per_month` extra attempts by whichever agents
# exist at the time), so it passes with confidence in the windows before the family
# arrives and is flagged from the window it arrives in: a drift in that window.
VERDICT_DRIFT_PLANT: dict[str, Any] = {
    "family": "deepseek",
    "arrives_at": "2026-04-01",
    "challenge_id": "ch-s12",
    "shift": 20.0,
    "popular_attempts_per_month": 1200,
}


def _shared_offset(
    spec: PlatformSpec, challenges: _Challenges, difficulty: np.ndarray, hard: np.ndarray
) -> np.ndarray:
    """Each challenge's offset shared by every family: difficulty + hard, moved as the
    detector plants move it (style twins take their original's difficulty, an
    experiment's arm B its arm A's plus the planted difference)."""
    shared = difficulty + hard
    if not spec.detector_plants:
        return shared
    position = {c: i for i, c in enumerate(challenges.ids)}
    style = DETECTOR_PLANTS["briefing_style"]["style"]
    for challenge_id, i in position.items():
        if challenge_id.endswith(f"-{style}"):
            shared[i] += (
                difficulty[position[challenge_id.removesuffix(f"-{style}")]] - difficulty[i]
            )
    for arm_a, arm_b, _family, _shift, b_relative in DETECTOR_PLANTS["experiments"].values():
        if arm_a in position and arm_b in position:
            a, b = position[arm_a], position[arm_b]
            shared[b] += difficulty[a] + b_relative - difficulty[b]
    return shared


def _plant_verdict_drift(
    spec: PlatformSpec,
    challenges: _Challenges,
    tables: dict[str, pa.Table],
    expected: np.ndarray,
    challenge_offset: np.ndarray,
    bias_truth: pa.Table,
) -> tuple[dict[str, pa.Table], pa.Table, dict[str, Any]]:
    """Append the late family (models, agents, attempts); return the tables and the truth."""
    plant = VERDICT_DRIFT_PLANT
    family, challenge_id = plant["family"], plant["challenge_id"]
    if challenge_id not in challenges.ids or family in spec.families:
        raise ValueError(
            f"verdict_drift needs challenge {challenge_id!r} (n_standalone_challenges >= 12) "
            f"and no existing family named {family!r}"
        )
    rng = np.random.default_rng([spec.seed, 4])
    agents, n_old = tables["agents"], tables["agents"].num_rows
    model_ids = [f"{family}-m{k + 1}" for k in range(spec.models_per_family)]
    models = pa.table(
        {
            "model_id": pa.array(model_ids, pa.string()),
            "model_family": pa.array([family] * len(model_ids), pa.string()),
            "training_cutoff": pa.nulls(len(model_ids), pa.date32()),
        },
        schema=MODELS_SCHEMA,
    )
    n_new = len(model_ids) * spec.agents_per_model
    agent_model = np.repeat(np.arange(len(model_ids)), spec.agents_per_model)
    width = max(3, len(str(n_old)))
    new_agents = pa.table(
        {
            "agent_id": pa.array(
                [f"agent-{n_old + i + 1:0{width}d}" for i in range(n_new)], pa.string()
            ),
            "model_id": pa.array([model_ids[i] for i in agent_model], pa.string()),
        },
        schema=AGENTS_SCHEMA,
    )
    offset = rng.normal(0.0, MODEL_OFFSET_SD, len(model_ids))[agent_model] + rng.normal(
        0.0, AGENT_OFFSET_SD, n_new
    )
    target = challenges.ids.index(challenge_id)
    new_expected = BASE_SCORE + challenge_offset[:, None] + offset[None, :]
    new_expected[target] += plant["shift"]

    start, end = PERIOD_START.astype(np.int64), PERIOD_END.astype(np.int64)
    arrival = np.datetime64(f"{plant['arrives_at']}T00:00:00", "us").astype(np.int64)
    # the family's ordinary attempts, from its arrival, at the platform's per-agent rate
    n_own = round(spec.n_attempts / n_old * n_new * (end - arrival) / (end - start))
    own_agent = n_old + rng.integers(0, n_new, n_own)
    # the late family labels no approach: it stays off the approach plants' challenges,
    # where a score depends on the label (it would look better than the labelled families)
    unlabelled = np.array(
        [
            i
            for i, c in enumerate(challenges.ids)
            if not (spec.detector_plants and c in DETECTOR_PLANTS["approaches"])
        ]
    )
    own_challenge = unlabelled[rng.integers(0, unlabelled.size, n_own)]
    own_when = rng.integers(arrival, end, n_own)
    # the popular challenge's extra attempts, by the agents that exist at the time
    months = int(
        (PERIOD_END.astype("datetime64[M]") - PERIOD_START.astype("datetime64[M]")).astype(int)
    )
    n_extra = plant["popular_attempts_per_month"] * months
    extra_when = rng.integers(start, end, n_extra)
    extra_agent = np.where(
        extra_when >= arrival,
        rng.integers(0, n_old + n_new, n_extra),
        rng.integers(0, n_old, n_extra),
    )
    agent_idx = np.concatenate([own_agent, extra_agent])
    challenge_idx = np.concatenate([own_challenge, np.full(n_extra, target)])
    old = agent_idx < n_old
    mean = np.where(
        old,
        expected[challenge_idx, np.minimum(agent_idx, n_old - 1)],
        new_expected[challenge_idx, np.maximum(agent_idx - n_old, 0)],
    )
    n = agent_idx.size
    score = mean + spec.noise_sd * rng.standard_normal(n)
    outcome = rng.random(n)
    unscored = outcome < spec.unscored_rate
    crashed = ~unscored & (outcome < spec.unscored_rate + spec.crash_rate)
    score[crashed] = rng.uniform(0.0, CRASH_SCORE_MAX, int(crashed.sum()))
    np.clip(score, 0.0, 100.0, out=score)
    if spec.integer_scores:
        np.rint(score, out=score)
    all_agents = pa.concat_tables([agents, new_agents])
    attempts = pa.table(
        {
            "attempt_id": pa.array([f"att-drift-{k + 1:07d}" for k in range(n)], pa.string()),
            "challenge_id": pa.array(challenges.ids, pa.string()).take(pa.array(challenge_idx)),
            "agent_id": all_agents.column("agent_id").take(pa.array(agent_idx)),
            "score": pa.array(score, pa.float64(), mask=unscored),
            "submitted_at": pa.array(
                np.concatenate([own_when, extra_when]).view("datetime64[us]"), pa.timestamp("us")
            ),
        },
        schema=ATTEMPTS_SCHEMA,
    )
    truth_rows = [
        *bias_truth.to_pylist(),
        {"challenge_id": challenge_id, "model_family": family, "shift": float(plant["shift"])},
    ]
    truth = {
        **plant,
        "models": model_ids,
        "attempts": n,
        "drift_window_start": plant["arrives_at"],  # with the default monthly window
    }
    return (
        {
            **tables,
            "attempts": pa.concat_tables([tables["attempts"], attempts]),
            "agents": all_agents,
            "models": pa.concat_tables([tables["models"], models]),
        },
        pa.Table.from_pylist(truth_rows, schema=PLANTED_FAMILY_BIASES_SCHEMA),
        truth,
    )


# --- F6 briefing and rubric audit plants ----------------------------------------------------
# Only with PlatformSpec.detector_plants. Every challenge gets a neutral briefing (ISO dates,
# a stated currency, metric units); two carry planted locale strings, one a regulated term
# without definition, one a regulated term with its definition. Standalone challenges get
# rubric items scored from the attempt score, P(earn) = sigmoid((score - difficulty) / 8);
# one style-worded item is earned more often by one family at equal score.

AUDIT_DUCKDB_TYPES: dict[str, dict[str, str]] = {
    "rubric_items": {
        "rubric_item_id": "VARCHAR",
        "challenge_id": "VARCHAR",
        "description": "VARCHAR",
        "max_points": "DOUBLE",
    },
    "rubric_scores": {"attempt_id": "VARCHAR", "rubric_item_id": "VARCHAR", "points": "DOUBLE"},
}
DUCKDB_TYPES.update(AUDIT_DUCKDB_TYPES)
OPTIONAL_COLUMN_TYPES.setdefault("challenges", {})["briefing_text"] = "VARCHAR"
OPTIONAL_COLUMN_TYPES.setdefault("test_cases", {}).update(test_code="VARCHAR", language="VARCHAR")

AUDIT_PLANTS: dict[str, Any] = {
    "neutral_briefing": (
        "Implement {challenge_id}. Dates are ISO 8601 (2025-03-04), amounts are in EUR, "
        "distances in km and weights in kg."
    ),
    # challenge -> (briefing, [(rule_id, matched text)] the audit must report)
    "locale_briefings": {
        "ch-s02": (
            "Send payment reminders: an invoice due 03/04/2025 gets a $20 late fee and the "
            "reminder lists the support line (555) 123-4567.",
            [
                ("ambiguous_numeric_date", "03/04/2025"),
                ("currency_symbol_amount", "$20"),
                ("us_phone_number", "(555) 123-4567"),
            ],
        ),
        "ch-s06": (
            "Route couriers: accept orders for ZIP 94103 and reject drop-offs more than "
            "5 miles from the depot.",
            [("zip_code", "ZIP 94103"), ("imperial_unit", "5 miles")],
        ),
    },
    # challenge -> (briefing, term_id, flagged)
    "domain_briefings": {
        "ch-s08": ("Store the clinic's patient notes and make it HIPAA compliant.", "hipaa", True),
        "ch-s10": (
            "Export a user's data as the GDPR (the EU General Data Protection Regulation) "
            "requires: every stored field, as JSON, within one request.",
            "gdpr",
            False,
        ),
    },
    "competitive_tag": "competitive",
    "competitive_challenges": ("ch-s02",),
    # (description, difficulty in score points, max points) of every rubric item
    "rubric_items": (
        ("Handles invalid input with a clear error", 45.0, 10.0),
        ("No side effects in core logic", 55.0, 10.0),
        ("Core behaviour is covered by tests", 65.0, 5.0),
    ),
    "rubric_challenge_prefix": "ch-s",
    "rubric_slope": 8.0,
    "style_item": {
        "challenge_id": "ch-s05",
        "description": "Uses functional programming patterns",
        "difficulty": 60.0,
        "max_points": 10.0,
        "family": "llama",
        "log_odds": 2.5,
    },
}


def audit_briefings(challenge_ids: list[str]) -> dict[str, str]:
    """Briefing text per challenge: neutral, or the planted locale/domain briefing."""
    planted = {
        challenge_id: text
        for challenge_id, (text, *_) in {
            **AUDIT_PLANTS["locale_briefings"],
            **AUDIT_PLANTS["domain_briefings"],
        }.items()
    }
    return {
        challenge_id: planted.get(
            challenge_id, AUDIT_PLANTS["neutral_briefing"].format(challenge_id=challenge_id)
        )
        for challenge_id in challenge_ids
    }


def audit_rubric_tables(
    attempts: pa.Table,
    agents: pa.Table,
    agent_family_idx: np.ndarray,
    families: list[str],
    rubric_challenges: list[str],
    seed: int,
) -> dict[str, pa.Table]:
    """rubric_items and rubric_scores (every scored attempt of `rubric_challenges`)."""
    rng = np.random.default_rng([seed, 6])
    style = AUDIT_PLANTS["style_item"]
    items: list[tuple[str, str, str, float, float]] = []
    for challenge_id in rubric_challenges:
        for k, (description, difficulty, max_points) in enumerate(AUDIT_PLANTS["rubric_items"]):
            items.append(
                (f"{challenge_id}-r{k + 1}", challenge_id, description, difficulty, max_points)
            )
        if challenge_id == style["challenge_id"]:
            items.append(
                (
                    f"{challenge_id}-r{len(AUDIT_PLANTS['rubric_items']) + 1}",
                    challenge_id,
                    style["description"],
                    style["difficulty"],
                    style["max_points"],
                )
            )
    rubric_items = pa.table(
        {
            "rubric_item_id": pa.array([i[0] for i in items], pa.string()),
            "challenge_id": pa.array([i[1] for i in items], pa.string()),
            "description": pa.array([i[2] for i in items], pa.string()),
            "max_points": pa.array([i[4] for i in items], pa.float64()),
        }
    )
    scored = attempts.filter(pc.is_valid(attempts.column("score")))
    challenge_of = np.asarray(scored.column("challenge_id").to_pylist(), dtype=object)
    agent_idx = pc.index_in(
        scored.column("agent_id"), value_set=agents.column("agent_id").combine_chunks()
    ).to_numpy()
    family = np.asarray(families, dtype=object)[agent_family_idx[agent_idx]]
    score = scored.column("score").to_numpy()
    attempt_ids = np.asarray(scored.column("attempt_id").to_pylist(), dtype=object)
    columns: dict[str, list[Any]] = {"attempt_id": [], "rubric_item_id": [], "points": []}
    for item_id, challenge_id, description, difficulty, max_points in items:
        rows = np.flatnonzero(challenge_of == challenge_id)
        logit = (score[rows] - difficulty) / AUDIT_PLANTS["rubric_slope"]
        if description == style["description"]:
            logit = logit + np.where(family[rows] == style["family"], style["log_odds"], 0.0)
        earned = rng.random(rows.size) < 1.0 / (1.0 + np.exp(-logit))
        partial = np.floor(rng.random(rows.size) * max_points)  # 0 .. max_points - 1
        columns["attempt_id"] += attempt_ids[rows].tolist()
        columns["rubric_item_id"] += [item_id] * rows.size
        columns["points"] += np.where(earned, max_points, partial).tolist()
    rubric_scores = pa.table(
        {
            "attempt_id": pa.array(columns["attempt_id"], pa.string()),
            "rubric_item_id": pa.array(columns["rubric_item_id"], pa.string()),
            "points": pa.array(columns["points"], pa.float64()),
        }
    )
    return {"rubric_items": rubric_items, "rubric_scores": rubric_scores}


def add_audit_tables(
    tables: dict[str, pa.Table],
    attempts: pa.Table,
    agents: pa.Table,
    agent_family_idx: np.ndarray,
    families: list[str],
    seed: int,
) -> tuple[dict[str, pa.Table], dict[str, Any]]:
    """Add briefing_text (and the competitive tag) to challenges, the rubric tables; the truth."""
    tables = dict(tables)
    challenges = tables["challenges"]
    ids = [str(c) for c in challenges.column("challenge_id").to_pylist()]
    briefings = audit_briefings(sorted(set(ids)))
    competitive = set(AUDIT_PLANTS["competitive_challenges"])
    tags = [
        list(t or []) + ([AUDIT_PLANTS["competitive_tag"]] if c in competitive else [])
        for c, t in zip(ids, challenges.column("tags").to_pylist(), strict=True)
    ]
    challenges = challenges.set_column(
        challenges.schema.get_field_index("tags"), "tags", pa.array(tags, pa.list_(pa.string()))
    )
    tables["challenges"] = challenges.append_column(
        "briefing_text", pa.array([briefings[c] for c in ids], pa.string())
    )
    prefix = AUDIT_PLANTS["rubric_challenge_prefix"]
    rubric_challenges = sorted({c for c in ids if c.startswith(prefix)})
    tables.update(
        audit_rubric_tables(attempts, agents, agent_family_idx, families, rubric_challenges, seed)
    )
    style = AUDIT_PLANTS["style_item"]
    style_item_id = f"{style['challenge_id']}-r{len(AUDIT_PLANTS['rubric_items']) + 1}"
    fair_index = [d for d, _, _ in AUDIT_PLANTS["rubric_items"]].index(
        "No side effects in core logic"
    )
    truth = {
        "locale_findings": sorted(
            [challenge_id, rule_id, text]
            for challenge_id, (_, found) in AUDIT_PLANTS["locale_briefings"].items()
            for rule_id, text in found
            if challenge_id in briefings
        ),
        "domain_assumptions_flagged": sorted(
            [challenge_id, term_id]
            for challenge_id, (_, term_id, flagged) in AUDIT_PLANTS["domain_briefings"].items()
            if flagged and challenge_id in briefings
        ),
        "domain_assumptions_defined": sorted(
            [challenge_id, term_id]
            for challenge_id, (_, term_id, flagged) in AUDIT_PLANTS["domain_briefings"].items()
            if not flagged and challenge_id in briefings
        ),
        "competitive_challenges": sorted(competitive & set(ids)),
        "flagged_rubric_items": [style_item_id] if style["challenge_id"] in ids else [],
        "style_item": {**style, "rubric_item_id": style_item_id},
        "fair_paradigm_independent_item": f"{style['challenge_id']}-r{fair_index + 1}",
    }
    return tables, truth


def _quote(identifier: str) -> str:
    """Quote a SQL identifier for DuckDB."""
    return '"' + identifier.replace('"', '""') + '"'


def foreign_raw_tables(target: str, schema: str = "raw", parquet: bool = False) -> list[str]:
    """The platform tables already at `target` (a DuckDB file's `schema`, or a parquet folder)
    that this generator did not write (no DEMO_MARKER): what writing there would replace."""
    names = sorted(set(SCHEMAS) | set(DUCKDB_TYPES))
    if parquet:
        folder = Path(target)
        if folder.exists() and not folder.is_dir():
            raise Refused(f"--parquet-dir {target} is a file, not a folder")
        foreign = []
        for name in names:
            path = folder / f"{name}.parquet"
            if path.exists():
                try:
                    metadata = pq.read_schema(path).metadata or {}
                except (OSError, pa.ArrowException):
                    metadata = {}
                if DEMO_PARQUET_KEY not in metadata:
                    foreign.append(f"{name}.parquet")
        return foreign
    path = Path(target)
    if not path.exists():
        return []
    if path.is_dir():
        raise Refused(f"--duckdb {target} is a folder, not a database file")
    if not is_duckdb_file(path):
        raise Refused(
            f"--duckdb {target} exists and is not a DuckDB database: refusing to replace it"
        )
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            "select table_name, coalesce(comment, '') from duckdb_tables()"
            " where schema_name = ? and database_name = current_database()",
            [schema],
        ).fetchall()
    return sorted(
        f"{schema}.{name}" for name, comment in rows if name in names and DEMO_MARKER not in comment
    )


def check_database_name(path: Path, schema: str = "raw") -> None:
    """Refused when DuckDB's name for the database at `path` (the file's stem) would break
    the build on it: the schema the raw tables go in (a view cannot bind raw.raw.<table>,
    an ambiguous reference), or a name DuckDB reserves and renames (main becomes main_db,
    where dbt looks for main). The build's own check (macro _database_name_problem) also
    refuses the names of its other schemas."""
    name = path.stem.lower()
    if name in ("main", "temp", "system"):
        reason = f"'{name}' is a name DuckDB reserves (it would call the database {name}_db)"
    elif name == schema.lower():
        reason = (
            f"the raw tables go in its schema '{schema}' of the same name, and DuckDB cannot bind"
            f" a view over {name}.{schema}.<table> (an ambiguous reference)"
        )
    else:
        return
    raise Refused(
        f"--duckdb {path}: DuckDB names the database after the file, and {reason}, so dbt"
        " could not build on it: name the file otherwise, e.g. challenge_fairness.duckdb"
    )


def write_duckdb(platform: Platform, database_path: str, schema: str = "raw") -> None:
    """Write every table to ``schema.<table>`` in a DuckDB file, keeping the contract types
    (each table's comment marks it as generated: DEMO_MARKER)."""
    with duckdb.connect(str(database_path)) as con:
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {_quote(schema)}")
        for name, table in platform.tables.items():
            con.register("_demo_source", table)
            columns = ", ".join(
                f"CAST({_quote(col)} AS {sql_type}) AS {_quote(col)}"
                for col, sql_type in {
                    **DUCKDB_TYPES[name],
                    **OPTIONAL_COLUMN_TYPES.get(name, {}),
                }.items()
                if col in table.column_names
            )
            con.execute(
                f"CREATE OR REPLACE TABLE {_quote(schema)}.{_quote(name)} AS "
                f"SELECT {columns} FROM _demo_source"
            )
            con.execute(f"COMMENT ON TABLE {_quote(schema)}.{_quote(name)} IS '{DEMO_MARKER}'")
            con.unregister("_demo_source")


def write_parquet(platform: Platform, directory: str) -> None:
    """Write every table to ``<directory>/<table>.parquet``, creating the directory."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for name, table in platform.tables.items():
        metadata = {**(table.schema.metadata or {}), DEMO_PARQUET_KEY: DEMO_MARKER.encode()}
        pq.write_table(table.replace_schema_metadata(metadata), out / f"{name}.parquet")


def truth_as_dict(platform: Platform) -> dict[str, Any]:
    """Return the spec and the planted ground truth as JSON-serialisable data."""
    spec = dataclasses.asdict(platform.spec)
    spec["family_skill"] = [float(x) for x in _family_skill(platform.spec)]
    return {
        "spec": spec,
        "planted_family_biases": platform.planted_family_biases.to_pylist(),
        "planted_hard_combinations": platform.planted_hard_combinations.to_pylist(),
        "dirty_rows": platform.dirty_rows.to_pylist(),
        "detector_plants": platform.detector_truth,
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: generate a platform and write it to DuckDB or Parquet."""
    parser = argparse.ArgumentParser(
        prog="python -m challenge_fairness.demo",
        description="Generate a simulated evaluation platform's raw tables.",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--duckdb", metavar="PATH", help="DuckDB database file to write")
    target.add_argument("--parquet-dir", metavar="DIR", help="directory for <table>.parquet files")
    parser.add_argument("--schema", default="raw", help="DuckDB schema (default: raw)")
    parser.add_argument(
        "--attempts", type=int, default=PlatformSpec.n_attempts, help="number of attempts"
    )
    parser.add_argument("--seed", type=int, default=PlatformSpec.seed, help="random seed")
    parser.add_argument("--dirty", action="store_true", help="append bad rows of every kind")
    parser.add_argument(
        "--detector-plants",
        action="store_true",
        help="plant the other detectors' signals (and the verdict drift and fix) and write "
        "their optional tables too",
    )
    parser.add_argument(
        "--quickstart",
        action="store_true",
        help="the `make demo` platform (QUICKSTART_DEMO); --attempts, --dirty and "
        "--detector-plants are then ignored",
    )
    parser.add_argument("--truth-json", metavar="PATH", help="also write the planted truth as JSON")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace raw tables this generator did not write (refused without it)",
    )
    args = parser.parse_args(argv)
    return run_cli("challenge_fairness.demo", "write the platform", lambda: _generate(args))


def _generate(args: argparse.Namespace) -> int:
    if args.attempts < 1 and not args.quickstart:
        raise Refused(f"--attempts must be a positive number of attempts, got {args.attempts}")
    target = args.parquet_dir or args.duckdb
    if args.duckdb:
        check_database_name(Path(args.duckdb), args.schema)
    foreign = foreign_raw_tables(target, args.schema, parquet=bool(args.parquet_dir))
    if foreign and not args.force:
        raise Refused(
            f"{target} already holds raw tables this generator did not write"
            f" ({', '.join(foreign)}): refusing to replace them (give another path, or --force"
            " to replace them)"
        )

    spec = (
        dataclasses.replace(QUICKSTART_DEMO, seed=args.seed)
        if args.quickstart
        else PlatformSpec(
            seed=args.seed,
            n_attempts=args.attempts,
            dirty=args.dirty,
            detector_plants=args.detector_plants,
            verdict_drift=args.detector_plants,
            bias_fix=args.detector_plants,
        )
    )
    platform = generate_platform(spec)
    if args.duckdb:
        write_duckdb(platform, args.duckdb, args.schema)
        where = f"{args.duckdb} (schema {args.schema})"
    else:
        write_parquet(platform, args.parquet_dir)
        where = args.parquet_dir
    if args.truth_json:
        Path(args.truth_json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.truth_json).write_text(json.dumps(truth_as_dict(platform), indent=2) + "\n")
    counts = ", ".join(f"{t.num_rows:,} {name}" for name, t in platform.tables.items())
    n_dirty = platform.dirty_rows.num_rows
    print(f"wrote {counts} to {where} (seed {args.seed}, {n_dirty} dirty rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
