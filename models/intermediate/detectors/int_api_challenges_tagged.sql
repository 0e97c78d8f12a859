{#
    One row per (challenge, API) for every clean challenge tagged `api:<name>` (tags are
    trimmed and lower-cased; `api:` with an empty name is ignored). A challenge tagged with
    two APIs counts for both.
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

tags as (
    select
        challenge_id,
        unnest(tags) as tag
    from challenges
),

api_tags as (
    select distinct
        challenge_id,
        substr(lower(trim(tag)), 5) as api_name
    from tags
    where lower(trim(tag)) like 'api:%'
        and length(trim(tag)) > 4
)

select * from api_tags
