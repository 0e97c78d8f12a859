{#
    One row per current (all-time) finding of every detector that flags something, in one
    shape: which challenge, which detector, the effect with its unit, interval, q and
    threshold where the detector has them, one sentence of evidence, and the recommended
    action with its reason in words.

    F6 findings are in: rubric-item DIF -> fix_rubric, locale-specific competitive briefings
    and undefined regulated-domain terms -> fix_briefing. Adding a detector: add an import CTE, one `<detector>_findings` CTE with the columns of
    `briefing_style_findings` below, a line in `cause_findings_unioned`, and its name in
    `can_explain_family_bias` when it can explain a family bias on the same challenge.

    Action precedence (1 decides first, see action_precedence):
    1 retire_challenge: memorised content cannot be un-memorised, so fixing anything else
      on a memorised or duplicated challenge is wasted work; also a flagged family bias
      (the challenge's own evidence) that no detector explains;
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
{%- set action_precedence -%}
    case recommended_action
        {%- for action in actions %} when '{{ action }}' then {{ loop.index }}{% endfor %}
    end
{%- endset %}
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

attempts_needed as (
    select * from {{ ref('fct_challenge_attempts_needed') }}
),

family_effects as (
    select * from {{ ref('fct_family_adjusted_effects') }}
),

briefing_styles as (
    select * from {{ ref('fct_briefing_style_sensitivity') }}
),

test_cases as (
    select * from {{ ref('fct_test_case_bias') }}
),

test_case_families as (
    select * from {{ ref('fct_test_case_family_dif') }}
),

approach_pairs as (
    select * from {{ ref('fct_approach_bias') }}
),

apis as (
    select * from {{ ref('fct_api_memorization') }}
),

api_challenges as (
    select * from {{ ref('fct_api_memorization_challenges') }}
),

contaminated_challenges as (
    select * from {{ ref('fct_challenge_contamination') }}
),

instance_overlaps as (
    select * from {{ ref('fct_challenge_instance_overlap') }}
),

unicode_coverage as (
    select * from {{ ref('fct_string_challenge_unicode_coverage') }}
),

combinations as (
    select * from {{ ref('fct_combination_difficulty') }}
),

experiments as (
    select * from {{ ref('fct_experiment_results') }}
),

rubric_items as (
    select * from {{ ref('fct_rubric_item_bias') }}
),

rubric_item_families as (
    select * from {{ ref('int_rubric_item_family_dif') }}
),

locale_findings as (
    select * from {{ ref('fct_briefing_locale_findings') }}
),

domain_assumptions as (
    select * from {{ ref('fct_briefing_domain_assumptions') }}
),

{#- Briefing style: a flagged content points at the briefings of its styles other than the
    recommended one (all of them when no style is recommended). #}
briefing_style_findings as (
    select
        challenges.challenge_id,
        'briefing_style_sensitivity' as detector,
        challenges.challenge_id || '/' || briefing_styles.briefing_style as finding_id,
        briefing_styles.most_affected_family as model_family,
        briefing_styles.max_family_effect_change as effect,
        'points of change in the family effect across briefing styles' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        briefing_styles.q_value,
        cast({{ var('briefing_style_threshold') }} as double) as threshold,
        'in briefing style ' || briefing_styles.briefing_style || ', family '
            || briefing_styles.most_affected_family || ' fares differently: its effect against'
            || ' the other families changes by '
            || {{ format_number('briefing_styles.max_family_effect_change', '%.1f') }}
            || ' points across the styles of this content (template '
            || briefing_styles.template_id || ' ' || briefing_styles.variable_combination
            || '; family x style interaction q = '
            || {{ format_number('briefing_styles.q_value', '%.2g') }}
            || '; threshold {{ var("briefing_style_threshold") }} points)' as evidence,
        'fix_briefing' as recommended_action,
        'the briefing format, not the task, moves a family''s result: rewrite this briefing ('
            || briefing_styles.briefing_style || ') in the style '
            || coalesce(briefing_styles.recommended_style, 'with the lowest cross-family variance')
            || case
                when briefing_styles.recommended_style is not null
                    then ', which has the lowest cross-family variance'
                else ''
            end as action_reason
    from briefing_styles
    inner join challenges
        on briefing_styles.template_id = challenges.template_id
        and briefing_styles.variable_combination = challenges.variable_combination
        and briefing_styles.briefing_style = challenges.briefing_style
    where briefing_styles.is_flagged
        and not briefing_styles.is_recommended_style
),

test_case_findings as (
    select
        test_cases.challenge_id,
        'test_case_bias' as detector,
        test_cases.challenge_id || '/' || test_cases.test_case_id as finding_id,
        test_cases.lead_family as model_family,
        test_cases.lead_d_dif as effect,
        'MH D-DIF (ETS delta scale; negative = the family passes less often)' as effect_unit,
        lead_family_dif.d_dif_ci_low as ci_low,
        lead_family_dif.d_dif_ci_high as ci_high,
        test_cases.gcmh_q_value as q_value,
        cast({{ var('dif_large_d_dif') }} as double) as threshold,
        'test case ' || test_cases.test_case_id || ': ' || test_cases.reason as evidence,
        'fix_tests' as recommended_action,
        'test case ' || test_cases.test_case_id || ' is passed at different rates by families'
            || ' whose attempts are equally good (differential item functioning): it likely'
            || ' checks names or formats rather than behaviour; rewrite it to test behaviour'
            as action_reason
    from test_cases
    left join test_case_families as lead_family_dif
        on test_cases.test_case_id = lead_family_dif.test_case_id
        and test_cases.lead_family = lead_family_dif.model_family
    where test_cases.is_review_recommended
),

approach_findings as (
    select
        challenge_id,
        'approach_bias' as detector,
        challenge_id || '/' || approach_a || ' vs ' || approach_b as finding_id,
        cast(null as varchar) as model_family,
        stratified_gap as effect,
        'points (approach_a minus approach_b, within model families)' as effect_unit,
        ci_low,
        ci_high,
        q_value,
        gap_threshold as threshold,
        'approach ' || approach_a || ' scores '
            || {{ format_number('stratified_gap', '%+.1f') }} || ' points against '
            || approach_b || ' within model families ('
            || {{ format_number('100 * interval_level', '%.0f') }} || '% CI '
            || {{ format_number('ci_low', '%+.1f') }} || ' to '
            || {{ format_number('ci_high', '%+.1f') }} || '; naive gap '
            || {{ format_number('naive_gap', '%+.1f') }} || '; q = '
            || {{ format_number('q_value', '%.2g') }} || '; threshold '
            || {{ format_number('gap_threshold', '%g') }} || ' points)' as evidence,
        'fix_tests' as recommended_action,
        'two solution approaches are scored differently among comparable attempts: the tests'
            || ' or scorer reward '
            || case when stratified_gap > 0 then approach_a else approach_b end
            || ' over the equally valid '
            || case when stratified_gap > 0 then approach_b else approach_a end
            || '; make them accept both (families prefer different approaches)' as action_reason
    from approach_pairs
    where is_flagged
),

{#- API memorisation: the API is the flagged unit; every challenge tagged with it inherits
    the finding, with its own (uncorrected) slope in the evidence. #}
api_findings as (
    select
        api_challenges.challenge_id,
        'api_memorization' as detector,
        api_challenges.challenge_id || '/' || apis.tag as finding_id,
        cast(null as varchar) as model_family,
        apis.slope_difference as effect,
        'points per year of training cutoff beyond the control trend (API level)' as effect_unit,
        apis.ci_low,
        apis.ci_high,
        apis.q_value,
        apis.slope_threshold as threshold,
        'tagged ' || apis.tag || ': scores on the API''s challenges rise '
            || {{ format_number('apis.slope_difference', '%+.2f') }}
            || ' points per year of training cutoff beyond the control trend ('
            || {{ format_number('100 * apis.interval_level', '%.0f') }} || '% CI '
            || {{ format_number('apis.ci_low', '%+.2f') }} || ' to '
            || {{ format_number('apis.ci_high', '%+.2f') }} || ', q = '
            || {{ format_number('apis.q_value', '%.2g') }} || '; threshold '
            || {{ format_number('apis.slope_threshold', '%g') }} || ')'
            || coalesce(
                '; this challenge alone: '
                || {{ format_number('api_challenges.slope_difference', '%+.2f') }},
                ''
            ) as evidence,
        case
            when api_challenges.ci_low > apis.slope_threshold then 'rewrite_challenge'
            else 'watch'
        end as recommended_action,
        case
            when api_challenges.ci_low > apis.slope_threshold then
                'newer models have memorised ' || apis.tag || ' (scores on its challenges rise'
                || ' with training cutoff beyond their general progress) and this challenge''s'
                || ' own slope is beyond the threshold with confidence (CI from '
                || {{ format_number('api_challenges.ci_low', '%+.2f') }} || '): rewrite it so'
                || ' it does not reward recall of the API (a platform-level trend on a passing'
                || ' challenge is no reason to retire it)'
            else
                'a platform-level trend: newer models do better on ' || apis.tag || '''s'
                || ' challenges, but this challenge''s own slope'
                || coalesce(' (CI ' || {{ format_number('api_challenges.ci_low', '%+.2f') }}
                    || ' to ' || {{ format_number('api_challenges.ci_high', '%+.2f') }} || ')', '')
                || ' does not show it beyond the threshold with confidence: watch it in the'
                || ' next scans'
        end as action_reason
    from apis
    inner join api_challenges
        on apis.api_name = api_challenges.api_name
    where apis.is_flagged
),

contamination_findings as (
    {#- A challenge is flagged by whole-text similarity or by one file's containment: the
        effect is the measure of the rule that fired (similarity when both did). #}
    select
        challenge_id,
        'challenge_contamination' as detector,
        challenge_id || '/' || coalesce(
            case when flag_rule = 'containment' then containment_document_id end,
            best_document_id
        ) as finding_id,
        cast(null as varchar) as model_family,
        case when flag_rule = 'containment' then containment else similarity end as effect,
        case
            when flag_rule = 'containment'
                then 'containment: share of one text''s token shingles found in the other'
            else 'Jaccard similarity of token shingles'
        end as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        case
            when flag_rule = 'containment' then containment_threshold else similarity_threshold
        end as threshold,
        case
            when flag_rule = 'containment'
                then case
                    when containment_direction = 'document_in_file'
                        then 'reference document ' || containment_document_id
                            || ' is contained in file ' || containment_file_path
                    else 'file ' || containment_file_path
                        || ' is contained in reference document ' || containment_document_id
                end
                    || ' (containment ' || {{ format_number('containment', '%.2f') }}
                    || '; threshold ' || {{ format_number('containment_threshold', '%g') }}
                    || '; whole-text similarity '
                    || coalesce({{ format_number('similarity', '%.2f') }}, 'n/a') || ')'
            else 'file ' || best_file_path || ' matches reference document ' || best_document_id
                || coalesce(' (' || best_document_source || ')', '') || ' with similarity '
                || {{ format_number('similarity', '%.2f') }} || ' (' || match_level
                || ' match; threshold ' || {{ format_number('similarity_threshold', '%g') }} || ')'
        end as evidence,
        'retire_challenge' as recommended_action,
        'its code is public (in the reference corpus), so models trained on it may have'
            || ' memorised it: memorised content cannot be un-memorised; retire the challenge'
            || ' and replace it with fresh code' as action_reason
    from contaminated_challenges
    where is_flagged
),

{#- Undecided verdicts: the plan that would settle them (fct_challenge_attempts_needed,
    all-time). Not a bias: the challenge's own evidence is too thin to tell, so the action
    is to collect attempts, ranked after every bias, trend and fix. #}
attempts_needed_findings as (
    select
        challenge_id,
        'attempts_needed' as detector,
        challenge_id || '/attempts_needed' as finding_id,
        cast(null as varchar) as model_family,
        cast(max(challenge_additional_attempts) as double) as effect,
        'more scored attempts (all families topped up to the challenge plan)' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(null as double) as threshold,
        string_agg(
            recommendation, '; '
            order by additional_family_attempts desc nulls last, model_family
        ) as evidence,
        'collect_attempts' as recommended_action,
        'the verdict is insufficient evidence ('
            || max(eligibility) || '): collect about '
            || coalesce(cast(max(challenge_additional_attempts) as varchar), 'more')
            || ' more scored attempts in all (every family topped up to about '
            || coalesce(cast(max(challenge_plan_family_attempts) as varchar), '?')
            || ') to detect a ' || {{ format_number('max(detectable_shift)', '%g') }}
            || '-point bias with ' || {{ format_number('100 * max(target_power)', '%.0f') }}
            || '% power' as action_reason
    from attempts_needed
    where verdict_window = 'all' and recommendation is not null
    group by challenge_id
),

{#- Instance overlap: one finding per challenge of the pair. #}
instance_overlap_sides as (
    select challenge_a as challenge_id, challenge_b as other_challenge_id, *
    from instance_overlaps
    union all
    select challenge_b as challenge_id, challenge_a as other_challenge_id, *
    from instance_overlaps
),

instance_overlap_findings as (
    select
        challenge_id,
        'challenge_instance_overlap' as detector,
        challenge_id || '/' || other_challenge_id as finding_id,
        cast(null as varchar) as model_family,
        case when flag_rule = 'containment' then containment else similarity end as effect,
        case
            when flag_rule = 'containment'
                then 'containment: share of one file''s token shingles found in the other codebase'
            else 'Jaccard similarity of token shingles'
        end as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        case
            when flag_rule = 'containment' then containment_threshold else similarity_threshold
        end as threshold,
        case
            when flag_rule = 'containment'
                then 'it shares a file with ' || other_challenge_id || ': '
                    || contained_challenge_id || '''s ' || contained_file_path
                    || ' is contained in ' || containing_file_path || ' (containment '
                    || {{ format_number('containment', '%.2f') }} || '; threshold '
                    || {{ format_number('containment_threshold', '%g') }}
                    || '; whole-codebase similarity '
                    || {{ format_number('similarity', '%.2f') }}
                    || case when is_same_template then ', same template' else '' end || ')'
            else 'its codebase is a near-duplicate of ' || other_challenge_id || '''s (similarity '
                || {{ format_number('similarity', '%.2f') }} || ', ' || match_level || ' match'
                || case when is_same_template then ', same template' else '' end
                || '; threshold ' || {{ format_number('similarity_threshold', '%g') }} || ')'
        end as evidence,
        'retire_challenge' as recommended_action,
        'it shares its code with ' || other_challenge_id || ': an agent that has seen one has'
            || ' seen the other, and that cannot be undone; retire one of the two (or'
            || ' regenerate its codebase)' as action_reason
    from instance_overlap_sides
),

unicode_findings as (
    select
        challenge_id,
        'unicode_coverage' as detector,
        challenge_id || '/' || {{ sql_string_literal(var("unicode_coverage_tag")) }} as finding_id,
        cast(null as varchar) as model_family,
        cast(required_categories - covered_category_count as double) as effect,
        'Unicode input categories missing from the test inputs' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(0 as double) as threshold,
        'Unicode coverage of its test inputs: ' || reason as evidence,
        'fix_tests' as recommended_action,
        'a ' || {{ sql_string_literal(var("unicode_coverage_tag")) }} || ' challenge must test every Unicode category and'
            || ' its tests do not: add test inputs for the missing categories' as action_reason
    from unicode_coverage
    where not is_fully_covered
),

combination_findings as (
    select
        challenges.challenge_id,
        'combination_difficulty' as detector,
        challenges.challenge_id || '/' || combinations.variable_combination as finding_id,
        cast(null as varchar) as model_family,
        combinations.deviation as effect,
        'points against the template mean (negative = harder)' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast({{ var('combination_deviation_threshold') }} as double) as threshold,
        'its variable combination ' || combinations.variable_combination || ' scores '
            || {{ format_number('combinations.deviation', '%+.1f') }} || ' points against the'
            || ' mean of template ' || combinations.template_id || '''s '
            || combinations.template_combinations || ' combinations ('
            || combinations.attempts || ' attempts; threshold '
            || '{{ var("combination_deviation_threshold") }} points)' as evidence,
        'rebalance_combinations' as recommended_action,
        'the challenge is '
            || case when combinations.deviation < 0 then 'harder' else 'easier' end
            || ' than the other combinations of its template, so agents that draw it are'
            || case when combinations.deviation < 0 then ' penalised' else ' favoured' end
            || ': rebalance the template''s combinations (difficulty tiers, adjusted scores or'
            || ' pools of equivalent combinations)' as action_reason
    from combinations
    inner join challenges
        on combinations.template_id = challenges.template_id
        and combinations.variable_combination = challenges.variable_combination
    where combinations.is_flagged
),

{#- F6 audit: rubric-item DIF, locale-specific briefings, undefined regulated-domain terms. #}
rubric_findings as (
    select
        rubric_items.challenge_id,
        'rubric_item_bias' as detector,
        rubric_items.challenge_id || '/' || rubric_items.rubric_item_id as finding_id,
        rubric_items.lead_family as model_family,
        rubric_items.lead_d_dif as effect,
        'MH D-DIF (ETS delta scale; negative = the family earns the item less often)'
            as effect_unit,
        lead_family_dif.d_dif_ci_low as ci_low,
        lead_family_dif.d_dif_ci_high as ci_high,
        rubric_items.gcmh_q_value as q_value,
        cast({{ var('dif_large_d_dif') }} as double) as threshold,
        'rubric item ' || rubric_items.rubric_item_id || ' ("' || rubric_items.description
            || '"): ' || rubric_items.reason as evidence,
        'fix_rubric' as recommended_action,
        'rubric item ' || rubric_items.rubric_item_id || ' is earned at different rates by'
            || ' families whose attempts are equally good: it rewards a style rather than the'
            || ' result; reword it'
            || coalesce(' (suggested: ' || rubric_items.suggested_rewording || ')', '')
            as action_reason
    from rubric_items
    left join rubric_item_families as lead_family_dif
        on rubric_items.rubric_item_id = lead_family_dif.rubric_item_id
        and rubric_items.lead_family = lead_family_dif.model_family
    where rubric_items.is_flagged
),

locale_briefing_findings as (
    select
        challenge_id,
        'briefing_locale' as detector,
        challenge_id || '/' || rule_id || ':' || match_position as finding_id,
        cast(null as varchar) as model_family,
        cast(null as double) as effect,
        cast(null as varchar) as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(null as double) as threshold,
        'its briefing assumes a locale: "' || matched_text || '" (' || rule_description
            || ') in a competitive challenge, not reviewed' as evidence,
        'fix_briefing' as recommended_action,
        'a competitive briefing must not assume a locale: replace "' || matched_text
            || '" with ' || coalesce(suggested_neutral_form, 'a locale-neutral form')
            as action_reason
    from locale_findings
    where needs_review
),

domain_assumption_findings as (
    select
        challenge_id,
        'briefing_domain_assumptions' as detector,
        challenge_id || '/' || term_id as finding_id,
        cast(null as varchar) as model_family,
        cast(null as double) as effect,
        cast(null as varchar) as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(null as double) as threshold,
        reason as evidence,
        'fix_briefing' as recommended_action,
        'the briefing relies on ' || domain || ' knowledge ("' || matched_text
            || '") without stating the requirement: state it in the briefing' as action_reason
    from domain_assumptions
    where is_flagged
),

cause_findings_unioned as (
    select * from briefing_style_findings
    union all
    select * from test_case_findings
    union all
    select * from approach_findings
    union all
    select * from api_findings
    union all
    select * from contamination_findings
    union all
    select * from instance_overlap_findings
    union all
    select * from unicode_findings
    union all
    select * from combination_findings
    union all
    select * from rubric_findings
    union all
    select * from locale_briefing_findings
    union all
    select * from domain_assumption_findings
    union all
    select * from attempts_needed_findings
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
            when 'briefing_style_sensitivity'
                then 'briefing_style:' || finding_template_id || '/' || finding_item
            when 'test_case_bias' then 'test_case:' || finding_item
            when 'rubric_item_bias' then 'rubric_item:' || finding_item
            when 'approach_bias' then 'approach:' || finding_id
            when 'api_memorization' then finding_item
            when 'challenge_contamination' then 'reference_document:' || finding_item
            when 'challenge_instance_overlap'
                then 'instance_overlap:' || least(challenge_id, finding_item) || '/'
                    || greatest(challenge_id, finding_item)
            when 'combination_difficulty'
                then 'combination:' || finding_template_id || '/' || finding_item
            else detector || ':' || challenge_id
        end as cause_id,
        case detector
            when 'briefing_style_sensitivity'
                then 'briefing style ' || finding_item || ' of template ' || finding_template_id
                    || ' moves a family''s result'
            when 'test_case_bias' then 'test case ' || finding_item || ' functions differently by family'
            when 'rubric_item_bias' then 'rubric item ' || finding_item || ' functions differently by family'
            when 'approach_bias'
                then 'approaches ' || finding_item || ' scored differently on ' || challenge_id
            when 'api_memorization' then 'newer models memorised ' || finding_item
            when 'challenge_contamination'
                then 'code public in reference document ' || finding_item
            when 'challenge_instance_overlap'
                then 'shared code of ' || least(challenge_id, finding_item) || ' and '
                    || greatest(challenge_id, finding_item)
            when 'combination_difficulty'
                then 'variable combination ' || finding_item || ' of template '
                    || finding_template_id || ' is off the template''s difficulty'
            when 'unicode_coverage' then 'tests of ' || challenge_id || ' miss Unicode categories'
            when 'briefing_locale' then 'briefing of ' || challenge_id || ' assumes a locale'
            when 'briefing_domain_assumptions'
                then 'briefing of ' || challenge_id || ' relies on unstated domain knowledge'
            when 'attempts_needed'
                then 'verdict on ' || challenge_id || ' undecided: too few attempts'
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
            'briefing_style_sensitivity',
            'test_case_bias',
            'rubric_item_bias',
            'approach_bias',
            'api_memorization',
            'challenge_contamination'
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
            order by ranked_causes.action_precedence, ranked_causes.detector,
                ranked_causes.finding_id
        ) as cause_rank
    from flagged_family_effects
    inner join ranked_causes
        on flagged_family_effects.challenge_id = ranked_causes.challenge_id
        and ranked_causes.can_explain_family_bias
        and (
            ranked_causes.model_family is null
            or ranked_causes.model_family = flagged_family_effects.model_family
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
            when holding_fixes.challenge_id is not null then
                'the bias is gone since the window of '
                || cast(holding_fixes.fixed_in_window as varchar)
                || ' (fct_challenge_verdict_history: pass in every decided window since);'
                || ' the all-time verdict still counts the earlier, biased attempts: confirm'
                || ' the change that fixed it and re-baseline'
            when family_causes.cause_detector = 'api_memorization' then
                'this challenge''s own verdict flags family ' || flagged_family_effects.model_family
                || ' and its API is memorised (' || family_causes.cause_finding_id
                || '): memorised content cannot be un-memorised; retire the challenge'
            when family_causes.cause_action is not null then
                'the family bias is attributed to the ' || family_causes.cause_detector
                || ' finding ' || family_causes.cause_finding_id || ' on this challenge: '
                || family_causes.cause_action_reason
            when arrival_drifts.challenge_id is not null then
                'the bias began in the window of ' || cast(arrival_drifts.began_in_window as varchar)
                || ', when family ' || flagged_family_effects.model_family || ' first attempted'
                || ' this challenge (it passed before: fct_challenge_verdict_history): check '
                || flagged_family_effects.model_family || '''s attempts (harness, tools, output'
                || ' format) before changing the challenge; if they are sound, the challenge'
                || case when flagged_family_effects.adjusted_deviation > 0 then ' favours '
                    else ' penalises ' end
                || flagged_family_effects.model_family || ': rewrite it, or retire it if no'
                || ' cause is found'
            when replacing_experiments.experiment_id is not null then
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
        challenge_id, detector, finding_id, model_family, effect, effect_unit, ci_low, ci_high,
        q_value, threshold, evidence, recommended_action, action_reason, cause_id, cause
    from family_findings
    union all
    select
        challenge_id, detector, finding_id, model_family, effect, effect_unit, ci_low, ci_high,
        q_value, threshold, evidence, recommended_action, action_reason, cause_id, cause
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
