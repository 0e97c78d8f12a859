{#
    One DuckDB thread for a model whose join must spill: a pre-hook and a post-hook.

    DuckDB spills a hash join whose build side is larger than its memory cap, but with two
    threads the spilled probe side's partitions (one set per thread) can take the rest of
    the cap, and the join then fails with `Out of Memory Error: failed to pin block`. With
    one thread the same join completes. Measured with the test-result fold at 100M
    attempts (198M test results) and `memory_limit` 1GB on 2 cores: 2 threads failed after
    135 s, 1 thread completed in 276 s. At 2GB and more, 2 threads completed.

    The plugin already gives DuckDB one thread per 256MB of its cap (challenge_fairness.
    plugin.fit_threads_to_memory_limit); this hook covers what grows with the data. It sets
    `threads` to 1 when the cap is below `fixed_bytes` (256MB) plus `bytes_per_row` (32)
    bytes per row of `relation`, the join's build side: 3.4GB at 100M attempts, a margin
    over the 2GB measured. It keeps the previous value in the session variable
    `challenge_fairness_threads`; the post-hook restores it. The two models with this hook
    never run at once (int_keyed__rubric_scores_checked depends on the other), so neither
    restores what the other set. A model built on another adapter, or as a view, is left
    as it is. If the model fails, the post-hook does not run and the rest of the build
    keeps one thread (slower, not wrong).
#}
{% macro spill_safe_threads_start(relation, fixed_bytes=268435456, bytes_per_row=32) -%}
    {%- if execute and target.type == 'duckdb' and config.get('materialized') != 'view' -%}
        {%- set measured = run_query(
            "select " ~ fixed_bytes ~ " + count(*) * " ~ bytes_per_row ~ " > parse_formatted_bytes(current_setting('memory_limit')) "
            ~ "and current_setting('threads') > 1 from " ~ relation) -%}
        {%- if measured.rows[0][0] -%}
            {{ log("challenge_fairness: " ~ this.identifier ~ " runs on one DuckDB thread: the memory cap "
                   ~ "is below 256MB plus " ~ bytes_per_row ~ " bytes per row of " ~ relation.identifier
                   ~ " (docs/operations.md#memory-and-scale)", info=false) }}
            set variable challenge_fairness_threads = current_setting('threads');
            set threads = 1
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{% macro spill_safe_threads_end() -%}
    {%- if execute and target.type == 'duckdb' and config.get('materialized') != 'view' -%}
        set threads = coalesce(getvariable('challenge_fairness_threads'), current_setting('threads'));
        reset variable challenge_fairness_threads
    {%- endif -%}
{%- endmacro %}
