// Package pipeline is the Kafka plumbing of the service: the embedded broker,
// topic creation, the ingest loop that turns a source into committed trades,
// the operator loop that turns trades into candles and documents with
// exactly-once effect, and the view loop that materializes documents for the
// query tier. Sources live in pipeline/sources.
//
// Exactly-once effect (DESIGN.md §5): every loop that writes does so in Kafka
// transactions. The ingest loop commits its trades together with its source
// checkpoint (mi.source-offsets.v1); the operator loop commits its outputs,
// the changed operator state (mi.state.v1, one record per symbol, in the
// input's partition) and its consumer offsets in one transaction. A process
// killed at any point leaves either the whole transaction or none of it, and
// a restarted process resumes from exactly the committed state.
package pipeline
