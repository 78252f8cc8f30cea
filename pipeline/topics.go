package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"

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
}

// Topics lists every topic the pipeline writes: the trade path's, then
// each side topic of sidetopic.All and its dead-letter topic. mi.state.v1
// must have the same partition count as mi.trades.v1: operator state for
// input partition p lives in state partition p.
var Topics = append([]TopicSpec{
	{Name: schemas.TopicTrades, Partitioned: true},
	{Name: schemas.TopicTradesDLQ, Partitioned: true},
	{Name: schemas.TopicCandles, Partitioned: true},
	{Name: schemas.TopicSignals, Partitioned: true, Compacted: true},
	// Not compacted: the history's signals dataset needs every minute
	// close, however far its reader lags (see docs/topics.md).
	{Name: schemas.TopicSignalMinutes, Partitioned: true},
	{Name: schemas.TopicSignalChanges, Partitioned: true},
	{Name: schemas.TopicEvents, Partitioned: true},
	{Name: schemas.TopicState, Partitioned: true, Compacted: true},
	{Name: schemas.TopicSourceOffsets, Compacted: true},
}, sideTopics()...)

func sideTopics() []TopicSpec {
	var out []TopicSpec
	for _, s := range sidetopic.All {
		out = append(out, TopicSpec{Name: s.Name, Partitioned: true, Compacted: s.Compacted}, TopicSpec{Name: s.DLQ, Partitioned: true})
	}
	return out
}

// EnsureTopics creates every topic in Topics that does not exist yet, with
// kadm. Existing topics are left alone, but a state topic whose partition
// count differs from the trades topic is an error: the operator changelog
// would no longer line up with its input.
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
	for _, t := range Topics {
		p := int32(1)
		if t.Partitioned {
			p = int32(partitions)
		}
		cfg := map[string]*string{}
		if t.Compacted {
			cfg["cleanup.policy"] = kadm.StringPtr("compact")
		}
		if t.Name == schemas.TopicState {
			cfg["max.message.bytes"] = kadm.StringPtr(strconv.Itoa(MaxRecordBytes))
		}
		resp, err := adm.CreateTopic(ctx, p, 1, cfg, t.Name)
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("cannot create topic %s: %w", t.Name, err)
		}
	}
	details, err := adm.ListTopics(ctx, schemas.TopicTrades, schemas.TopicState)
	if err != nil {
		return fmt.Errorf("cannot list topics: %w", err)
	}
	tp, sp := len(details[schemas.TopicTrades].Partitions), len(details[schemas.TopicState].Partitions)
	if tp != sp {
		return fmt.Errorf("cannot run operators: %s has %d partitions but %s has %d; they must match", schemas.TopicTrades, tp, schemas.TopicState, sp)
	}
	return nil
}
