{#
    The one scan of attempts for the verdict chain: clean attempts compressed to one row per
    (verdict window, challenge, model family, distinct score) with its count. A verdict
    window is either 'all' (every clean attempt: the all-time verdict) or one window of the
    var `verdict_history_window` holding submitted_at, keyed by its first day
    ('YYYY-MM-DD', window_start); attempts without a timestamp count in 'all' only. The
    'all' rows are sums of the window rows, so attempts are read once for both. Unscored
    attempts form the score-NULL row. Every statistic of the chain is exact on this table;
    with integer scores it is a few hundred rows per challenge and window however many
    attempts there are.
#}
with

attempts as (
    select * from {{ ref('stg_platform__attempts') }}
),

agents as (
    select * from {{ ref('stg_platform__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

windowed as (
    select
        attempts.challenge_id,
        models.model_family,
        {{ verdict_window_start('attempts.submitted_at') }} as window_start,
        attempts.score
    from attempts
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
),

window_counts as (
    select
        challenge_id,
        model_family,
        window_start,
        score,
        count(*) as attempts
    from windowed
    group by challenge_id, model_family, window_start, score
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
)

select
    cast(verdict_window as varchar) as verdict_window,
    cast(window_start as date) as window_start,
    challenge_id,
    model_family,
    score,
    cast(attempts as bigint) as attempts
from counted
