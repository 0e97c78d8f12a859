with

clustering as (
    select * from {{ ref('int_family_clustering_computed') }}
)

select
    cast(agent_id as varchar) as agent_id,
    cast(model_id as varchar) as model_id,
    cast(model_family as varchar) as model_family,
    cast(scored_attempts as bigint) as scored_attempts,
    cast(challenges_observed as bigint) as challenges_observed,
    cast(is_included as boolean) as is_included,
    cast(exclusion_reason as varchar) as exclusion_reason,
    cast(pc1 as double) as pc1,
    cast(pc2 as double) as pc2,
    cast(silhouette as double) as silhouette,
    cast(explained_variance_pc1 as double) as explained_variance_pc1,
    cast(explained_variance_pc2 as double) as explained_variance_pc2
from clustering
