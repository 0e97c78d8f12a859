"""2PL IRT calibration: gradient and information vs numerical derivatives, parameter
recovery from simulated 2PL data, degenerate inputs, and fct_challenge_irt end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from challenge_fairness.detectors import irt
from conftest import read_table
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import optimize, special
from scipy import stats as scipy_stats

# the item estimates and their standard errors, by IrtFit attribute
ESTIMATES_WITH_ERRORS = (
    ("discrimination", "discrimination_se"),
    ("difficulty", "difficulty_se"),
)


def simulate_2pl(
    rng: np.random.Generator,
    agents: int,
    items: int,
    trials: int,
    a: np.ndarray | None = None,
    b: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Binomial counts of a 2PL with theta ~ N(0, 1), every agent on every item."""
    theta = rng.normal(size=agents)
    a = rng.uniform(0.5, 2.0, size=items) if a is None else a
    b = rng.normal(size=items) if b is None else b
    n = np.full((agents, items), trials)
    k = rng.binomial(n, special.expit(a * (theta[:, None] - b)))
    agent, item = np.meshgrid(np.arange(agents), np.arange(items), indexing="ij")
    return {
        "theta": theta,
        "a": a,
        "b": b,
        "n": n,
        "k": k,
        "agent": agent.ravel(),
        "item": item.ravel(),
    }


def fit(data: dict[str, np.ndarray]) -> irt.IrtFit:
    agents, items = data["n"].shape
    return irt.fit_2pl(
        data["agent"], data["item"], data["n"].ravel(), data["k"].ravel(), agents, items
    )


def numeric_hessian(function, x: np.ndarray, step: float = 1e-5) -> np.ndarray:
    """Central differences of an analytic gradient, symmetrised."""
    columns = [
        (function(x + step * e)[1] - function(x - step * e)[1]) / (2 * step) for e in np.eye(x.size)
    ]
    hessian = np.array(columns)
    return (hessian + hessian.T) / 2


@given(
    seed=st.integers(0, 2**32 - 1),
    agents=st.integers(3, 12),
    items=st.integers(1, 5),
    trials=st.integers(1, 12),
    spacing=st.sampled_from([0.1, 0.25, 0.5]),
)
@settings(max_examples=40, deadline=None)
def test_gradient_and_information_match_numerical_derivatives(
    seed: int, agents: int, items: int, trials: int, spacing: float
) -> None:
    rng = np.random.default_rng(seed)
    n = rng.integers(0, trials + 1, size=(agents, items)).astype(float)
    k = rng.binomial(n.astype(int), rng.uniform(0.1, 0.9, size=(agents, items))).astype(float)
    theta, log_weights = irt.quadrature_grid(spacing)
    x = np.concatenate([rng.uniform(-2, 2, items), rng.uniform(-2, 2, items)])

    def function(p: np.ndarray) -> tuple[float, np.ndarray]:
        return irt.negative_log_likelihood(p, n, k, theta, log_weights)

    numeric_gradient = optimize.approx_fprime(x, lambda p: function(p)[0], 1e-6)
    scale = max(1.0, float(np.max(np.abs(numeric_gradient))))
    np.testing.assert_allclose(function(x)[1], numeric_gradient, atol=1e-4 * scale)
    information = irt.observed_information(x, n, k, theta, log_weights)
    expected = numeric_hessian(function, x)
    hessian_scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(information, expected, atol=1e-5 * hessian_scale)


def test_recovers_known_parameters_from_simulated_2pl_data() -> None:
    """300 agents x 25 items x 4 trials: estimates track the truth (r > 0.9) and the
    standard errors are calibrated (mean squared z of item contrasts near 1)."""
    rng = np.random.default_rng(2024)
    data = simulate_2pl(rng, agents=300, items=25, trials=4)
    result = fit(data)
    assert result.converged
    assert set(result.item_status) == {"ok"}
    assert np.corrcoef(data["a"], result.discrimination)[0, 1] > 0.9
    assert np.corrcoef(data["b"], result.difficulty)[0, 1] > 0.95
    assert np.corrcoef(data["theta"], result.ability)[0, 1] > 0.95
    # Scale: the truth is on the scale of the realised abilities, the fit on N(0, 1).
    scale = data["theta"].std()
    assert np.median(result.discrimination / (data["a"] * scale)) == pytest.approx(1, abs=0.15)
    z = []
    for i in range(24):
        weights = np.zeros(25)
        weights[[i, i + 1]] = [-1.0, 1.0]
        contrast = irt.discrimination_contrast(result, weights)
        truth = (data["a"][i + 1] - data["a"][i]) * scale
        z.append((contrast.estimate - truth) / contrast.standard_error)
    assert 0.4 < float(np.mean(np.square(z))) < 2.0


def test_many_attempts_per_agent_refine_the_grid_and_still_recover() -> None:
    """30 agents with 150 attempts per challenge: posteriors far narrower than the start grid,
    so every agent gets its own grid; its quadrature equals a very fine shared grid."""
    rng = np.random.default_rng(7)
    data = simulate_2pl(rng, agents=30, items=12, trials=150)
    result = fit(data)
    assert result.converged
    assert result.quadrature is not None
    theta, log_weights = result.quadrature
    assert theta.shape == (30, irt.LOCAL_POINTS)
    spacing = theta[:, 1] - theta[:, 0]
    # 16/18 Laplace SDs apart (the posterior SD, up to mode vs mean) ...
    assert np.all(spacing <= 0.94 * result.ability_se)
    # ... centred on each posterior (up to mode vs mean), 8 SDs either side.
    centre_gap = np.abs(theta[:, irt.LOCAL_POINTS // 2] - result.ability)
    assert np.all(centre_gap < 3 * result.ability_se)
    # The same marginal likelihood and optimum as a shared grid 60x finer than the start grid.
    x = np.concatenate([result.discrimination, result.intercept])
    n, k = data["n"].astype(float), data["k"].astype(float)
    fine_theta, fine_weights = irt.quadrature_grid(irt.START_SPACING / 60)
    value, gradient = irt.negative_log_likelihood(x, n, k, fine_theta, fine_weights)
    assert -value == pytest.approx(result.log_likelihood, rel=1e-10)
    assert float(np.max(np.abs(gradient))) < 1e-3
    assert np.all(result.ability_se < 0.3)
    assert np.corrcoef(data["b"], result.difficulty)[0, 1] > 0.95
    assert scipy_stats.spearmanr(data["theta"], result.ability).statistic > 0.95


def test_newton_from_item_fits_and_from_lbfgs_reach_one_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Narrow posteriors: the Newton steps start from modes and per-item logistic fits; when
    they miss (forced here), L-BFGS-B on the shared grid starts them. One optimum either way."""
    rng = np.random.default_rng(5)
    data = simulate_2pl(rng, agents=40, items=15, trials=120)
    direct = fit(data)
    calls = []
    converged = irt._gradient_converged

    def miss_first(*args: object) -> bool:
        calls.append(args)
        return len(calls) > 1 and converged(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(irt, "_gradient_converged", miss_first)
    fallback = fit(data)
    assert len(calls) == 2  # the direct attempt, then the fallback's check
    assert direct.converged and fallback.converged
    assert fallback.log_likelihood == pytest.approx(direct.log_likelihood, rel=1e-12)
    # the same optimum to its tolerance: the steps stop within a fraction of a standard
    # error of it (chord steps end about 1e-5 SE away, Newton steps closer)
    for estimate, standard_error in ESTIMATES_WITH_ERRORS:
        gap = np.abs(getattr(fallback, estimate) - getattr(direct, estimate))
        np.testing.assert_array_less(gap, 1e-4 * getattr(direct, standard_error))
    np.testing.assert_allclose(fallback.difficulty_se, direct.difficulty_se, rtol=1e-5)


def test_chord_steps_reach_the_newton_optimum_with_fewer_informations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Newton step reuses the information of the step before while that cuts the
    decrement a hundredfold. Forcing a fresh one at every step (CHORD_CONTRACTION 0: no
    decrement is cut to 0) gives the same optimum to its tolerance and the same standard
    errors (both from an information formed at the optimum), with more informations."""
    rng = np.random.default_rng(11)
    data = simulate_2pl(rng, agents=60, items=20, trials=150)
    formed = []
    information = irt._information

    def counted(*args: object, **kwargs: object) -> irt._Information:
        formed.append(args)
        return information(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(irt, "_information", counted)
    chord = fit(data)
    chord_informations = len(formed)
    formed.clear()
    monkeypatch.setattr(irt, "CHORD_CONTRACTION", 0.0)
    newton = fit(data)
    assert chord.message == newton.message == "Newton steps on per-agent grids"
    assert chord_informations < len(formed)
    assert chord.log_likelihood == pytest.approx(newton.log_likelihood, rel=1e-12)
    for estimate, standard_error in ESTIMATES_WITH_ERRORS:
        gap = np.abs(getattr(chord, estimate) - getattr(newton, estimate))
        np.testing.assert_array_less(gap, 1e-4 * getattr(newton, standard_error))
        np.testing.assert_allclose(
            getattr(chord, standard_error), getattr(newton, standard_error), rtol=1e-5
        )


@pytest.mark.parametrize("reduced", [False, True])
def test_blocks_of_agents_in_parts_give_the_same_bits_on_any_number_of_cores(
    monkeypatch: pytest.MonkeyPatch, reduced: bool
) -> None:
    """The quadrature, the information, the posterior modes and the items' start fits deal
    their blocks (of agents, of items) into BLOCK_PARTS parts run on one thread per core:
    one core gives the same bits as two, and one part (no split) the same fit to
    rounding, with an agent's rows of V as they are or reduced."""
    rng = np.random.default_rng(13)
    data = simulate_2pl(rng, agents=50, items=12, trials=150)
    monkeypatch.setattr(irt, "BLOCK_BYTES", 8 * 21 * 24 * 6)  # blocks of six agents
    # modes in blocks of seven agents, item fits in blocks of one item
    monkeypatch.setattr(irt, "CELL_BLOCK_BYTES", 8 * 12 * 7)
    monkeypatch.setattr(irt, "COMPRESSION_MIN_PARAMETERS", 0 if reduced else 10**9)
    threads = []
    pool = irt.ThreadPoolExecutor

    def counted_pool(*args: object, **kwargs: object) -> object:
        threads.append(args)
        return pool(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(irt, "ThreadPoolExecutor", counted_pool)
    monkeypatch.setattr(irt, "_cores", lambda: 2)
    two_cores = fit(data)
    assert threads  # the parts ran on threads
    monkeypatch.setattr(irt, "_cores", lambda: 1)
    one_core = fit(data)
    monkeypatch.setattr(irt, "BLOCK_PARTS", 1)
    one_part = fit(data)
    assert two_cores.message == "Newton steps on per-agent grids"
    for name in ("discrimination", "discrimination_se", "difficulty", "ability", "ability_se"):
        np.testing.assert_array_equal(getattr(two_cores, name), getattr(one_core, name))
        np.testing.assert_allclose(getattr(two_cores, name), getattr(one_part, name), rtol=1e-8)
    assert two_cores.log_likelihood == one_core.log_likelihood


def test_a_newton_step_where_the_hessian_is_not_positive_definite_still_descends() -> None:
    """Far from the optimum the marginal likelihood is not concave: the step is damped
    (Levenberg-Marquardt) into a descent direction, not a tiny gradient step; where H is
    positive definite it is the Newton step."""
    rng = np.random.default_rng(3)
    basis = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    gradient = rng.normal(size=6)
    definite = basis @ np.diag([5.0, 4.0, 3.0, 2.0, 1.0, 0.5]) @ basis.T
    np.testing.assert_allclose(
        irt._damped_newton_step(definite, gradient), np.linalg.solve(definite, gradient)
    )
    indefinite = basis @ np.diag([5.0, 4.0, 3.0, 2.0, 1.0, -0.5]) @ basis.T
    step = irt._damped_newton_step(indefinite, gradient)
    assert float(gradient @ step) > 0  # a descent direction of the objective
    # ... the Newton step of H + mu diag|H| for one damping mu of the ladder
    scale = np.diag(np.abs(np.diag(indefinite)))
    assert any(
        np.allclose((indefinite + mu * scale) @ step, gradient) for mu in np.logspace(-6, 6, 13)
    )


def few_agents_information(
    seed: int, agents: int, items: int, spread: float | None
) -> tuple[irt._Information, np.ndarray]:
    """The information (in factors) and gradient of a few agents on many items, on the
    per-agent grids the Newton steps use: at the fitted optimum (`spread` None), or at
    parameters `spread` away from the truth (where the information is indefinite)."""
    rng = np.random.default_rng(seed)
    data = simulate_2pl(rng, agents=agents, items=items, trials=150)
    n, k = data["n"].astype(float), data["k"].astype(float)
    if spread is None:
        result = fit(data)
        assume(result.converged and set(result.item_status) == {"ok"})
        x = np.concatenate([result.discrimination, result.intercept])
    else:
        x = np.concatenate([data["a"], -data["a"] * data["b"]])
        x += rng.normal(0, spread, 2 * items)
    mode, scale = irt.posterior_modes(x[:items], x[items:], n, k, np.zeros(agents))
    theta, log_weights = irt.adaptive_grids(mode, scale)
    q = irt._posterior(x[:items], x[items:], n, k, theta, log_weights)
    return irt._information(q, n, k), irt._objective(q)[1]


@given(
    seed=st.integers(0, 2**32 - 1),
    agents=st.integers(4, 6),
    items=st.integers(64, 90),
    spread=st.sampled_from([None, 0.3, 1.0]),
    items_per_block=st.sampled_from([1, 7, 256]),
)
@settings(max_examples=30, deadline=None)
def test_woodbury_form_gives_the_dense_information_steps_and_covariance(
    seed: int, agents: int, items: int, spread: float | None, items_per_block: int
) -> None:
    """Few agents, many items: H = C - V'V has fewer rows in V than parameters, and the
    Newton step and the covariance come from the Woodbury form (its R x R matrix formed a
    block of items at a time). They equal the dense ones (H formed, Cholesky / inverse by
    numpy), indefinite H included."""
    information, gradient = few_agents_information(seed, agents, items, spread)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(irt, "WOODBURY_ITEMS_PER_BLOCK", items_per_block)
        assert information.low_rank
        hessian = information.dense()
        np.testing.assert_allclose(information.diagonal(), np.diag(hessian), rtol=1e-9, atol=1e-9)
        eigenvalues = np.linalg.eigvalsh(hessian)
        # Steps: the damping ladder picks the first H + mu diag|H| that is positive definite;
        # where one of them is within rounding of singular the two forms may pick neighbours.
        scale = np.maximum(np.abs(np.diag(hessian)), 1e-12)
        margins = [
            float(np.linalg.eigvalsh(hessian + mu * np.diag(scale))[0]) / float(scale.max())
            for mu in irt.DAMPING_LADDER
        ]
        ladder_is_clear = all(abs(margin) > 1e-9 for margin in margins)
        if ladder_is_clear:
            dense_step = irt._damped_newton_step(hessian, gradient)
            step = irt._newton_step(information, gradient)
            np.testing.assert_allclose(
                step, dense_step, rtol=1e-6, atol=1e-9 * np.abs(dense_step).max()
            )
        # Covariance: H^-1 where H is positive definite, LinAlgError where it is not.
        if eigenvalues[0] > 1e-9 * eigenvalues[-1]:
            inverse = np.linalg.inv(hessian)
            scale = 1e-9 * float(np.abs(inverse).max())
            np.testing.assert_allclose(information.inverse(), inverse, rtol=1e-6, atol=scale)
            parts, expected = information.covariance_parts(), irt._CovarianceParts.of(inverse)
            for name in ("discrimination", "intercept_variance", "cross"):
                np.testing.assert_allclose(
                    getattr(parts, name), getattr(expected, name), rtol=1e-6, atol=scale
                )
        elif eigenvalues[0] < -1e-9 * eigenvalues[-1]:
            with pytest.raises(np.linalg.LinAlgError):
                information.inverse()
            with pytest.raises(np.linalg.LinAlgError):
                information.covariance_parts()


def test_few_agents_on_many_challenges_fit_as_with_the_dense_information(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """6 agents on 90 challenges: the fit runs through the Woodbury form and reaches the fit
    of the dense information (same optimum, standard errors and covariance)."""
    rng = np.random.default_rng(17)
    data = simulate_2pl(rng, agents=6, items=90, trials=150)
    solves = []
    woodbury = irt._Information.woodbury

    def counted(self: irt._Information, damping: np.ndarray) -> irt._Woodbury:
        solves.append(self.centred.shape)
        return woodbury(self, damping)

    monkeypatch.setattr(irt._Information, "woodbury", counted)
    low_rank = fit(data)
    assert solves and all(rows < columns for rows, columns in solves)
    monkeypatch.setattr(irt._Information, "low_rank", property(lambda self: False))
    dense = fit(data)
    assert low_rank.converged and dense.converged
    assert list(low_rank.item_status) == list(dense.item_status)
    assert low_rank.log_likelihood == pytest.approx(dense.log_likelihood, rel=1e-12)
    np.testing.assert_allclose(low_rank.discrimination, dense.discrimination, atol=1e-7)
    np.testing.assert_allclose(low_rank.difficulty, dense.difficulty, atol=1e-7)
    ok = low_rank.item_status == "ok"
    np.testing.assert_allclose(low_rank.difficulty_se[ok], dense.difficulty_se[ok], rtol=1e-6)
    np.testing.assert_allclose(
        low_rank.discrimination_covariance[np.ix_(ok, ok)],
        dense.discrimination_covariance[np.ix_(ok, ok)],
        rtol=1e-6,
        atol=1e-12,
    )


def test_contrast_standard_error_equals_the_numerical_inverse_hessian() -> None:
    rng = np.random.default_rng(11)
    data = simulate_2pl(rng, agents=60, items=5, trials=8)
    result = fit(data)
    x = np.concatenate([result.discrimination, result.intercept])
    assert result.quadrature is not None
    theta, log_weights = result.quadrature
    n, k = data["n"].astype(float), data["k"].astype(float)
    covariance = np.linalg.inv(
        numeric_hessian(lambda p: irt.negative_log_likelihood(p, n, k, theta, log_weights), x)
    )
    weights = np.array([-0.5, -0.5, 1.0, 0.0, 0.0])
    contrast = irt.discrimination_contrast(result, weights)
    assert contrast.status == "ok"
    assert contrast.estimate == pytest.approx(weights @ result.discrimination)
    expected = np.sqrt(weights @ covariance[:5, :5] @ weights)
    assert contrast.standard_error == pytest.approx(expected, rel=1e-4)
    np.testing.assert_allclose(
        result.discrimination_se, np.sqrt(np.diag(covariance)[:5]), rtol=1e-4
    )


def test_reverse_scored_item_gets_a_negative_discrimination() -> None:
    rng = np.random.default_rng(5)
    data = simulate_2pl(rng, agents=200, items=6, trials=5, a=np.full(6, 1.5))
    data["k"][:, 0] = data["n"][:, 0] - data["k"][:, 0]  # stronger agents fail item 0
    result = fit(data)
    assert result.discrimination[0] < -1.0
    assert np.all(result.discrimination[1:] > 1.0)
    assert np.corrcoef(data["theta"], result.ability)[0, 1] > 0.9


def test_an_item_separated_by_ability_stops_at_the_bound_without_standard_errors() -> None:
    rng = np.random.default_rng(0)
    data = simulate_2pl(rng, agents=80, items=4, trials=20, a=np.ones(4))
    data["k"][:, 0] = np.where(data["theta"] > 0.3, 20, 0)  # a step function of ability
    result = fit(data)
    assert result.converged
    assert result.item_status[0] == "boundary"
    assert result.discrimination[0] == pytest.approx(irt.DISCRIMINATION_BOUND)
    assert np.isnan(result.discrimination_se[0]) and np.isnan(result.difficulty_se[0])
    assert "separated by ability" in result.item_reason[0]
    assert list(result.item_status[1:]) == ["ok"] * 3
    assert np.isfinite(result.discrimination_se[1:]).all()


def test_every_item_at_the_bound_is_a_boundary_fit_not_a_failure() -> None:
    """Nothing left to invert (every item separated by ability): the fit converges with every
    challenge at the bound and without standard errors."""
    rng = np.random.default_rng(0)
    data = simulate_2pl(rng, agents=80, items=3, trials=20, a=np.ones(3))
    for item, cut in enumerate([0.3, -0.2, 0.6]):
        data["k"][:, item] = np.where(data["theta"] > cut, 20, 0)
    result = fit(data)
    assert result.converged
    assert list(result.item_status) == ["boundary"] * 3
    np.testing.assert_allclose(result.discrimination, irt.DISCRIMINATION_BOUND)
    assert np.isnan(result.discrimination_se).all()


def test_degenerate_items_and_agents_are_not_estimable_with_reasons() -> None:
    rng = np.random.default_rng(3)
    data = simulate_2pl(rng, agents=40, items=3, trials=5)
    frame = pd.DataFrame(
        {
            "agent_id": [f"agent-{j:02d}" for j in data["agent"]],
            "challenge_id": [f"ch-{i}" for i in data["item"]],
            "attempts": data["n"].ravel(),
            "passes": data["k"].ravel(),
        }
    )
    extra = pd.DataFrame(
        {
            "agent_id": ["agent-00", "agent-01", "agent-00", "agent-01", "agent-00", "loner"],
            "challenge_id": ["all-pass", "all-pass", "all-fail", "all-fail", "solo", "all-pass"],
            "attempts": [3, 4, 2, 5, 6, 2],
            "passes": [3, 4, 0, 0, 3, 2],
        }
    )
    contrasts = pd.DataFrame(
        {
            "contrast_id": ["good", "good", "bad", "bad"],
            "challenge_id": ["ch-0", "ch-1", "ch-0", "all-pass"],
            "weight": [-1.0, 1.0, -1.0, 1.0],
        }
    )
    out = irt.fit_2pl_frame(pd.concat([frame, extra]), alpha=0.05, contrasts=contrasts)
    challenges = out[out.entity_kind == "challenge"].set_index("entity_id")
    assert challenges.loc["all-pass", "fit_reason"] == "every scored attempt passes"
    assert challenges.loc["all-fail", "fit_reason"] == "every scored attempt fails"
    assert challenges.loc["solo", "fit_reason"] == "attempted by fewer than two agents"
    for name in ("all-pass", "all-fail", "solo"):
        assert challenges.loc[name, "fit_status"] == "not_estimable"
        assert pd.isna(challenges.loc[name, "discrimination"])
    assert (challenges.loc[["ch-0", "ch-1", "ch-2"], "fit_status"] == "ok").all()
    agents = out[out.entity_kind == "agent"].set_index("entity_id")
    assert agents.loc["loner", "fit_status"] == "not_estimable"
    assert pd.isna(agents.loc["loner", "ability"])
    assert agents.loc["agent-05", "fit_status"] == "ok"
    contrast_rows = out[out.entity_kind == "contrast"].set_index("entity_id")
    assert contrast_rows.loc["good", "fit_status"] == "ok"
    assert contrast_rows.loc["good", "discrimination"] == pytest.approx(
        challenges.loc["ch-1", "discrimination"] - challenges.loc["ch-0", "discrimination"]
    )
    assert contrast_rows.loc["bad", "fit_status"] == "not_estimable"
    assert "all-pass: every scored attempt passes" in contrast_rows.loc["bad", "fit_reason"]
    assert list(out.columns) == list(irt.FRAME_COLUMNS)


@pytest.mark.parametrize(
    ("agents", "passes", "reason"),
    [
        (["a1", "a1"], [1, 2], "fewer than two agents"),
        (["a1", "a2"], [3, 3], "every scored attempt passes"),
    ],
)
def test_nothing_to_fit_gives_statuses_not_numbers(
    agents: list[str], passes: list[int], reason: str
) -> None:
    counts = pd.DataFrame(
        {"agent_id": agents, "challenge_id": ["c1", "c2"], "attempts": [3, 3], "passes": passes}
    )
    out = irt.fit_2pl_frame(counts, alpha=0.05)
    assert out["discrimination"].isna().all() and out["ability"].isna().all()
    assert (out["fit_status"] == "not_estimable").all()
    assert out["fit_reason"].str.contains(reason).any()


def test_an_arrow_table_gives_the_frame_of_its_pandas_rows() -> None:
    """A build passes the counts as arrow, in batches (ids coded by pyarrow, sorted by code
    point, as pandas sorts them): the same output as the same rows in pandas, whatever their order;
    a NULL id is refused rather than coded."""
    import pyarrow as pa

    rng = np.random.default_rng(17)
    data = simulate_2pl(rng, agents=30, items=6, trials=40)
    frame = pd.DataFrame(
        {
            "agent_id": [f"agent-{j}" for j in data["agent"]],  # agent-10 sorts before agent-2
            "challenge_id": [f"ch-{i}" if i % 2 else f"Ch-é{i}" for i in data["item"]],
            "attempts": data["n"].ravel(),
            "passes": data["k"].ravel(),
        }
    ).sample(frac=1.0, random_state=3)
    contrasts = pd.DataFrame(
        {"contrast_id": ["c", "c"], "challenge_id": ["ch-1", "Ch-é0"], "weight": [1.0, -1.0]}
    )
    from_pandas = irt.fit_2pl_frame(frame, alpha=0.05, contrasts=contrasts)
    reversed_rows = pa.Table.from_pandas(frame.iloc[::-1], preserve_index=False)
    from_arrow = irt.fit_2pl_frame(
        pa.Table.from_batches(reversed_rows.to_batches(max_chunksize=17)),  # as DuckDB hands it
        alpha=0.05,
        contrasts=contrasts,
    )
    pd.testing.assert_frame_equal(from_arrow, from_pandas)
    assert list(from_pandas.loc[from_pandas.entity_kind == "challenge", "entity_id"]) == sorted(
        set(frame["challenge_id"])
    )
    # each row's codes: the fit of pandas' own sorted codes, id by id
    agent_codes, agent_ids = pd.factorize(frame["agent_id"], sort=True)
    item_codes, item_ids = pd.factorize(frame["challenge_id"], sort=True)
    direct = irt.fit_2pl(
        agent_codes, item_codes, frame["attempts"], frame["passes"], len(agent_ids), len(item_ids)
    )
    by_id = from_arrow.set_index(["entity_kind", "entity_id"])
    np.testing.assert_allclose(
        by_id.loc[[("challenge", i) for i in item_ids], "discrimination"],
        direct.discrimination,
        rtol=1e-9,
    )
    np.testing.assert_allclose(
        by_id.loc[[("agent", j) for j in agent_ids], "ability"], direct.ability, rtol=1e-9
    )
    with_null = pa.Table.from_pandas(frame, preserve_index=False).set_column(
        0, "agent_id", pa.array([None] + list(frame["agent_id"])[1:], type=pa.string())
    )
    with pytest.raises(ValueError, match="must not be NULL"):
        irt.fit_2pl_frame(with_null, alpha=0.05)


@pytest.mark.parametrize("missing", [0.0, np.nan])
def test_rows_without_scored_attempts_are_left_out(missing: float) -> None:
    """Rows with no scored attempt (0, or NULL alone) are not cells of the fit: an agent or
    a challenge with only such rows gets no output row, and the rest is the fit without
    them (the rows are filtered only when some are there to drop)."""
    rng = np.random.default_rng(5)
    data = simulate_2pl(rng, agents=20, items=4, trials=30)
    frame = pd.DataFrame(
        {
            "agent_id": [f"agent-{j:02d}" for j in data["agent"]],
            "challenge_id": [f"ch-{i}" for i in data["item"]],
            "attempts": data["n"].ravel().astype(float),
            "passes": data["k"].ravel().astype(float),
        }
    )
    extra = pd.DataFrame(
        {
            "agent_id": ["ghost", "agent-00", "agent-01"],
            "challenge_id": ["ch-0", "ghost-ch", "ghost-ch"],
            "attempts": [missing] * 3,
            "passes": [missing] * 3,
        }
    )
    expected = irt.fit_2pl_frame(frame, alpha=0.05)
    with_extra = irt.fit_2pl_frame(pd.concat([frame, extra], ignore_index=True), alpha=0.05)
    pd.testing.assert_frame_equal(with_extra, expected)
    assert not {"ghost", "ghost-ch"} & set(with_extra["entity_id"])


def test_empty_input_gives_an_empty_typed_frame() -> None:
    empty = pd.DataFrame({"agent_id": [], "challenge_id": [], "attempts": [], "passes": []})
    out = irt.fit_2pl_frame(empty, alpha=0.05)
    assert out.empty
    assert dict(out.dtypes.astype(str)) == {
        name: ("string" if kind == "string" else kind) for name, kind in irt.FRAME_COLUMNS.items()
    }


def test_invalid_counts_raise() -> None:
    with pytest.raises(ValueError, match="successes <= trials"):
        irt.fit_2pl([0], [0], [2], [3], 1, 1)


# --- dbt end to end ---------------------------------------------------------------------


@pytest.mark.dbt
def test_fct_challenge_irt_calibrates_the_fixture_platform() -> None:
    from f3_platform import build

    built = build("planted")
    irt_rows = read_table(built.database, "select * from main.fct_challenge_irt").set_index(
        "challenge_id"
    )
    background = irt_rows.loc[[f"bg-{k:02d}" for k in range(1, 17)]]
    planted_difficulty = np.linspace(-20, 20, 16)  # points: higher = easier
    assert (background["fit_status"] == "ok").all()
    assert scipy_stats.spearmanr(planted_difficulty, background["difficulty"]).statistic < -0.95
    assert background["discrimination"].between(0.4, 2.0).all()
    assert irt_rows.loc["bg-trivial", "fit_status"] == "not_estimable"
    assert irt_rows.loc["bg-trivial", "fit_reason"] == "every scored attempt passes"
    assert irt_rows.loc["ch-s01", "fit_reason"] == "no scored attempts"
    assert irt_rows.loc["ch-s01", "attempts"] == 0

    attempts = built.tables["attempts"]
    passes = (
        attempts.assign(passed=attempts.score >= 50)
        .groupby("challenge_id")
        .passed.agg(["size", "sum"])
    )
    joined = irt_rows.join(passes, how="inner")
    assert (joined["attempts"] == joined["size"]).all()
    assert (joined["passes"] == joined["sum"]).all()

    abilities = read_table(built.database, "select * from main.fct_agent_irt_ability")
    truth = built.tables["agent_ability"].merge(abilities, on="agent_id")
    assert len(truth) == 36 and (truth["fit_status"] == "ok").all()
    assert np.corrcoef(truth["ability_x"], truth["ability_y"])[0, 1] > 0.9

    coverage = read_table(
        built.database,
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'challenge_irt'",
    )
    assert coverage.to_dict("records") == [
        {
            "detector": "challenge_irt",
            "is_available": True,
            "missing_inputs": None,
            "rows_analysed": int(irt_rows.loc[irt_rows.fit_status == "ok", "attempts"].sum()),
        }
    ]


@pytest.mark.dbt
def test_irt_without_passing_and_failing_attempts_says_so() -> None:
    from f3_platform import build

    built = build("absent")
    irt_rows = read_table(built.database, "select * from main.fct_challenge_irt")
    assert len(irt_rows) == len(built.tables["challenges"])
    assert (irt_rows["fit_status"] == "not_estimable").all()
    assert irt_rows["discrimination"].isna().all()
    coverage = read_table(
        built.database,
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'challenge_irt'",
    )
    assert not coverage.loc[0, "is_available"]
    assert "every scored attempt passes" in coverage.loc[0, "missing_inputs"]
    assert coverage.loc[0, "rows_analysed"] == 0


@given(
    modes=st.lists(st.floats(-10, 10), min_size=1, max_size=40),
    scale=st.floats(1e-3, 1.0),
)
@settings(max_examples=60, deadline=None)
def test_standardised_modes_have_the_populations_mean_and_variance(
    modes: list[float], scale: float
) -> None:
    """The item fits of the start see the modes moved to mean 0 and, with their SDs,
    divided by one factor c such that mean(mode^2) + mean(SD^2) = 1: the N(0, 1)
    population's total variance."""
    mode = np.asarray(modes)
    sds = np.full(mode.size, scale)
    standard = irt.standardised(mode, sds)
    centred = mode - mode.mean()
    assert standard.mean() == pytest.approx(0.0, abs=1e-12)
    moved = np.abs(centred) > 1e-6
    if not moved.any():  # every mode (nearly) equal: nothing to scale up
        # c >= the SD, so no standardised mode is further from 0 than centred / SD
        assert np.all(np.abs(standard) <= np.abs(centred) / scale + 1e-15)
        return
    factor = standard[moved] / centred[moved]  # 1 / c, the same for every agent
    np.testing.assert_allclose(factor, factor[0], rtol=1e-9)
    assert factor[0] > 0
    total = np.mean(standard**2) + np.mean((sds * factor[0]) ** 2)
    assert total == pytest.approx(1.0, rel=1e-9)


@given(st.lists(st.floats(-800, 800), min_size=1, max_size=50))
@settings(max_examples=60, deadline=None)
def test_log_expit_equals_scipy(values: list[float]) -> None:
    z = np.asarray(values)
    expected = special.log_expit(z)
    np.testing.assert_allclose(
        irt._log_expit_inplace(z, scratch=np.empty_like(z)), expected, rtol=1e-13, atol=1e-300
    )


def test_adaptive_fit_agrees_with_a_fine_shared_grid_fit() -> None:
    """Agents with 400 attempts per challenge: the per-agent-grid fit and L-BFGS-B on a
    shared grid fine enough for those posteriors reach the same optimum."""
    rng = np.random.default_rng(5)
    data = simulate_2pl(rng, agents=12, items=6, trials=400)
    result = fit(data)
    assert result.quadrature is not None and result.quadrature[0].ndim == 2
    n, k = data["n"].astype(float), data["k"].astype(float)
    theta, log_weights = irt.quadrature_grid(float(result.ability_se.min()) / 3)
    start = np.concatenate([result.discrimination, result.intercept]) * 0.9
    reference = optimize.minimize(
        irt.negative_log_likelihood,
        start,
        args=(n, k, theta, log_weights),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 5000, "ftol": 0, "gtol": 1e-9},
    )
    x = np.concatenate([result.discrimination, result.intercept])
    np.testing.assert_allclose(x, reference.x, rtol=1e-5, atol=1e-5)
    assert -reference.fun == pytest.approx(result.log_likelihood, rel=1e-10)


@given(
    size=st.integers(1, 40),
    block=st.integers(1, 16),
    lower=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
@settings(max_examples=60, deadline=None)
def test_mirrored_copies_one_triangle_over_the_other(
    size: int, block: int, lower: bool, seed: int
) -> None:
    matrix = np.random.default_rng(seed).normal(size=(size, size))
    triangle = np.tril(matrix) if lower else np.triu(matrix)
    expected = triangle + (np.tril(matrix, -1) if lower else np.triu(matrix, 1)).T
    np.testing.assert_array_equal(irt._mirrored(matrix.copy(), lower, block), expected)


@given(
    seed=st.integers(0, 2**32 - 1),
    agents=st.integers(2, 30),
    items=st.integers(2, 12),
    trials=st.sampled_from([1, 20, 3000]),
    reduced=st.booleans(),
)
@settings(max_examples=40, deadline=None)
def test_the_information_in_blocks_of_agents_and_fewer_rows_is_the_whole_one(
    seed: int, agents: int, items: int, trials: int, reduced: bool
) -> None:
    """The quadrature and then C and V'V formed a few agents at a time (BLOCK_BYTES small),
    items restricted or not, each agent's rows of V reduced to those its V_j'V_j needs or
    (few parameters) put into V'V as they are, equal the products of the whole V (formed
    here from the definitions). Narrow posteriors keep few rows."""
    rng = np.random.default_rng(seed)
    data = simulate_2pl(rng, agents=agents, items=items, trials=trials)
    n, k = data["n"].astype(float), data["k"].astype(float)
    x = np.concatenate([data["a"], -data["a"] * data["b"]])
    mode, scale = irt.posterior_modes(x[:items], x[items:], n, k, np.zeros(agents))
    theta, log_weights = irt.adaptive_grids(mode, scale)
    kept = rng.random(items) < 0.7
    assume(kept.any())
    points = theta.shape[1]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(irt, "BLOCK_BYTES", 8 * points * 2 * items * 3)  # 3 agents a block
        patch.setattr(irt, "COMPRESSION_MIN_PARAMETERS", 0 if reduced else 10**9)
        q = irt._posterior(x[:items], x[items:], n, k, theta, log_weights)
        information = irt._information(q, n, k, kept)
        dense = information.dense()
    whole_q = irt._posterior(x[:items], x[items:], n, k, theta, log_weights)
    for name in ("log_marginal", "posterior", "mean_p", "mean_theta_p"):
        np.testing.assert_allclose(getattr(q, name), getattr(whole_q, name), rtol=1e-12)
    z = theta[:, :, None] * x[:items] + x[items:]  # J x Q x I
    p = special.expit(z)
    log_joint = (
        np.einsum("ji,jqi->jq", k, special.log_expit(z))
        + np.einsum("ji,jqi->jq", n - k, special.log_expit(-z))
        + log_weights
    )
    np.testing.assert_allclose(
        q.log_marginal, special.logsumexp(log_joint, axis=1), rtol=1e-9, atol=1e-9
    )
    mean_a, mean_d = irt._mean_scores(q, n, k)
    residual = k[:, None, :] - n[:, None, :] * p  # J x Q x I
    score = np.concatenate(
        [q.theta[:, :, None] * residual - mean_a[:, None, :], residual - mean_d[:, None, :]],
        axis=2,
    )
    columns = np.concatenate([kept, kept])
    whole = (score * np.sqrt(q.posterior)[:, :, None]).reshape(-1, 2 * items)[:, columns]
    variance = p * (1 - p) * n[:, None, :]
    complete = [
        np.einsum("jq,jqi->i", q.posterior * q.theta**power, variance)[kept] for power in (2, 1, 0)
    ]
    missing = whole.T @ whole
    tolerance = 1e-10 * max(np.abs(missing).max(), 1e-300)
    expected = irt._add_blocks(-missing, *complete)
    np.testing.assert_allclose(dense, expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    np.testing.assert_allclose(information.diagonal(), np.diag(expected), rtol=1e-9, atol=tolerance)
    low_rank = agents * points < 2 * int(kept.sum())  # the rows are reduced for Woodbury
    if not (reduced or low_rank):
        assert information.missing_upper is not None and not information.pieces
        return
    centred = information.centred
    np.testing.assert_allclose(centred.T @ centred, missing, rtol=1e-10, atol=tolerance)
    if trials == 3000:
        assert len(centred) <= agents * points // 2
