// Package diagnose applies shardsim's rules to a run's figures (from metrics) and says what
// they find, each finding with its evidence and its cure (docs/detection.md): the alert
// timeline with each alert's detection lag (Alerts: the mechanisms' alerts registered from
// their folders by RegisterStreamAlert among them), the diagnoses of why a variant's load
// is uneven (Of: the mechanisms' stream and wait rules, registered from their folders by
// RegisterStreamRule or RegisterWaitRule, then dominant_tenant, hot_key, low_cardinality,
// monotonic_key, synchronized_burst, cluster_overloaded, the mechanisms' rules registered
// by RegisterRule at their ranks, placement, hot_shard_many_keys) and explain's notes and
// warnings on a predicted design (Predicted). A new rule is a named function in the rules
// table of diagnose.go, with its thresholds beside it, or a mechanism's, in its folder;
// report prints what it finds.
package diagnose
