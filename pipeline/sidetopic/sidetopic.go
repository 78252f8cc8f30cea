// Package sidetopic declares the side topics: topics of typed records other
// than trades (pool events today; rates, positioning and news next) that
// sources produce and that a view in every API instance applies.
//
// The path of a side record (docs/topics.md, "Side topics"):
//
//  1. A source (a poller or a connector in pipeline/sources/...) builds its
//     records with a Topic: Topic.Record(v) puts the typed value v on the
//     topic under its key, Topic.Reject(raw, reason) dead-letters an input
//     it cannot use on the topic's DLQ. It yields them as sources.Record
//     like trades, so a side record rides the source's ingest transaction
//     and checkpoint (exactly once, see pipeline.Ingest). A poller that is
//     not itself a Source hands its records to an Emitter, which is one.
//  2. pipeline.Ingest writes the value with the source's "source" and "seq"
//     headers.
//  3. Every API instance runs pipeline.FollowSide over the views it serves
//     (pipeline.ViewOf(topic, apply)): it reads the topic from the start,
//     decodes each value into the Topic's type, drops re-deliveries by
//     (source, seq) and calls apply in the order of the key's partition.
//
// This package imports no broker code, so sources use it freely.
package sidetopic

import (
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/sources"
)

// Topic declares one side topic and the protobuf type T of its records.
type Topic[T proto.Message] struct {
	// Name is the topic, "mi.<name>.v<version>".
	Name string
	// Key returns a record's key. Records with one key go to one partition
	// and keep their order: key by the entity a view folds records into
	// (a pool, a market, a feed).
	Key func(T) string
	// New returns an empty record to decode into.
	New func() T
	// Compacted keeps only the last record per key (a topic of latest
	// values); the default keeps every record (a topic of events).
	Compacted bool
	// Retention bounds how long the broker keeps a record of a topic of
	// events (retention.ms); zero keeps every record, which a view that
	// rebuilds by reading the topic from the start needs unless a shorter
	// history is all it serves.
	Retention time.Duration
}

// Spec is the untyped description of a topic, for creating it.
type Spec struct {
	Name, DLQ string
	Compacted bool
	Retention time.Duration
}

// Spec returns the topic's description.
func (t Topic[T]) Spec() Spec {
	return Spec{Name: t.Name, DLQ: t.DLQ(), Compacted: t.Compacted, Retention: t.Retention}
}

// DLQ returns the dead-letter topic of t: "mi.<name>.dlq.v<version>", as
// mi.trades.dlq.v1 is to mi.trades.v1.
func (t Topic[T]) DLQ() string { return dlqName(t.Name) }

func dlqName(name string) string {
	i := strings.LastIndex(name, ".v")
	if i < 0 {
		panic("BUG: side topic " + name + " has no version suffix")
	}
	return name[:i] + ".dlq" + name[i:]
}

// Record returns the source record that writes v to the topic under
// Key(v), encoded deterministically (the same value gives the same bytes,
// so replays are byte-identical), with extra headers besides the ingest
// loop's "source" and "seq".
func (t Topic[T]) Record(v T, headers ...sources.Header) sources.Record {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("BUG: cannot marshal a %s record: %v", t.Name, err))
	}
	return sources.Record{Side: &sources.SideRecord{Topic: t.Name, Key: []byte(t.Key(v)), Value: b, Headers: headers}}
}

// Reject returns the source record that dead-letters raw, the input a
// source could not turn into a record of this topic, on the topic's DLQ
// with reason (a stable phrase first, then details, as for trades).
func (t Topic[T]) Reject(raw []byte, reason string) sources.Record {
	return sources.Record{Raw: raw, Reason: reason, DLQ: t.DLQ()}
}

// Decode decodes a record value of the topic.
func (t Topic[T]) Decode(b []byte) (T, error) {
	v := t.New()
	if err := proto.Unmarshal(b, v); err != nil {
		var zero T
		return zero, fmt.Errorf("cannot decode a %s record: %w", t.Name, err)
	}
	return v, nil
}
