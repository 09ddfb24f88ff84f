// Package results defines svclab's result schema and its codecs.
//
// A run directory holds three files:
//
//   - results.jsonl: one JSON Record per line, appended (and synced) as the
//     run goes, so a run killed half way keeps every completed record;
//   - meta.json: the environment (kernel, tool versions, CPU, Go, git commit,
//     scenario hash);
//   - summary.json: the Summary computed from the records at the end (or by
//     `svclab report` from a partial results.jsonl).
//
// Every file carries the schema version (SchemaVersion). Readers accept
// versions they know and refuse newer ones with a message that says which
// svclab version to use. See results/README.md in the repository.
package results
