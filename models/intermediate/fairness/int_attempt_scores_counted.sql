{#
    The verdict chain's counts: the clean attempts of this run's scan compressed to one row
    per (verdict window, challenge, model family, distinct score) with its count, summed
    from the attempt cells (int_attempt_score_cells_counted). A verdict window is either
    'all' (every clean attempt: the all-time verdict) or one window of the var
    `verdict_history_window` holding submitted_at, keyed by its first day ('YYYY-MM-DD',
    window_start); attempts without a timestamp count in 'all' only. The 'all' rows are
    sums of the window rows. Unscored
    attempts form the score-NULL row. Every statistic of the chain is exact on this table;
    with integer scores it is a few hundred rows per challenge and window however many
    attempts there are.

    Incremental (strategy fold, equal to a full recount): a run folds in the delta of the
    cells' run (macro fold_delta_of), a few rows per new attempt however many cells there
    are, and counts every cell again when that delta does not follow the cells it summed
    last, or an agent's model or a model's family changed (macro agent_families).
#}
{%- set cells_source = fold_delta_of(
    ref('int_attempt_score_cells_counted'), '', agent_families()) %}
{{ config(
    materialized='incremental',
    incremental_strategy='fold',
    fold_measures=['attempts'],
    on_schema_change='fail',
    post_hook="{{ fold_delta_applied(
        ref('int_attempt_score_cells_counted'), '', agent_families()
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

window_counts as (
    select
        cells.challenge_id,
        models.model_family,
        cells.window_start,
        cells.score,
        sum(cells.attempts) as attempts
    from cells
    inner join agents
        on cells.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    group by cells.challenge_id, models.model_family, cells.window_start, cells.score
),

all_time_counts as (
    select
        challenge_id,
        model_family,
        score,
        sum(attempts) as attempts
    from window_counts
    group by challenge_id, model_family, score
),

counted as (
    select
        {{ verdict_window_key('window_start') }} as verdict_window,
        window_start,
        challenge_id,
        model_family,
        score,
        attempts
    from window_counts
    where window_start is not null
    union all
    select
        'all' as verdict_window,
        cast(null as date) as window_start,
        challenge_id,
        model_family,
        score,
        attempts
    from all_time_counts
    {%- if is_incremental() and not cells_source.from_delta %}
    {#- counted again: every stored row leaves #}
    union all
    select
        verdict_window,
        window_start,
        challenge_id,
        model_family,
        score,
        -attempts as attempts
    from {{ this }}
    {%- endif %}
)

select
    cast(verdict_window as varchar) as verdict_window,
    cast(window_start as date) as window_start,
    challenge_id,
    model_family,
    score,
    cast(attempts as bigint) as attempts
from counted
