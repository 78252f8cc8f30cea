package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// MaxRecordBytes bounds one record batch. Operator state is one record per
// symbol, and its dedupe horizon makes a busy symbol's record large (about
// 1 MB at 2,000 trades/s), so the state topic and the embedded broker accept
// batches up to this size.
const MaxRecordBytes = 64 << 20

// TopicSpec is one topic the pipeline needs.
type TopicSpec struct {
	Name      string
	Compacted bool
	// Partitioned topics get the configured partition count; the others one
	// partition.
	Partitioned bool
	// Retention is how long the broker keeps a record of a topic that is
	// not compacted (retention.ms); zero keeps every record.
	Retention time.Duration
}

// Retention of the topics of events (docs/topics.md). A week covers an
// operator or sink that was down over a long weekend; the history lives
// on in the Parquet day files.
const (
	RetentionEvents = 7 * 24 * time.Hour
	// RetentionDLQ is longer: dead letters are read by people.
	RetentionDLQ = 14 * 24 * time.Hour
)

// CompactedSegment is segment.ms of the compacted topics: the broker
// never compacts the active segment, so an hour bounds what a view or a
// state restore reads beyond the latest value per key.
const CompactedSegment = time.Hour

// Topics lists every topic the pipeline writes: the trade path's, then
// each side topic of sidetopic.All and its dead-letter topic. mi.state.v1
// must have the same partition count as mi.trades.v1: operator state for
// input partition p lives in state partition p.
var Topics = append([]TopicSpec{
	{Name: schemas.TopicTrades, Partitioned: true, Retention: RetentionEvents},
	{Name: schemas.TopicTradesDLQ, Partitioned: true, Retention: RetentionDLQ},
	{Name: schemas.TopicCandles, Partitioned: true, Retention: RetentionEvents},
	{Name: schemas.TopicSignals, Partitioned: true, Compacted: true},
	// Not compacted: the history's signals dataset needs every minute
	// close, however far its reader lags (see docs/topics.md).
	{Name: schemas.TopicSignalMinutes, Partitioned: true, Retention: RetentionEvents},
	{Name: schemas.TopicSignalChanges, Partitioned: true, Retention: RetentionEvents},
	{Name: schemas.TopicEvents, Partitioned: true, Retention: RetentionEvents},
	{Name: schemas.TopicState, Partitioned: true, Compacted: true},
	{Name: schemas.TopicSourceOffsets, Compacted: true},
	// The side-event stage's changelog: partition p holds the detectors'
	// state over partition p of the side topics (RunSideEvents).
	{Name: TopicSideState, Partitioned: true, Compacted: true},
}, sideTopics()...)

func sideTopics() []TopicSpec {
	var out []TopicSpec
	for _, s := range sidetopic.All {
		out = append(out, TopicSpec{Name: s.Name, Partitioned: true, Compacted: s.Compacted, Retention: s.Retention},
			TopicSpec{Name: s.DLQ, Partitioned: true, Retention: RetentionDLQ})
	}
	return out
}

// Replication of the topics the pipeline creates: three copies, of which
// two must acknowledge every write (acks=all, the franz-go default), so a
// cluster keeps accepting writes with one broker down and loses no
// acknowledged record with one disk lost. A cluster of fewer brokers (the
// embedded one) gets as many copies as it has brokers.
const (
	ReplicationFactor = 3
	MinInsyncReplicas = 2
)

// TopicConfig returns the configuration t is created with on a cluster of
// the given replication factor.
func TopicConfig(t TopicSpec, replicas int) map[string]*string {
	cfg := map[string]*string{
		"min.insync.replicas": kadm.StringPtr(strconv.Itoa(min(MinInsyncReplicas, replicas))),
	}
	if t.Compacted {
		cfg["cleanup.policy"] = kadm.StringPtr("compact")
		cfg["segment.ms"] = kadm.StringPtr(strconv.FormatInt(CompactedSegment.Milliseconds(), 10))
	} else {
		cfg["cleanup.policy"] = kadm.StringPtr("delete")
		ms := int64(-1)
		if t.Retention > 0 {
			ms = t.Retention.Milliseconds()
		}
		cfg["retention.ms"] = kadm.StringPtr(strconv.FormatInt(ms, 10))
	}
	if t.Name == schemas.TopicState {
		cfg["max.message.bytes"] = kadm.StringPtr(strconv.Itoa(MaxRecordBytes))
	}
	return cfg
}

// EnsureTopics creates every topic in Topics that does not exist yet, with
// kadm: partitions as TopicSpec says, replication min(3, brokers) and the
// configuration of TopicConfig. Existing topics are left alone, but a state
// topic whose partition count differs from the trades topic is an error:
// the operator changelog would no longer line up with its input.
func EnsureTopics(ctx context.Context, brokers []string, partitions int) error {
	if partitions < 1 || partitions > 1024 {
		return fmt.Errorf("cannot create topics: partition count %d out of range 1..1024", partitions)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return fmt.Errorf("cannot create Kafka admin client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	meta, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("cannot read the Kafka cluster's brokers: %w", err)
	}
	replicas := min(ReplicationFactor, len(meta.Brokers))
	if replicas < 1 {
		return fmt.Errorf("cannot create topics: the Kafka cluster lists no broker")
	}
	for _, t := range Topics {
		p := int32(1)
		if t.Partitioned {
			p = int32(partitions)
		}
		resp, err := adm.CreateTopic(ctx, p, int16(replicas), TopicConfig(t, replicas), t.Name)
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("cannot create topic %s: %w", t.Name, err)
		}
	}
	// Another instance may be creating the same topics right now: a topic
	// it created is "already existing" here before its partitions show in
	// the metadata, so wait for them.
	var details kadm.TopicDetails
	lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		details, err = adm.ListTopics(lctx, schemas.TopicTrades, schemas.TopicState)
		if err == nil && len(details[schemas.TopicTrades].Partitions) > 0 && len(details[schemas.TopicState].Partitions) > 0 {
			break
		}
		select {
		case <-lctx.Done():
			if err == nil {
				err = fmt.Errorf("%s or %s has no partitions yet: %w", schemas.TopicTrades, schemas.TopicState, lctx.Err())
			}
			return fmt.Errorf("cannot list topics: %w", err)
		case <-time.After(wait):
		}
	}
	tp, sp := len(details[schemas.TopicTrades].Partitions), len(details[schemas.TopicState].Partitions)
	if tp != sp {
		return fmt.Errorf("cannot run operators: %s has %d partitions but %s has %d; they must match", schemas.TopicTrades, tp, schemas.TopicState, sp)
	}
	return nil
}
