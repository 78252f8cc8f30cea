package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/schemas"
)

// Lag returns how many committed trades of mi.trades.v1 the operator group
// has not yet committed as processed. It counts the committed data records
// between the group's offset and the last stable offset of each partition
// (transaction markers and aborted records occupy offsets but are not
// trades), so it reads that stretch of the log: meant for tests and
// diagnostics, not for a hot path.
func Lag(ctx context.Context, brokers []string, group string) (int64, error) {
	if group == "" {
		group = "mi-operators"
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return 0, fmt.Errorf("cannot create Kafka client: %w", err)
	}
	adm := kadm.NewClient(cl)
	ends, err := adm.ListCommittedOffsets(ctx, schemas.TopicTrades)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		cl.Close()
		return 0, fmt.Errorf("cannot list offsets of %s: %w", schemas.TopicTrades, err)
	}
	got, err := adm.FetchOffsets(ctx, group)
	cl.Close()
	if err != nil {
		return 0, fmt.Errorf("cannot fetch offsets of group %s: %w", group, err)
	}
	from := map[int32]kgo.Offset{}
	last := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		at := int64(0)
		if c, ok := got.Lookup(schemas.TopicTrades, o.Partition); ok && c.Err == nil && c.At > 0 {
			at = c.At
		}
		if o.Offset > at {
			from[o.Partition] = kgo.NewOffset().At(at)
			last[o.Partition] = o.Offset - 1
		}
	})
	if len(from) == 0 {
		return 0, nil
	}
	rd, err := kgo.NewClient(kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{schemas.TopicTrades: from}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		return 0, fmt.Errorf("cannot create Kafka reader: %w", err)
	}
	defer rd.Close()
	var lag int64
	quiet := time.Now()
	// A transaction aborted by a crash of the embedded broker may leave no
	// marker at the very end of a partition, so a quiet half second also
	// ends the count.
	for len(last) > 0 && time.Since(quiet) < 500*time.Millisecond {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		fs := rd.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		fs.EachRecord(func(r *kgo.Record) {
			l, ok := last[r.Partition]
			if !ok || r.Offset > l {
				return
			}
			quiet = time.Now()
			if !r.Attrs.IsControl() {
				lag++
			}
			if r.Offset == l {
				delete(last, r.Partition)
			}
		})
	}
	return lag, nil
}
