{#
    The one declarative spec of every var of the package: type, accepted range or values,
    default (equal to dbt_project.yml, checked by tests/test_hardening_vars.py) and meaning.
    `validate_vars()` checks every var against it at run start; docs/configuration.md is
    generated from it. The YAML below is parsed by dbt (`fromyaml`) and by the tests.

    Types:
      number      finite int or float (not a boolean, not a string); bounds `min`/`max`,
                  exclusive when `min_exclusive`/`max_exclusive` is true
      integer     int (not a boolean, not a string, not 1.5); bounds `min`/`max`
      boolean     true or false
      choice      one of `values` (strings)
      date        'YYYY-MM-DD' (a real calendar date)
      identifier  [A-Za-z_][A-Za-z0-9_]* (a schema, seed or model name)
      identifiers a list of identifiers
      texts       a list of texts (each as `text`; bound into SQL as quoted literals)
      text        a non-empty string without control characters, at most 200 characters
                  (a tag: bound into SQL as a quoted literal)
      path        a non-empty string without control characters (a folder)
    `nullable: true` also accepts null (the var's "not set").
    Cross-var rules: `after` names a var this one must be >= to; `divides` a var this one
    must divide exactly.
#}
{% macro var_spec() -%}
{#- Parsed once per invocation while a run executes (macro invocation_cache): about 5 ms of
    YAML parsing per call, and a run calls it about 40 times. #}
{%- set cache = challenge_fairness.invocation_cache() if execute else {} -%}
{%- if 'var_spec' in cache -%}
    {{ return(cache['var_spec']) }}
{%- endif -%}
{%- set spec_yaml -%}
challenge_fairness_raw_schema:
  type: identifier
  default: raw
  description: Schema holding the raw platform tables (attempts, challenges, agents, models, optional tables).
raw_parquet_dir:
  type: path
  nullable: true
  default: null
  description: "If set: read `<dir>/<table>.parquet`, or the folder of parquet files `<dir>/<table>/`, instead of the raw schema."
scan_stage_dir:
  type: path
  nullable: true
  default: null
  description: "The Spark path (docs/spark.md): on Spark, the folder the scan stage (tag `stage:scan`) is written to, as `<dir>/<model>/`; on DuckDB, if set, the scan stage is read from there instead of scanning the raw tables."
min_attempts:
  type: integer
  min: 1
  default: 100
  description: Scored attempts a challenge needs before it is judged.
family_deviation_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 10
  description: Points a family mean may differ from the challenge mean.
combination_deviation_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 20
  description: Points a combination mean may differ from its template.
alpha:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  max_exclusive: true
  default: 0.05
  description: Significance level of every test (after Benjamini-Hochberg where several are made).
effect_size_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 0.5
  description: "|Cohen's d| above which a family pair is flagged."
min_family_attempts:
  type: integer
  min: 2
  default: 10
  description: Scored attempts a family needs on a challenge to be judged there; a family with fewer stays in the others' reference, and the challenge is tested on two or more judged families but cannot pass.
trim_proportion:
  type: number
  min: 0
  max: 0.5
  max_exclusive: true
  default: 0.2
  description: Share cut from each tail for Yuen trimmed means (0 on a challenge where some family's scores are too discrete to trim, as pass/fail scores are; docs/method.md).
ability_fit_iterations:
  type: integer
  min: 1
  max: 100
  default: 3
  description: Alternating fits of challenge references and family abilities.
ability_purification_rounds:
  type: integer
  min: 0
  max: 10
  default: 1
  description: "Rounds of purification of the family abilities: the cells a round flags are left out of the next round's ability fit (0: none; docs/method.md)."
variance_shrinkage_df:
  type: number
  min: 0
  max: 1000000
  default: 30
  description: "Prior degrees of freedom shrinking each cell's Yuen variance toward its challenge's pooled variance (0: the cell's own; docs/power.md)."
target_power:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  max_exclusive: true
  default: 0.8
  description: Power each family contrast should have to detect a family_deviation_threshold shift (fct_challenge_attempts_needed).
max_family_attempts_planned:
  type: integer
  min: 1
  max: 1000000000
  default: 100000
  description: "Largest attempts per family the attempts-needed plan searches up to (beyond it: 'unreachable')."
briefing_style_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 10
  description: Points a family's effect may change across briefing styles.
ab_min_variance_reduction:
  type: number
  min: 0
  max: 1
  max_exclusive: true
  default: 0.30
  description: Share the cross-family variance must drop by (arm B vs arm A).
ab_max_mean_change:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 5
  description: Points the overall mean may move (TOST equivalence margin).
ab_discrimination_margin:
  type: number
  min: 0
  max: 100
  default: 0.2
  description: IRT discrimination (a) decrease tolerated (non-inferiority margin).
ab_bootstrap_resamples:
  type: integer
  min: 1
  max: 1000000
  default: 2000
  description: Bootstrap resamples for the variance-reduction interval.
ab_bootstrap_seed:
  type: integer
  min: 0
  max: 4294967295
  default: 20260101
  description: Seed of the bootstrap (combined with the experiment id).
irt_pass_score:
  type: number
  min: 0
  max: 100
  default: 50
  description: An attempt passes (IRT) when its score is at least this.
contamination_similarity_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  default: 0.5
  description: Jaccard similarity of token shingles above which code is a copy.
shingle_tokens:
  type: integer
  min: 1
  max: 100
  default: 5
  description: Tokens per shingle.
minhash_permutations:
  type: integer
  min: 1
  max: 4096
  default: 128
  description: MinHash signature length.
minhash_bands:
  type: integer
  min: 1
  max: 4096
  divides: minhash_permutations
  default: 32
  description: LSH bands; must divide minhash_permutations.
contamination_min_shingles:
  type: integer
  min: 1
  default: 50
  description: Distinct normalised shingles a file or document needs to be compared.
contamination_containment_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  default: 0.7
  description: A non-scaffold file (or document) contained in another text above this share, raw or normalised, is a copy (docs/contamination.md).
contamination_containment_max_size_ratio:
  type: number
  min: 1
  max: 1000000
  default: 4
  description: Normalised containment counts only while the containing text has at most this many times the contained one's shingles.
contamination_containment_bands:
  type: integer
  min: 1
  default: 64
  divides: minhash_permutations
  description: LSH bands of the raw containment candidates (must divide minhash_permutations).
contamination_ignored_paths:
  type: texts
  default: []
  description: "SQL GLOB patterns of file paths containment never flags, e.g. ['*.lock', 'config/*']."
scaffold_min_similarity:
  type: number
  min: 0
  max: 1
  default: 0.8
  description: Same-path files at least this similar (Jaccard) are copies of one scaffold file.
scaffold_min_instance_share:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  default: 0.8
  description: A file is scaffold when this share of its template's instances hold a copy of it.
scaffold_min_instances:
  type: integer
  min: 2
  default: 3
  description: Templates with fewer instances have no scaffold.
verdict_history_window:
  type: choice
  values: [week, month, quarter]
  default: month
  description: Window of the verdict history (week is ISO, from Monday).
fairness_gate_severity:
  type: choice
  values: [error, warn]
  default: error
  description: "'error' fails the build on a fairness failure, 'warn' records it and goes on."
fairness_gate_suites:
  type: identifiers
  nullable: true
  default: null
  description: "GX suites the gate runs (files in python_udfs/challenge_fairness/gx_suites); null: every suite the detectors declare in macros/detector_registry.sql."
fairness_gate_max_rejected_share:
  type: number
  min: 0
  max: 1
  default: 0.05
  description: Share of the raw attempts that may be rejected before the gate calls the input unusable (docs/gate.md).
fairness_gate_max_optional_rejected_share:
  type: number
  min: 0
  max: 1
  default: 0.5
  description: "Share of an optional table's raw rows (test_results, rubric_scores, ...) that may be rejected before its detectors are unavailable and the gate calls it unusable input (optional_table_unusable; docs/gate.md). Looser than the attempts' share: small optional tables often carry a few bad rows."
fairness_gate_allow_unit_scores:
  type: boolean
  default: false
  description: "true: a platform whose scores all lie between 0 and 1 passes the gate (scores are points 0..100; 0..1 is read as fractions or pass/fail coded 0/1)."
fairness_gate_allow_similar_family_labels:
  type: boolean
  default: false
  description: "true: model_family labels that differ only in case, Unicode composition or surrounding spaces ('GPT' and 'gpt ') pass the gate as different families (family_labels_ambiguous; docs/gate.md)."
fairness_gate_allow_no_testable_challenges:
  type: boolean
  default: false
  description: "true: a build in which no challenge is testable passes the gate."
fairness_gate_allow_empty_suites:
  type: boolean
  default: false
  description: "true: an empty fairness_gate_suites list passes the gate."
dif_score_bands:
  type: integer
  min: 1
  max: 100
  default: 10
  description: Equal-width bands of the attempt score that DIF matches on.
dif_min_family_results:
  type: integer
  min: 1
  default: 10
  description: Scored results a family needs on a test case to enter its DIF analysis.
dif_negligible_d_dif:
  type: number
  min: 0
  max: 100
  default: 1.0
  description: "ETS: |MH D-DIF| below this is negligible (class A)."
dif_large_d_dif:
  type: number
  min: 0
  max: 100
  after: dif_negligible_d_dif
  default: 1.5
  description: "ETS: |MH D-DIF| from this on (and significantly beyond negligible) is large (class C)."
test_code_lint_gate_categories:
  type: identifiers
  default: [implementation_structure, library_usage]
  description: "Test-code lint categories whose findings fail the gate (suite test_code_checks_behaviour): any of name_expectation, exact_output_format, implementation_structure, library_usage; [] gates none."
unicode_coverage_tag:
  type: text
  default: string-handling
  description: Challenges with this tag must cover every Unicode input category.
api_memorization_slope_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 3
  description: Points per year of training cutoff that api:<name> challenges may slope beyond the control trend.
approach_gap_threshold:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 10
  description: Points two approaches' family-stratified mean scores may differ by.
clustering_permutations:
  type: integer
  min: 1
  max: 1000000
  default: 999
  description: Label shuffles for the clustering permutation p-value.
clustering_seed:
  type: integer
  min: 0
  max: 4294967295
  default: 20240229
  description: Seed of the clustering shuffles.
clustering_silhouette_threshold:
  type: number
  min: -1
  max: 1
  default: 0.25
  description: Mean silhouette above which families separate.
clustering_min_challenge_share:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  default: 0.5
  description: Share of challenges an agent needs to be mapped.
clustering_remove_agent_level:
  type: boolean
  default: true
  description: Remove each agent's overall level (skill) before clustering.
leaderboard_score:
  type: choice
  values: [challenge_mean, attempt_mean]
  default: challenge_mean
  description: "How the platform scores an agent on its leaderboard: challenge_mean (the mean over challenges of the agent's mean score, each challenge weighted once) or attempt_mean (the mean over its scored attempts); docs/leaderboard.md."
leaderboard_min_challenges:
  type: integer
  min: 1
  default: 10
  description: Challenges (cells meeting leaderboard_min_cell_attempts) an agent needs to be ranked.
leaderboard_min_cell_attempts:
  type: integer
  min: 1
  default: 1
  description: Scored attempts an agent x challenge cell needs to count on the leaderboard.
leaderboard_interval_level:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  max_exclusive: true
  default: 0.95
  description: Level of the bootstrap rank intervals and of the rank-change intervals that decide "beyond chance".
leaderboard_bootstrap_resamples:
  type: integer
  min: 1
  max: 1000000
  default: 1000
  description: Bootstrap resamples over challenges for the leaderboard's intervals.
leaderboard_bootstrap_seed:
  type: integer
  min: 0
  max: 4294967295
  default: 20260401
  description: Seed of the leaderboard bootstrap.
leaderboard_allowed_rank_move:
  type: integer
  min: 0
  default: 0
  description: "Gate (leaderboard_ranks_not_moved_by_bias): places the bias-adjusted leaderboard may move an agent, beyond chance, before the gate fails."
combination_tier_width:
  type: number
  min: 0
  min_exclusive: true
  max: 100
  default: 10
  description: Points per difficulty tier.
combination_equivalence_tolerance:
  type: number
  min: 0
  max: 100
  default: 5
  description: Points an equivalent-combination pool may span.
adjusted_scores_materialization:
  type: choice
  values: [view, table]
  default: view
  description: Materialization of fct_difficulty_adjusted_scores.
competitive_challenge_tag:
  type: text
  default: competitive
  description: Challenges with this tag may have no unreviewed locale finding (gate).
rubric_earned_share:
  type: number
  min: 0
  min_exclusive: true
  max: 1
  default: 1.0
  description: A rubric item is earned when points >= this share of max_points.
briefing_locale_rules_seed:
  type: identifier
  default: briefing_locale_rules
  description: Seed (or model) with the locale rules.
briefing_finding_reviews_seed:
  type: identifier
  default: briefing_finding_reviews
  description: Seed (or model) with reviewers' accepted locale findings.
briefing_domain_terms_seed:
  type: identifier
  default: briefing_domain_terms
  description: Seed (or model) with regulated-domain terms.
rubric_style_rules_seed:
  type: identifier
  default: rubric_style_rules
  description: Seed (or model) with the rubric style-wording rules.
briefing_audit_overrides_seed:
  type: identifier
  default: briefing_audit_overrides
  description: Seed (or model) that silences or rewords the library locale findings and jargon terms.
briefing_jargon_max_zipf:
  type: number
  min: 0
  max: 8
  default: 2.25
  description: A word rarer than this Zipf frequency in English (wordfreq) and not defined in the briefing is a jargon candidate.
briefing_jargon_acronym_max_zipf:
  type: number
  min: 0
  max: 8
  default: 3.0
  description: The same for acronyms (all capitals).
bias_scan_date:
  type: date
  nullable: true
  default: null
  description: "Date of the bias scan: the scan is as of it (only attempts submitted on or before it, so a past scan can be reproduced) and filed under it; null: every attempt, filed under the date of the latest clean attempt."
earliest_plausible_timestamp:
  type: date
  default: "2000-01-01"
  description: "Staging rejects an attempt submitted before this date (submitted_at_implausible)."
plausible_timestamp_days_ahead:
  type: integer
  min: 0
  max: 3650
  default: 1
  description: "Staging rejects an attempt submitted later than the run date plus this many days."
check_history:
  type: boolean
  default: true
  description: "Each run re-reads the history: the raw rows already folded (checked against what was validated) and the data tests tagged scans:history. false (a daily increment): the folded rows are only counted and those tests skipped (docs/operations.md)."
history_head_rows:
  type: integer
  min: 0
  default: 10000
  description: "Every run, also a daily one with check_history false, compares the checksum of the first this many raw rows already folded (attempts, rubric scores) with what was validated: a raw table replaced or rewritten from the start stops the run asking for --full-refresh, at the cost of hashing these rows (0: off)."
parquet_export_dir:
  type: path
  nullable: true
  default: null
  description: "Folder the public marts are written to as `<dir>/<mart>.parquet` after every run; null: no export."
{%- endset -%}
{%- do cache.update({'var_spec': fromyaml(spec_yaml)}) -%}
{{ return(cache['var_spec']) }}
{%- endmacro %}
