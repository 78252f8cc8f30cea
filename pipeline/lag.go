package pipeline

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/schemas"
)

// Lag returns how many committed records of mi.trades.v1 the operator group
// has not yet committed as processed. Every ingest transaction ends with one
// commit marker per partition, and consumers commit the offset after the last
// data record, so a partition is caught up when the group's offset reaches
// its last stable offset minus that marker.
func Lag(ctx context.Context, brokers []string, group string) (int64, error) {
	if group == "" {
		group = "mi-operators"
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return 0, fmt.Errorf("cannot create Kafka client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListCommittedOffsets(ctx, schemas.TopicTrades)
	if err != nil {
		return 0, fmt.Errorf("cannot list offsets of %s: %w", schemas.TopicTrades, err)
	}
	got, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		return 0, fmt.Errorf("cannot fetch offsets of group %s: %w", group, err)
	}
	var lag int64
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset <= 0 {
			return
		}
		at := int64(0)
		if c, ok := got.Lookup(schemas.TopicTrades, o.Partition); ok && c.Err == nil && c.At > 0 {
			at = c.At
		}
		if d := o.Offset - 1 - at; d > 0 {
			lag += d
		}
	})
	return lag, nil
}
