{#
    One row per row of `challenges` (challenge_id plus the partition columns): whether the
    challenge can be judged on the partition's attempts (eligibility, with its reason), and
    for those that can, the max-t test across its judged families (the smallest
    Sidak-adjusted p). A family is judged on a challenge with at least min_family_attempts
    scored attempts there and an ability from its other challenges; the others are left
    out of the test (still in the other families' reference, with their variance), as in
    the A/B and briefing-style detectors, and the challenge is tested when two families
    can be judged (`unjudged_families`, `unjudged_reason`; such a challenge cannot pass:
    fairness_challenge_verdicts). Before, one family with 6 attempts made a challenge
    'insufficient_evidence' whatever the others showed. Benjamini-Hochberg q-values are
    taken across the partition's tested challenges.
    `selection_p_cutoff` is the level at which a family's own Sidak-adjusted p counts as
    significant inside a selected challenge: alpha * selected / judged (Benjamini &
    Bogomolov's selective inference). Inputs: fairness_families_summarised,
    fairness_family_abilities_estimated and fairness_family_effects_adjusted. A query.
#}
{% macro fairness_challenges_tested(
    challenges, family_summaries, abilities, effects, partition_by=[]
) -%}
{%- set p = partition_by -%}
{%- set min_family = var('min_family_attempts') -%}
with

scored_families as (
    select * from {{ family_summaries }}
    where scored_attempts > 0
),

counted_families as (
    select
        {{ _partition_columns('scored_families', p) }}scored_families.challenge_id,
        cast(sum(scored_families.scored_attempts) as bigint) as attempts,
        count(*) as families,
        min(scored_families.scored_attempts) as smallest_family_attempts,
        {#- ties go to the first family by name, so the reason names the same one every run #}
        arg_min(
            scored_families.model_family,
            (scored_families.scored_attempts, scored_families.model_family)
        ) as smallest_family,
        count(*) filter (where abilities.ability is null) as families_without_ability,
        min(scored_families.model_family) filter (where abilities.ability is null)
            as family_without_ability,
        {#- judged: enough attempts here and an ability from the other challenges #}
        count(*) filter (
            where scored_families.scored_attempts >= {{ min_family }}
                and abilities.ability is not null
        ) as judged_families,
        min(scored_families.mean_score) = max(scored_families.mean_score)
            and max(coalesce(scored_families.variance_score, 0)) = 0 as is_constant
    from scored_families
    left join {{ abilities }} as abilities
        on scored_families.challenge_id = abilities.challenge_id
        and scored_families.model_family = abilities.model_family
        {{- _partition_join('scored_families', 'abilities', p) }}
    group by {{ _partition_columns('scored_families', p) }}scored_families.challenge_id
),

coverage as (
    {#- why a family is not judged on the challenge: too few attempts here first #}
    select
        *,
        case
            when smallest_family_attempts < {{ min_family }}
                then 'family ' || smallest_family || ' has only ' || smallest_family_attempts
                    || ' scored attempts, fewer than min_family_attempts = {{ min_family }}'
            when families_without_ability > 0
                then 'family ' || family_without_ability
                    || ' has no scored attempts on other challenges to estimate its ability from'
        end as unjudged_reason
    from counted_families
),

max_t as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        count(*) as tested_families,
        min(p_value_sidak) as p_value,
        count(*) filter (where p_value_sidak is null) as untestable_contrasts
    from {{ effects }}
    {#- a family with too few attempts here is left out of the test, not a veto on it #}
    where attempts >= {{ min_family }}
    group by {{ _partition_columns(none, p) }}challenge_id
),

eligibility as (
    select
        {{ _partition_columns('challenges', p) }}challenges.challenge_id,
        coalesce(coverage.attempts, 0) as attempts,
        coalesce(coverage.families, 0) as families,
        coverage.smallest_family,
        coverage.smallest_family_attempts,
        max_t.p_value,
        case
            when coalesce(coverage.attempts, 0) < {{ var('min_attempts') }}
                then 'insufficient_evidence'
            when coverage.families < 2 or coverage.is_constant then 'not_testable'
            when coverage.judged_families < 2 then 'insufficient_evidence'
            when max_t.p_value is null or max_t.untestable_contrasts > 0
                or max_t.tested_families < coverage.judged_families then 'not_testable'
            else 'tested'
        end as eligibility,
        case
            when coalesce(coverage.attempts, 0) < {{ var('min_attempts') }}
                then coalesce(coverage.attempts, 0) || ' scored attempts, fewer than min_attempts = '
                    || {{ var('min_attempts') }}
            when coverage.families < 2
                then 'only one model family (' || coverage.smallest_family || ') has scored attempts'
            when coverage.is_constant then 'every scored attempt has the same score'
            when coverage.judged_families < 2
                then 'fewer than two families can be judged: ' || coverage.unjudged_reason
            when max_t.p_value is null or max_t.untestable_contrasts > 0
                or max_t.tested_families < coverage.judged_families
                then 'the adjusted effects have no variation to test (scores constant after trimming)'
        end as eligibility_reason,
        coverage.families - coverage.judged_families as unjudged_families,
        coverage.unjudged_reason
    from {{ challenges }} as challenges
    left join coverage
        on challenges.challenge_id = coverage.challenge_id
        {{- _partition_join('challenges', 'coverage', p) }}
    left join max_t
        on challenges.challenge_id = max_t.challenge_id
        {{- _partition_join('challenges', 'max_t', p) }}
),

judged as (
    select * from eligibility
    where eligibility = 'tested'
),

q_values as (
    {{ benjamini_hochberg_within('judged', 'challenge_id', 'p_value', p) }}
),

selection as (
    select
        {{ _partition_columns('eligibility', p) }}count(*) filter (where eligibility.eligibility = 'tested')
            as judged_challenges,
        count(*) filter (where q_values.q_value < {{ var('alpha') }}) as selected_challenges
    from eligibility
    left join q_values
        on eligibility.challenge_id = q_values.challenge_id
        {{- _partition_join('eligibility', 'q_values', p) }}
    {{ _partition_group_by(p, 'eligibility') }}
)

select
    {{ _partition_columns('eligibility', p) }}eligibility.challenge_id,
    eligibility.attempts,
    eligibility.families,
    eligibility.smallest_family,
    eligibility.smallest_family_attempts,
    eligibility.eligibility,
    eligibility.eligibility_reason,
    eligibility.unjudged_families,
    eligibility.unjudged_reason,
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
    {{- _partition_join('eligibility', 'q_values', p) }}
{% if p -%}
inner join selection
    on true
    {{- _partition_join('eligibility', 'selection', p) }}
{%- else -%}
cross join selection
{%- endif %}
{%- endmacro %}
