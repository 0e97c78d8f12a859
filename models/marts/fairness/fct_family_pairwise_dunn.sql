with

adjusted_ranks as (
    select * from {{ ref('int_challenge_adjusted_ranks_tested') }}
),

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
    where verdict_window = 'all'
),

pairs as (
    select
        challenge_id,
        unnest(dunn_pairs) as pair
    from adjusted_ranks
)

select
    cast(pairs.challenge_id as varchar) as challenge_id,
    cast(pairs.pair.family_a as varchar) as family_a,
    cast(pairs.pair.family_b as varchar) as family_b,
    cast(pairs.pair.z_statistic as double) as z_statistic,
    cast(pairs.pair.p_value as double) as p_value,
    cast(pairs.pair.p_value_holm as double) as p_value_holm,
    cast(pairs.pair.p_value_holm < {{ var('alpha') }} as boolean) as is_significant,
    cast(challenges_tested.eligibility = 'tested' as boolean) as is_challenge_tested
from pairs
inner join challenges_tested
    on pairs.challenge_id = challenges_tested.challenge_id
