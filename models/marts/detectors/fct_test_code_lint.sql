{#
    One row per clean test case with test code (optional column test_cases.test_code):
    the test-code lint's findings counted by category, the first finding (line, snippet,
    message, suggested rewrite), every finding in one text, the interface style, and
    whether a finding falls in a category of var test_code_lint_gate_categories (the gate).
#}
{%- set categories = ['name_expectation', 'exact_output_format', 'implementation_structure', 'library_usage'] %}
{%- set gated = var('test_code_lint_gate_categories') or [] %}
{%- for category in gated if category not in categories %}
    {%- if execute %}{{ exceptions.raise_compiler_error("test_code_lint_gate_categories: '" ~ category ~ "' is not a category (" ~ categories | join(', ') ~ ")") }}{% endif %}
{%- endfor %}
with

linted as (
    select * from {{ ref('int_test_case_code_linted') }}
),

counted as (
    select
        test_case_id,
        challenge_id,
        language,
        is_language_inferred,
        declared_language,
        has_briefing,
        lint_status,
        lint_reason,
        interface_style,
        findings,
        len(findings) as finding_count,
        {%- for category in categories %}
        len(list_filter(findings, lambda finding: finding.category = '{{ category }}'))
            as {{ category }}_findings,
        {%- endfor %}
        len(list_filter(findings, lambda finding: finding.category in (
            {{- ("'" ~ (gated | join("', '")) ~ "'") if gated else 'null' -}}
        ))) as gated_findings,
        findings[1] as first_finding
    from linted
)

select
    cast(test_case_id as varchar) as test_case_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(language as varchar) as language,
    cast(is_language_inferred as boolean) as is_language_inferred,
    cast(declared_language as varchar) as declared_language,
    cast(has_briefing as boolean) as has_briefing,
    cast(lint_status as varchar) as lint_status,
    cast(lint_reason as varchar) as lint_reason,
    cast(interface_style as varchar) as interface_style,
    cast(finding_count as bigint) as finding_count,
    {%- for category in categories %}
    cast({{ category }}_findings as bigint) as {{ category }}_findings,
    {%- endfor %}
    cast(gated_findings as bigint) as gated_findings,
    cast(gated_findings = 0 as boolean) as is_gate_passing,
    cast(first_finding.line as bigint) as first_finding_line,
    cast(first_finding.category as varchar) as first_finding_category,
    cast(first_finding.snippet as varchar) as first_finding_snippet,
    cast(first_finding.message as varchar) as first_finding_message,
    cast(first_finding.suggested_rewrite as varchar) as first_finding_rewrite,
    cast(nullif(array_to_string(list_transform(
        findings,
        lambda finding: 'line '
        || finding.line
        || ' '
        || finding.category
        || ': '
        || finding.message
    ), '; '), '') as varchar) as findings_text
from counted
order by test_case_id
