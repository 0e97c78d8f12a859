{#
    One row per (challenge, agent) with at least one scored attempt: count, sum and mean of
    the scores and the passes (score >= `irt_pass_score`), with the agent's model and
    family, summed from the attempt cells of this run's scan (int_attempt_score_cells_counted);
    the API memorisation cells (rolled up to models), the family clustering matrix, the
    contamination adjustment and the 2PL IRT fit (attempts and passes) read it. The scores
    are counted per distinct value first, so the sums are exact counts and one ordered
    floating sum: the same bits on every build (with integer scores, also on incremental
    runs; otherwise equal to rounding).

    Incremental (strategy fold, equal to a full recount): as int_attempt_scores_counted, a
    run folds in the delta of the cells' run (macro fold_delta_of) unless the cells must be
    summed again (irt_pass_score, or an agent's model or a model's family, changed).
#}
{%- set cells_source = fold_delta_of(
    ref('int_attempt_score_cells_counted'),
    'irt_pass_score=' ~ var('irt_pass_score'),
    agent_families()
) %}
{{ config(
    materialized='incremental',
    incremental_strategy='fold',
    fold_measures=['scored_attempts', 'score_sum', 'passes'],
    fold_derived={'mean_score': 'score_sum / scored_attempts'},
    on_schema_change='fail',
    post_hook="{{ fold_delta_applied(
        ref('int_attempt_score_cells_counted'),
        'irt_pass_score=' ~ var('irt_pass_score'),
        agent_families()
    ) }}",
) }}
with

cells as (
    select * from {{ cells_source.upstream_rows }}
    where source_row_number is null
        and is_in_scan
),

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

score_counts as (
    select
        challenge_id,
        agent_id,
        score,
        sum(attempts) as attempts
    from cells
    where score is not null
    group by challenge_id, agent_id, score
),

summarised as (
    select
        score_counts.challenge_id,
        score_counts.agent_id,
        agents.model_id,
        models.model_family,
        cast(sum(score_counts.attempts) as bigint) as scored_attempts,
        sum(score_counts.score * score_counts.attempts order by score_counts.score)
            as score_sum,
        cast(coalesce(
            sum(score_counts.attempts)
            filter (where score_counts.score >= {{ var('irt_pass_score') }}),
            0
        ) as bigint) as passes
    from score_counts
    inner join agents
        on score_counts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    group by
        score_counts.challenge_id, score_counts.agent_id, agents.model_id, models.model_family
    {%- if is_incremental() and not cells_source.from_delta %}
    {#- summed again: every stored row leaves #}
    union all
    select
        challenge_id,
        agent_id,
        model_id,
        model_family,
        -scored_attempts as scored_attempts,
        -score_sum as score_sum,
        -passes as passes
    from {{ this }}
    {%- endif %}
)

select
    challenge_id,
    agent_id,
    model_id,
    model_family,
    scored_attempts,
    score_sum,
    score_sum / scored_attempts as mean_score,
    passes
from summarised
