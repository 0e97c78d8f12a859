{#
    One row per current (all-time) finding of every detector that flags something, in one
    shape: which challenge, which detector, the effect with its unit, interval, q and
    threshold where the detector has them, one sentence of evidence, and the recommended
    action with its reason in words.

    F6 findings are in: rubric-item DIF -> fix_rubric, locale-specific competitive briefings
    and undefined regulated-domain terms -> fix_briefing. The findings of every detector
    but the family verdict come from its declaration in detector_registry() (`evidence`):
    its query is the macro `<detector>_findings` (macros/evidence/), and its cause and
    whether it can explain a family bias are declared there. Adding a detector's findings
    is adding those to its entry; this model does not change.

    Action precedence (1 decides first, see action_precedence):
    1 retire_challenge: memorised content cannot be un-memorised, so fixing anything else
      on a memorised or duplicated challenge is wasted work; also a flagged family bias
      (the challenge's own evidence) that no detector explains (in favour of arm B when a
      successful A/B experiment has this challenge as its arm A);
    2 fix_tests, 3 fix_rubric: the score itself is wrong for some attempts;
    4 fix_briefing: the task statement favours a family;
    5 inspect_new_family: a flagged family bias that began when that family first attempted
      the challenge (it passed before): check the family's attempts before the challenge;
    6 rebalance_combinations: the challenge is fine, its variable combination is too hard
      or too easy compared with its template's others;
    7 rewrite_challenge: a memorised API (platform-level trend) whose trend this challenge's
      own slope shows beyond the threshold with confidence: rewrite, never retire on a
      platform trend alone;
    8 watch: a memorised API whose trend this challenge's own slope does not confirm;
    9 confirm_fix: a flagged family bias whose challenge was fixed (fct_challenge_verdict_history:
      pass in every decided window since its latest fix): the all-time verdict still counts
      the earlier, biased attempts; confirm the change and re-baseline instead of retiring;
    10 collect_attempts: an undecided (insufficient_evidence) verdict: the attempts each
      family still needs (fct_challenge_attempts_needed), not a bias.

    Every finding also names its root cause (cause_id, cause): the unit its detector flags,
    which may span challenges; a flagged family effect takes the cause of the finding that
    explains it, else its own (`family_bias:<challenge_id>`). rpt_review_queue has one item
    per cause.
#}
{%- set actions = [
    'retire_challenge', 'fix_tests', 'fix_rubric', 'fix_briefing', 'inspect_new_family',
    'rebalance_combinations', 'rewrite_challenge', 'watch', 'confirm_fix', 'collect_attempts'
] %}
{%- set producers = challenge_fairness.evidence_producers() %}
{#- The columns every finding has, in one order (the family findings and the others). -#}
{%- set finding_columns = [
    'challenge_id', 'detector', 'finding_id', 'model_family', 'effect', 'effect_unit',
    'ci_low', 'ci_high', 'q_value', 'threshold', 'evidence', 'recommended_action',
    'action_reason', 'cause_id', 'cause',
] %}
{%- set action_whens = [] %}
{%- for action in actions %}
{%- do action_whens.append("when '" ~ action ~ "' then " ~ loop.index) %}
{%- endfor %}
{%- set action_precedence = 'case recommended_action ' ~ (action_whens | join(' ')) ~ ' end' %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

verdict_history as (
    select * from {{ ref('fct_challenge_verdict_history') }}
),

verdicts as (
    select * from {{ ref('fct_challenge_verdicts') }}
),

family_effects as (
    select * from {{ ref('fct_family_adjusted_effects') }}
),

experiments as (
    select * from {{ ref('fct_experiment_results') }}
),

{% for producer in producers %}
{{ producer['name'] }}_findings as (
    {{ adapter.dispatch(producer['name'] ~ '_findings', 'challenge_fairness')() | indent(4) }}
),

{% endfor -%}

cause_findings_unioned as (
    {%- for producer in producers %}
    select * from {{ producer['name'] }}_findings
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

{#- The root cause each finding belongs to (one review-queue item per cause): the flagged
    unit of its detector, which may span challenges (an API, a briefing style of a template,
    a reference document, a pair of near-duplicate challenges, a variable combination). The
    item is the part of finding_id after `<challenge_id>/`. #}
causes_identified as (
    select
        cause_findings_unioned.*,
        substr(
            cause_findings_unioned.finding_id, length(cause_findings_unioned.challenge_id) + 2
        ) as finding_item,
        challenges.template_id as finding_template_id
    from cause_findings_unioned
    left join challenges
        on cause_findings_unioned.challenge_id = challenges.challenge_id
),

causes_named as (
    select
        * exclude (finding_item, finding_template_id),
        case detector
            {%- for producer in producers if producer['evidence'].get('cause_id') %}
            when '{{ producer['name'] }}' then {{ producer['evidence']['cause_id'] }}
            {%- endfor %}
            else detector || ':' || challenge_id
        end as cause_id,
        case detector
            {%- for producer in producers %}
            when '{{ producer['name'] }}' then {{ producer['evidence']['cause'] }}
            {%- endfor %}
        end as cause
    from causes_identified
),

ranked_causes as (
    select
        *,
        {{ action_precedence }} as action_precedence,
        {#- findings that can explain a family bias on the same challenge: they name the
            family, or act on families unequally without naming one (memorised code or API,
            an approach families choose at different rates) #}
        detector in (
            {%- for producer in producers if producer['evidence'].get('explains_family_bias') %}
            '{{ producer['name'] }}'{{ ',' if not loop.last }}
            {%- endfor %}
        ) as can_explain_family_bias
    from causes_named
),

flagged_family_effects as (
    select
        family_effects.*,
        verdicts.q_value as challenge_q_value
    from family_effects
    inner join verdicts
        on family_effects.challenge_id = verdicts.challenge_id
    where family_effects.is_flagged
        and verdicts.verdict = 'flagged'
),

family_causes as (
    select
        flagged_family_effects.challenge_id,
        flagged_family_effects.model_family,
        ranked_causes.detector as cause_detector,
        ranked_causes.finding_id as cause_finding_id,
        ranked_causes.cause_id,
        ranked_causes.cause,
        ranked_causes.recommended_action as cause_action,
        ranked_causes.action_reason as cause_action_reason,
        row_number() over (
            partition by flagged_family_effects.challenge_id, flagged_family_effects.model_family
            order by
                ranked_causes.action_precedence, ranked_causes.detector,
                ranked_causes.finding_id
        ) as cause_rank
    from flagged_family_effects
    inner join ranked_causes
        on flagged_family_effects.challenge_id = ranked_causes.challenge_id
        and ranked_causes.can_explain_family_bias
        and (
            ranked_causes.model_family is null
            or flagged_family_effects.model_family = ranked_causes.model_family
        )
),

{#- A successful A/B experiment whose arm A is this challenge: its arm B is the fairer
    replacement. #}
replacing_experiments as (
    select
        challenges.challenge_id,
        experiments.experiment_id,
        experiments.arm_b_challenges
    from challenges
    inner join experiments
        on challenges.experiment_id = experiments.experiment_id
    where challenges.experiment_arm = 'A'
        and experiments.verdict = 'success'
),

{#- Challenges fixed and holding: their latest fix comes after their latest flagged window. #}
holding_fixes as (
    select
        challenge_id,
        max(window_start) filter (where is_fixed) as fixed_in_window
    from verdict_history
    group by challenge_id
    having max(window_start) filter (where is_fixed)
        > coalesce(max(window_start) filter (where verdict = 'flagged'), date '0001-01-01')
),

{#- A bias that began when a family arrived: the challenge passed, then a window in which
    the flagged family attempted it for the first time flagged it for that family. #}
arrival_drifts as (
    select
        challenge_id,
        changed_family as model_family,
        max(window_start) as began_in_window
    from verdict_history
    where is_drift
        and ',' || new_families || ',' like '%,' || changed_family || ',%'
    group by challenge_id, changed_family
),

family_findings as (
    select
        flagged_family_effects.challenge_id,
        'family_verdict' as detector,
        flagged_family_effects.challenge_id || '/' || flagged_family_effects.model_family
            as finding_id,
        flagged_family_effects.model_family,
        flagged_family_effects.adjusted_deviation as effect,
        'points against the other families, ability-adjusted' as effect_unit,
        flagged_family_effects.ci_low,
        flagged_family_effects.ci_high,
        flagged_family_effects.challenge_q_value as q_value,
        cast({{ var('family_deviation_threshold') }} as double) as threshold,
        'family ' || flagged_family_effects.model_family || ' scores '
        || {{ format_number('flagged_family_effects.adjusted_deviation', '%+.1f') }}
        || ' points against the other families beyond what its ability elsewhere predicts ('
        || {{ format_number('100 * flagged_family_effects.interval_level', '%.0f') }}
        || '% CI ' || {{ format_number('flagged_family_effects.ci_low', '%+.1f') }} || ' to '
        || {{ format_number('flagged_family_effects.ci_high', '%+.1f') }} || '; challenge q = '
        || {{ format_number('flagged_family_effects.challenge_q_value', '%.2g') }}
        || '; threshold {{ var("family_deviation_threshold") }} points)' as evidence,
        case
            when holding_fixes.challenge_id is null and family_causes.cause_id is not null
                then family_causes.cause_id
            else 'family_bias:' || flagged_family_effects.challenge_id
        end as cause_id,
        case
            when holding_fixes.challenge_id is not null
                then 'family bias on ' || flagged_family_effects.challenge_id || ', fixed since '
                    || cast(holding_fixes.fixed_in_window as varchar)
            when family_causes.cause is not null then family_causes.cause
            when arrival_drifts.challenge_id is not null
                then 'family bias on ' || flagged_family_effects.challenge_id
                    || ' since family ' || flagged_family_effects.model_family || ' arrived ('
                    || cast(arrival_drifts.began_in_window as varchar) || ')'
            when replacing_experiments.experiment_id is not null
                then 'family bias on ' || flagged_family_effects.challenge_id || '; experiment '
                    || replacing_experiments.experiment_id || ' found its arm B ('
                    || replacing_experiments.arm_b_challenges || ') fairer'
            else 'family bias on ' || flagged_family_effects.challenge_id
                || ' that no detector explains'
        end as cause,
        case
            when holding_fixes.challenge_id is not null then 'confirm_fix'
            when family_causes.cause_detector = 'api_memorization' then 'retire_challenge'
            when family_causes.cause_action is not null then family_causes.cause_action
            when arrival_drifts.challenge_id is not null then 'inspect_new_family'
            else 'retire_challenge'
        end as recommended_action,
        case
            when holding_fixes.challenge_id is not null
                then
                    'the bias is gone since the window of '
                    || cast(holding_fixes.fixed_in_window as varchar)
                    || ' (fct_challenge_verdict_history: pass in every decided window since);'
                    || ' the all-time verdict still counts the earlier, biased attempts: confirm'
                    || ' the change that fixed it and re-baseline'
            when family_causes.cause_detector = 'api_memorization'
                then
                    'this challenge''s own verdict flags family '
                    || flagged_family_effects.model_family
                    || ' and its API is memorised (' || family_causes.cause_finding_id
                    || '): memorised content cannot be un-memorised; retire the challenge'
            when family_causes.cause_action is not null
                then
                    'the family bias is attributed to the ' || family_causes.cause_detector
                    || ' finding ' || family_causes.cause_finding_id || ' on this challenge: '
                    || family_causes.cause_action_reason
            when arrival_drifts.challenge_id is not null
                then
                    'the bias began in the window of '
                    || cast(arrival_drifts.began_in_window as varchar)
                    || ', when family ' || flagged_family_effects.model_family || ' first attempted'
                    || ' this challenge (it passed before: fct_challenge_verdict_history): check '
                    || flagged_family_effects.model_family || '''s attempts (harness, tools, output'
                    || ' format) before changing the challenge; if they are sound, the challenge'
                    || case when flagged_family_effects.adjusted_deviation > 0 then ' favours '
                        else ' penalises '
                    end
                    || flagged_family_effects.model_family || ': rewrite it, or retire it if no'
                    || ' cause is found'
            when replacing_experiments.experiment_id is not null
                then
                    'family bias that no detector attributes to the tests, briefing or rubric, but'
                    || ' experiment ' || replacing_experiments.experiment_id || ' found its arm B ('
                    || replacing_experiments.arm_b_challenges || ') fairer: retire this challenge'
                    || ' in favour of arm B'
            else
                'family bias that no detector attributes to the tests, briefing or rubric:'
                || ' inspect, and retire if no cause is found'
        end as action_reason
    from flagged_family_effects
    left join family_causes
        on flagged_family_effects.challenge_id = family_causes.challenge_id
        and flagged_family_effects.model_family = family_causes.model_family
        and family_causes.cause_rank = 1
    left join replacing_experiments
        on flagged_family_effects.challenge_id = replacing_experiments.challenge_id
    left join holding_fixes
        on flagged_family_effects.challenge_id = holding_fixes.challenge_id
    left join arrival_drifts
        on flagged_family_effects.challenge_id = arrival_drifts.challenge_id
        and flagged_family_effects.model_family = arrival_drifts.model_family
),

findings_unioned as (
    select
        {{ finding_columns | join(',\n        ') }}
    from family_findings
    union all
    select
        {{ finding_columns | join(',\n        ') }}
    from ranked_causes
),

prioritised as (
    select
        findings_unioned.*,
        challenges.template_id,
        {{ action_precedence }} as action_precedence,
        case
            when findings_unioned.threshold > 0
                then abs(findings_unioned.effect) / findings_unioned.threshold
        end as severity,
        coalesce(verdicts.attempts, 0) as challenge_attempts
    from findings_unioned
    left join challenges
        on findings_unioned.challenge_id = challenges.challenge_id
    left join verdicts
        on findings_unioned.challenge_id = verdicts.challenge_id
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(detector as varchar) as detector,
    cast(finding_id as varchar) as finding_id,
    cast(model_family as varchar) as model_family,
    cast(effect as double) as effect,
    cast(effect_unit as varchar) as effect_unit,
    cast(ci_low as double) as ci_low,
    cast(ci_high as double) as ci_high,
    cast(q_value as double) as q_value,
    cast(threshold as double) as threshold,
    cast(severity as double) as severity,
    cast(evidence as varchar) as evidence,
    cast(recommended_action as varchar) as recommended_action,
    cast(action_precedence as bigint) as action_precedence,
    cast(action_reason as varchar) as action_reason,
    cast(cause_id as varchar) as cause_id,
    cast(cause as varchar) as cause,
    cast(challenge_attempts as bigint) as challenge_attempts
from prioritised
