{#
    One row per challenge: Kruskal-Wallis by family on ability-adjusted scores
    (score - the family's leave-out ability), its epsilon squared H / (n - 1), and Dunn's
    pairwise tests (Holm within the challenge). Rank-based companions of the max-t test.
#}
with

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where verdict_window = 'all'
        and score is not null
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
    where verdict_window = 'all'
        and ability is not null
),

adjusted_lists as (
    select
        score_counts.challenge_id,
        list(score_counts.model_family order by score_counts.model_family, score_counts.score)
            as families,
        list(
            score_counts.score - abilities.ability
            order by score_counts.model_family, score_counts.score
        ) as adjusted_scores,
        list(score_counts.attempts order by score_counts.model_family, score_counts.score)
            as counts
    from score_counts
    inner join abilities
        on score_counts.challenge_id = abilities.challenge_id
        and score_counts.model_family = abilities.model_family
    group by score_counts.challenge_id
),

tested as (
    select
        challenge_id,
        {{ kruskal_wallis('families', 'adjusted_scores', 'counts') }} as kruskal_wallis,
        {{ dunn('families', 'adjusted_scores', 'counts') }} as dunn_pairs
    from adjusted_lists
)

select
    challenge_id,
    kruskal_wallis.observations as attempts,
    kruskal_wallis.h_statistic,
    kruskal_wallis.p_value,
    kruskal_wallis.h_statistic / nullif(kruskal_wallis.observations - 1, 0) as epsilon_squared,
    kruskal_wallis.status,
    kruskal_wallis.reason,
    dunn_pairs
from tested
