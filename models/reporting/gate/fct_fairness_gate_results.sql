{#- fairness_gate_severity ('error' or 'warn') is checked with every var (var_spec). -#}
{%- do challenge_fairness.validated_var('fairness_gate_severity') -%}
with

validations as (
    select * from {{ ref('int_fairness_expectations_validated') }}
)

select
    cast(validated_at as timestamp) as validated_at,
    cast(suite_name as varchar) as suite_name,
    cast(expectation_number as bigint) as expectation_number,
    cast(mart_name as varchar) as mart_name,
    cast(expectation_type as varchar) as expectation_type,
    cast(column_name as varchar) as column_name,
    cast(threshold_parameter as varchar) as threshold_parameter,
    cast(threshold as double) as threshold,
    cast(success as boolean) as success,
    cast(evaluated_rows as bigint) as evaluated_rows,
    cast(failing_rows as bigint) as failing_rows,
    cast(severity as varchar) as severity,
    cast(failure_message as varchar) as failure_message,
    cast(
        case
            when status = 'failed' and severity = 'warn' then 'warning'
            else status
        end as varchar
    ) as outcome,
    cast(json_array_length(cast(findings as json)) as bigint) as findings_count
from validations
