{#
    One row per clean test case with test code, from the optional columns
    `test_cases.test_code` and `test_cases.language` (absent column, NULL or blank code: no
    row). The clean test case's own raw row gives the code; language is lower-cased and
    trimmed, NULL when absent or blank (the lint infers it).
#}
{{ scan_stage_config('view') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ optional_source_rows('test_cases', {'test_case_id': 'string'}) }}
),

test_cases as (
    select * from {{ ref('base_platform__test_cases') }}
),

code as (
    select
        source.source_row_number,
        {{ optional_column('test_cases', 'test_code', 'string') }} as test_code,
        nullif(lower(trim({{ optional_column('test_cases', 'language', 'string') }})), '')
            as language
    from source
),

renamed as (
    select
        test_cases.test_case_id,
        test_cases.challenge_id,
        code.test_code,
        code.language
    from code
    inner join test_cases
        on code.source_row_number = test_cases.source_row_number
    where test_cases.rejection_reason is null
        and nullif(trim(code.test_code), '') is not null
)

select * from renamed
{%- endif %}
