package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// SideView is a view of one side topic, as FollowSide feeds it: build it
// with ViewOf.
type SideView struct {
	topic string
	apply func(value []byte) error
}

// Topic is the side topic the view reads.
func (v SideView) Topic() string { return v.topic }

// ViewOf returns the view that decodes the records of t and hands each to
// apply, in the order of its key's partition. apply runs on FollowSide's
// goroutine; a view read by other goroutines (the query tier) locks itself.
// An error from apply (the record is well-formed protobuf but not a valid
// record for the view) is logged with the record's position and the record
// is skipped: a view cannot dead-letter, since every API instance reads the
// same records, and the producer has validated them.
//
//	lv := views.NewLiquidity()
//	sv := pipeline.ViewOf(sidetopic.PoolEvents, lv.ApplyRecord)
func ViewOf[T proto.Message](t sidetopic.Topic[T], apply func(T) error) SideView {
	return SideView{topic: t.Name, apply: func(b []byte) error {
		v, err := t.Decode(b)
		if err != nil {
			return err
		}
		return apply(v)
	}}
}

// FollowSide materializes side topics into their views: it reads every
// view's topic from the beginning (read committed), so a restarted API
// instance rebuilds its views, and then follows them until ctx ends. Every
// API instance runs its own copy, without a consumer group, so instances
// stay stateless and give the same answers. Records produced again after an
// ingest crash (a "seq" not above the last one applied from its source in
// that partition) are dropped, so each record takes effect once. ready,
// when not nil, is closed once the records that existed at the start have
// been applied (an empty poll after the backlog).
func FollowSide(ctx context.Context, brokers []string, views []SideView, logger *slog.Logger, ready chan<- struct{}) error {
	if logger == nil {
		logger = slog.Default()
	}
	if len(views) == 0 {
		if ready != nil {
			close(ready)
		}
		<-ctx.Done()
		return ctx.Err()
	}
	byTopic := map[string][]SideView{}
	var topics []string
	for _, v := range views {
		if byTopic[v.topic] == nil {
			topics = append(topics, v.topic)
		}
		byTopic[v.topic] = append(byTopic[v.topic], v)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(100*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create side-topic consumer: %w", err)
	}
	defer cl.Close()
	d := sideDedupe{last: map[sideStream]int64{}}
	var in schemas.Interner
	start := time.Now()
	caughtUp := false
	applied, dropped, failed := 0, 0, 0
	for {
		pctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fs.IsClientClosed() {
			return nil
		}
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			if src, seq, ok := sourceSeq(r, &in); ok && !d.fresh(r.Topic, r.Partition, src, seq) {
				dropped++
				return
			}
			for _, v := range byTopic[r.Topic] {
				if err := v.apply(r.Value); err != nil {
					failed++
					logger.Warn("skipping a side record its view refuses", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", err)
					continue
				}
			}
			applied++
		})
		if n == 0 && !caughtUp {
			caughtUp = true
			logger.Info("side views rebuilt", "topics", topics, "records", applied, "redelivered", dropped, "refused", failed, "took", time.Since(start).Round(time.Millisecond))
			if ready != nil {
				close(ready)
			}
		}
	}
}

// sideStream is one source's records in one partition of a side topic.
type sideStream struct {
	topic     string
	partition int32
	source    string
}

// sideDedupe keeps the last seq applied per stream. A source numbers its
// records in order and writes them to a partition in that order, and a
// source resumed after a crash writes the records after its checkpoint
// again with the same numbers: a seq not above the last one is such a copy.
type sideDedupe struct{ last map[sideStream]int64 }

func (d *sideDedupe) fresh(topic string, partition int32, source string, seq int64) bool {
	k := sideStream{topic, partition, source}
	if last, ok := d.last[k]; ok && seq <= last {
		return false
	}
	d.last[k] = seq
	return true
}
