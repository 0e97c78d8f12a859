{# The consumer's own model on top of the package's marts. #}
with

deviations as (
    select * from {{ ref('fct_family_deviation') }}
),

kruskal_wallis as (
    select * from {{ ref('fct_family_kruskal_wallis') }}
),

to_review as (
    select
        deviations.challenge_id,
        deviations.model_family,
        deviations.deviation,
        kruskal_wallis.p_value
    from deviations
    inner join kruskal_wallis
        on deviations.challenge_id = kruskal_wallis.challenge_id
    where deviations.is_flagged
)

select * from to_review
