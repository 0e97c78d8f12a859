{#
    One row per time window of the verdict history: every window (var
    verdict_history_window) from the first to the last one holding a clean attempt with a
    timestamp, including empty windows in between. verdict_window is the window's key in
    the verdict chain (its first day as 'YYYY-MM-DD').
#}
with

window_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where verdict_window <> 'all'
),

bounds as (
    select
        min(window_start) as first_window_start,
        max(window_start) as last_window_start
    from window_counts
),

spined as (
    select
        unnest({{ verdict_window_starts('first_window_start', 'last_window_start') }})
            as window_timestamp
    from bounds
),

windows as (
    select
        {{ verdict_window_key('cast(window_timestamp as date)') }} as verdict_window,
        cast(window_timestamp as date) as window_start,
        {{ verdict_window_end('cast(window_timestamp as date)') }} as window_end,
        '{{ verdict_history_window() }}' as window_grain
    from spined
)

select * from windows
