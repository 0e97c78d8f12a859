{#
    Built only when the optional `test_cases` table exists: without it there is nothing to
    judge, and the coverage row int_unicode_coverage_coverage says so.
#}
{%- set has_test_cases = source_table_exists('test_cases') %}
{%- set tag = var('unicode_coverage_tag') %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

test_cases as (
    select * from {{ ref('int_keyed__test_cases') }}
),

categories as (
    select * from {{ ref('unicode_input_categories') }}
),

string_challenges as (
    select challenge_id
    from challenges
    where {{ tags_contain('tags', sql_string_literal(tag)) }}
        and {{ 'true' if has_test_cases else 'false' }}
),

challenge_inputs as (
    select
        string_challenges.challenge_id,
        test_cases.test_case_id,
        test_cases.input_text
    from string_challenges
    inner join test_cases
        on string_challenges.challenge_id = test_cases.challenge_id
),

inputs_counted as (
    select
        challenge_id,
        count(*) as test_inputs
    from challenge_inputs
    group by challenge_id
),

categories_matched as (
    select
        challenge_inputs.challenge_id,
        categories.category,
        count(*) as matching_inputs
    from challenge_inputs
    cross join categories
    where {{ text_matches_pattern('challenge_inputs.input_text', 'categories.pattern') }}
    group by challenge_inputs.challenge_id, categories.category
),

categories_required as (
    select
        string_challenges.challenge_id,
        categories.category,
        coalesce(categories_matched.matching_inputs, 0) as matching_inputs
    from string_challenges
    cross join categories
    left join categories_matched
        on string_challenges.challenge_id = categories_matched.challenge_id
        and categories.category = categories_matched.category
),

coverage_summarised as (
    select
        challenge_id,
        count(*) as required_categories,
        count(*) filter (where matching_inputs > 0) as covered_category_count,
        list(category order by category) filter (where matching_inputs > 0)
            as covered_categories,
        list(category order by category) filter (where matching_inputs = 0)
            as missing_categories
    from categories_required
    group by challenge_id
),

judged as (
    select
        string_challenges.challenge_id,
        coalesce(inputs_counted.test_inputs, 0) as test_inputs,
        coalesce(coverage_summarised.required_categories, 0) as required_categories,
        coalesce(coverage_summarised.covered_category_count, 0) as covered_category_count,
        coalesce(coverage_summarised.covered_categories, []) as covered_categories,
        coalesce(coverage_summarised.missing_categories, []) as missing_categories
    from string_challenges
    left join inputs_counted
        on string_challenges.challenge_id = inputs_counted.challenge_id
    left join coverage_summarised
        on string_challenges.challenge_id = coverage_summarised.challenge_id
),

explained as (
    select
        *,
        len(missing_categories) = 0 as is_fully_covered,
        case
            when len(missing_categories) = 0
                then
                    'its ' || test_inputs || ' test inputs cover all ' || required_categories
                    || ' categories'
            when test_inputs = 0
                then
                    'no test cases: lacks all ' || required_categories || ' categories ('
                    || array_to_string(missing_categories, ', ') || ')'
            else
                'lacks ' || array_to_string(missing_categories, ', ') || ': none of its '
                || test_inputs || ' test inputs matches those patterns (covers '
                || coalesce(nullif(array_to_string(covered_categories, ', '), ''), 'nothing')
                || ')'
        end as reason
    from judged
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(test_inputs as bigint) as test_inputs,
    cast(required_categories as bigint) as required_categories,
    cast(covered_category_count as bigint) as covered_category_count,
    cast(covered_categories as varchar[]) as covered_categories,
    cast(missing_categories as varchar[]) as missing_categories,
    cast(is_fully_covered as boolean) as is_fully_covered,
    cast(reason as varchar) as reason
from explained
