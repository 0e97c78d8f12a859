{%- set threshold = var('clustering_silhouette_threshold') %}
with

clustering as (
    select * from {{ ref('int_family_clustering_computed') }}
),

platform_results as (
    select distinct
        agents_analysed,
        agents_excluded,
        families,
        challenges,
        mean_silhouette,
        p_value,
        permutations,
        explained_variance_pc1,
        explained_variance_pc2,
        status,
        reason
    from clustering
),

{# One row even when no agent has scored attempts (the Python model then returns none). #}
one_row as (
    select
        coalesce(platform_results.agents_analysed, 0) as agents_analysed,
        coalesce(platform_results.agents_excluded, 0) as agents_excluded,
        coalesce(platform_results.families, 0) as families,
        coalesce(platform_results.challenges, 0) as challenges,
        platform_results.mean_silhouette,
        platform_results.p_value,
        coalesce(platform_results.permutations, 0) as permutations,
        platform_results.explained_variance_pc1,
        platform_results.explained_variance_pc2,
        case
            when platform_results.status = 'ok' then 'tested'
            else 'not_testable'
        end as status,
        case
            when platform_results.status is null then 'no agent has scored attempts'
            when platform_results.status <> 'ok' then platform_results.reason
        end as reason
    from (select 1 as anchor) as anchor  -- noqa: ST11
    left join platform_results
        on true
),

flagged as (
    select
        *,
        coalesce(p_value < {{ var('alpha') }}, false) as is_significant,
        coalesce(
            p_value < {{ var('alpha') }} and mean_silhouette > {{ threshold }}, false
        ) as is_flagged
    from one_row
)

select
    cast(agents_analysed as bigint) as agents_analysed,
    cast(agents_excluded as bigint) as agents_excluded,
    cast(families as bigint) as families,
    cast(challenges as bigint) as challenges,
    cast(mean_silhouette as double) as mean_silhouette,
    cast(p_value as double) as p_value,
    cast(permutations as bigint) as permutations,
    cast(explained_variance_pc1 as double) as explained_variance_pc1,
    cast(explained_variance_pc2 as double) as explained_variance_pc2,
    cast({{ threshold }} as double) as silhouette_threshold,
    cast(is_significant as boolean) as is_significant,
    cast(is_flagged as boolean) as is_flagged,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from flagged
