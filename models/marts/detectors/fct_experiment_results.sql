{%- set alpha = var('alpha') %}
{%- set min_reduction = var('ab_min_variance_reduction') %}
{%- set max_mean_change = var('ab_max_mean_change') %}
{%- set margin = var('ab_discrimination_margin') %}
with

experiments_tested as (
    select * from {{ ref('int_experiments_tested') }}
),

criteria as (
    select
        experiment_id,
        arm_a_challenges,
        arm_b_challenges,
        arm_a_attempts,
        arm_b_attempts,
        coalesce(variance_test.families, 0) as families,
        arm_a_mean_score,
        arm_b_mean_score,
        mean_test.difference as mean_change,
        mean_test.ci_low as mean_change_ci_low,
        mean_test.ci_high as mean_change_ci_high,
        mean_test.p_value as mean_change_tost_p_value,
        case
            when mean_test.difference is null then 'not_computable'
            when mean_test.ci_low > -{{ max_mean_change }}
                and mean_test.ci_high < {{ max_mean_change }} then 'pass'
            when mean_test.ci_low > {{ max_mean_change }}
                or mean_test.ci_high < -{{ max_mean_change }} then 'fail'
            else 'inconclusive'
        end as mean_change_status,
        variance_test.variance_a as arm_a_family_variance,
        variance_test.variance_b as arm_b_family_variance,
        variance_test.reduction as variance_reduction,
        variance_test.ci_low as variance_reduction_ci_low,
        variance_test.ci_high as variance_reduction_ci_high,
        case
            when variance_test.reduction is null then 'not_computable'
            when variance_test.ci_low > {{ min_reduction }} then 'pass'
            when variance_test.ci_high < {{ min_reduction }} then 'fail'
            else 'inconclusive'
        end as variance_reduction_status,
        coalesce(
            variance_test.reason,
            'fewer than two families with at least {{ var("min_family_attempts") }}'
            || ' scored attempts (min_family_attempts) in both arms'
        ) as variance_missing_reason,
        arm_a_discrimination,
        arm_b_discrimination,
        discrimination_change,
        discrimination_change_se,
        discrimination_test.ci_low as discrimination_change_ci_low,
        discrimination_test.ci_high as discrimination_change_ci_high,
        discrimination_test.p_value as discrimination_noninferiority_p_value,
        case
            when discrimination_test.ci_low is null then 'not_computable'
            when discrimination_test.ci_low > -{{ margin }} then 'pass'
            when discrimination_test.ci_high < -{{ margin }} then 'fail'
            else 'inconclusive'
        end as discrimination_status,
        coalesce(discrimination_missing_reason, 'no standard error')
            as discrimination_missing_reason,
        1 - 2 * {{ alpha }} as interval_level
    from experiments_tested
),

described as (
    select
        *,
        case
            when mean_change_status = 'not_computable'
                then
                    'overall mean change not computable (fewer than two scored attempts in an arm,'
                    || ' or no variation)'
            else
                'overall mean ' || {{ format_number('mean_change', '%+.2f') }} || ' points ('
                || {{ format_number('100 * interval_level', '%.0f') }} || '% CI '
                || {{ format_number('mean_change_ci_low', '%+.2f') }} || ' to '
                || {{ format_number('mean_change_ci_high', '%+.2f') }} || ', TOST p = '
                || {{ format_number('mean_change_tost_p_value', '%.2g') }} || ') '
                || case mean_change_status
                    when 'pass' then 'within'
                    when 'fail' then 'beyond'
                    else 'not decidable against'
                end || ' +/-{{ max_mean_change }} (ab_max_mean_change)'
        end as mean_change_evidence,
        case
            when variance_reduction_status = 'not_computable'
                then
                    'cross-family variance reduction not computable: ' || variance_missing_reason
            else
                'cross-family variance of family means '
                || {{ format_number('arm_a_family_variance', '%.1f') }}
                || ' -> ' || {{ format_number('arm_b_family_variance', '%.1f') }} || ', reduction '
                || {{ format_number('100 * variance_reduction', '%.0f') }} || '% ('
                || {{ format_number('100 * interval_level', '%.0f') }} || '% CI '
                || {{ format_number('100 * variance_reduction_ci_low', '%.0f') }} || '% to '
                || {{ format_number('100 * variance_reduction_ci_high', '%.0f') }} || '%) '
                || case variance_reduction_status
                    when 'pass' then 'above'
                    when 'fail' then 'below'
                    else 'not decidable against'
                end || ' {{ '%g' | format(100 * min_reduction) }}% (ab_min_variance_reduction)'
        end as variance_evidence,
        case
            when discrimination_status = 'not_computable'
                then
                    'discrimination change not computable: ' || discrimination_missing_reason
            else
                'IRT discrimination '
                || {{ format_number('arm_a_discrimination', '%.2f') }}
                || ' -> '
                || {{ format_number('arm_b_discrimination', '%.2f') }} || ', change '
                || {{ format_number('discrimination_change', '%+.2f') }} || ' ('
                || {{ format_number('100 * interval_level', '%.0f') }} || '% CI '
                || {{ format_number('discrimination_change_ci_low', '%+.2f') }} || ' to '
                || {{ format_number('discrimination_change_ci_high', '%+.2f') }} || ') '
                || case discrimination_status
                    when 'pass' then 'rules out a decrease beyond'
                    when 'fail' then 'is a decrease beyond'
                    else 'cannot rule out a decrease beyond'
                end || ' {{ margin }} (ab_discrimination_margin)'
        end as discrimination_evidence
    from criteria
),

judged as (
    select
        *,
        case
            when arm_a_attempts = 0 or arm_b_attempts = 0 then 'not_testable'
            when 'fail' in (mean_change_status, variance_reduction_status, discrimination_status)
                then 'failure'
            when mean_change_status = 'pass'
                and variance_reduction_status = 'pass'
                and discrimination_status = 'pass' then 'success'
            else 'inconclusive'
        end as verdict
    from described
),

explained as (
    select
        *,
        case
            when verdict = 'not_testable'
                then
                    case
                        when arm_a_challenges is null then 'no challenge in arm A'
                        when arm_b_challenges is null then 'no challenge in arm B'
                        when
                            arm_a_attempts = 0
                            then 'no scored attempts in arm A (' || arm_a_challenges || ')'
                        else 'no scored attempts in arm B (' || arm_b_challenges || ')'
                    end
            else
                case verdict
                    when 'success' then 'every criterion passes: '
                    when 'failure' then 'a criterion fails with confidence: '
                    else 'not every criterion is decided: '
                end
                || mean_change_evidence || '; ' || variance_evidence || '; '
                || discrimination_evidence
        end as reason
    from judged
)

select
    cast(experiment_id as varchar) as experiment_id,
    cast(verdict as varchar) as verdict,
    cast(reason as varchar) as reason,
    cast(arm_a_challenges as varchar) as arm_a_challenges,
    cast(arm_b_challenges as varchar) as arm_b_challenges,
    cast(arm_a_attempts as bigint) as arm_a_attempts,
    cast(arm_b_attempts as bigint) as arm_b_attempts,
    cast(families as bigint) as families,
    cast(interval_level as double) as interval_level,
    cast(arm_a_mean_score as double) as arm_a_mean_score,
    cast(arm_b_mean_score as double) as arm_b_mean_score,
    cast(mean_change as double) as mean_change,
    cast(mean_change_ci_low as double) as mean_change_ci_low,
    cast(mean_change_ci_high as double) as mean_change_ci_high,
    cast(mean_change_tost_p_value as double) as mean_change_tost_p_value,
    cast(mean_change_status as varchar) as mean_change_status,
    cast(arm_a_family_variance as double) as arm_a_family_variance,
    cast(arm_b_family_variance as double) as arm_b_family_variance,
    cast(variance_reduction as double) as variance_reduction,
    cast(variance_reduction_ci_low as double) as variance_reduction_ci_low,
    cast(variance_reduction_ci_high as double) as variance_reduction_ci_high,
    cast(variance_reduction_status as varchar) as variance_reduction_status,
    cast(arm_a_discrimination as double) as arm_a_discrimination,
    cast(arm_b_discrimination as double) as arm_b_discrimination,
    cast(discrimination_change as double) as discrimination_change,
    cast(discrimination_change_se as double) as discrimination_change_se,
    cast(discrimination_change_ci_low as double) as discrimination_change_ci_low,
    cast(discrimination_change_ci_high as double) as discrimination_change_ci_high,
    cast(discrimination_noninferiority_p_value as double) as discrimination_noninferiority_p_value,
    cast(discrimination_status as varchar) as discrimination_status
from explained
