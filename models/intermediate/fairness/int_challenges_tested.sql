{#
    One row per clean challenge: whether it can be judged (eligibility), and for those that
    can, the max-t test across its families (the smallest Sidak-adjusted p) with
    Benjamini-Hochberg q-values across all judged challenges. `selection_p_cutoff` is the
    level at which a family's own Sidak-adjusted p counts as significant inside a selected
    challenge: alpha * selected / judged (Benjamini & Bogomolov's selective inference).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
    where scored_attempts > 0
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
),

effects as (
    select * from {{ ref('int_family_effects_adjusted') }}
),

coverage as (
    select
        family_summaries.challenge_id,
        cast(sum(family_summaries.scored_attempts) as bigint) as attempts,
        count(*) as families,
        min(family_summaries.scored_attempts) as smallest_family_attempts,
        arg_min(family_summaries.model_family, family_summaries.scored_attempts)
            as smallest_family,
        count(*) filter (where abilities.ability is null) as families_without_ability,
        min(family_summaries.model_family) filter (where abilities.ability is null)
            as family_without_ability,
        min(family_summaries.mean_score) = max(family_summaries.mean_score)
            and max(coalesce(family_summaries.variance_score, 0)) = 0 as is_constant
    from family_summaries
    left join abilities
        on family_summaries.challenge_id = abilities.challenge_id
        and family_summaries.model_family = abilities.model_family
    group by family_summaries.challenge_id
),

max_t as (
    select
        challenge_id,
        count(*) as tested_families,
        min(p_value_sidak) as p_value,
        count(*) filter (where p_value_sidak is null) as untestable_contrasts
    from effects
    group by challenge_id
),

eligibility as (
    select
        challenges.challenge_id,
        coalesce(coverage.attempts, 0) as attempts,
        coalesce(coverage.families, 0) as families,
        coverage.smallest_family,
        coverage.smallest_family_attempts,
        max_t.p_value,
        case
            when coalesce(coverage.attempts, 0) < {{ var('min_attempts') }}
                then 'insufficient_evidence'
            when coverage.families < 2 or coverage.is_constant then 'not_testable'
            when coverage.smallest_family_attempts < {{ var('min_family_attempts') }}
                then 'insufficient_evidence'
            when coverage.families_without_ability > 0 then 'insufficient_evidence'
            when max_t.p_value is null or max_t.untestable_contrasts > 0
                or max_t.tested_families < coverage.families then 'not_testable'
            else 'tested'
        end as eligibility,
        case
            when coalesce(coverage.attempts, 0) < {{ var('min_attempts') }}
                then coalesce(coverage.attempts, 0) || ' scored attempts, fewer than min_attempts = '
                    || {{ var('min_attempts') }}
            when coverage.families < 2
                then 'only one model family (' || coverage.smallest_family || ') has scored attempts'
            when coverage.is_constant then 'every scored attempt has the same score'
            when coverage.smallest_family_attempts < {{ var('min_family_attempts') }}
                then 'family ' || coverage.smallest_family || ' has only '
                    || coverage.smallest_family_attempts
                    || ' scored attempts, fewer than min_family_attempts = '
                    || {{ var('min_family_attempts') }}
            when coverage.families_without_ability > 0
                then 'family ' || coverage.family_without_ability
                    || ' has no scored attempts on other challenges to estimate its ability from'
            when max_t.p_value is null or max_t.untestable_contrasts > 0
                or max_t.tested_families < coverage.families
                then 'the adjusted effects have no variation to test (scores constant after trimming)'
        end as eligibility_reason
    from challenges
    left join coverage
        on challenges.challenge_id = coverage.challenge_id
    left join max_t
        on challenges.challenge_id = max_t.challenge_id
),

judged as (
    select * from eligibility
    where eligibility = 'tested'
),

q_values as (
    {{ benjamini_hochberg('judged', 'challenge_id', 'p_value') }}
),

selection as (
    select
        count(*) as judged_challenges,
        count(*) filter (where q_value < {{ var('alpha') }}) as selected_challenges
    from q_values
)

select
    eligibility.challenge_id,
    eligibility.attempts,
    eligibility.families,
    eligibility.smallest_family,
    eligibility.smallest_family_attempts,
    eligibility.eligibility,
    eligibility.eligibility_reason,
    case when eligibility.eligibility = 'tested' then eligibility.p_value end as p_value,
    q_values.q_value,
    coalesce(q_values.q_value < {{ var('alpha') }}, false) as is_selected,
    selection.judged_challenges,
    selection.selected_challenges,
    cast({{ var('alpha') }} as double) * selection.selected_challenges
        / nullif(selection.judged_challenges, 0) as selection_p_cutoff
from eligibility
left join q_values
    on eligibility.challenge_id = q_values.challenge_id
cross join selection
