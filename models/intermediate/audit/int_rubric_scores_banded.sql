{#
    The one scan of rubric scores: clean scores of scored attempts compressed to one row per
    (rubric item, model family, score band) with `passes` (the item was earned: points >=
    `rubric_earned_share` x max_points) and `failures`. Bands as test-case DIF: band b of
    B = `dif_score_bands` holds attempt scores in [100 b / B, 100 (b + 1) / B), 100 in the
    top band. Scores of unscored attempts cannot be matched and are left out.
#}
{%- set share = var('rubric_earned_share') %}
{%- if share is not number or share <= 0 or share > 1 %}
    {{ exceptions.raise_compiler_error(
        "var rubric_earned_share must be a number in (0, 1], got " ~ share) }}
{%- endif %}
with

rubric_scores as (
    select * from {{ ref('int_keyed__rubric_scores') }}
),

rubric_items as (
    select * from {{ ref('int_keyed__rubric_items') }}
),

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

outcomes as (
    select
        rubric_scores.rubric_item_id,
        rubric_items.challenge_id,
        models.model_family,
        {{ challenge_fairness.dif_score_band('rubric_scores.attempt_score') }} as score_band,
        {# a tolerance of 1e-9 points so that 0.7 x 10 = 7 counts as earned #}
        rubric_scores.points >= {{ share }} * rubric_items.max_points - 1e-9 as is_earned
    from rubric_scores
    inner join rubric_items
        on rubric_scores.rubric_item_id = rubric_items.rubric_item_id
    inner join agents
        on rubric_scores.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    where rubric_scores.attempt_score is not null
),

banded as (
    select
        rubric_item_id,
        challenge_id,
        model_family,
        score_band,
        count(*) filter (where is_earned) as passes,
        count(*) filter (where not is_earned) as failures
    from outcomes
    group by rubric_item_id, challenge_id, model_family, score_band
)

select * from banded
