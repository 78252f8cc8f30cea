package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// SentinelKey is the key of the marker records ReadCommitted writes; readers
// of the pipeline's internal topics skip keys with this prefix.
const SentinelKey = "~sentinel"

// ReadCommitted reads every committed record of the given partitions of one
// of the pipeline's internal topics (mi.state.v1, mi.source-offsets.v1) from
// the start and calls fn for each in offset order per partition, skipping
// sentinels. Records of aborted transactions are never seen. A nil partitions
// slice means every partition.
//
// It is how operator state and source checkpoints are restored, so it must
// neither stop early nor wait forever. It first appends a sentinel record (a
// random value under SentinelKey) to each partition and then reads with
// read_committed until it meets its own sentinel: the sentinel only becomes
// visible once every transaction before it has been committed or aborted, so
// everything before it that is visible is exactly the committed history.
// (Waiting for the last stable offset instead is not enough: a transaction
// the broker aborts after a crash may leave no marker to read up to.)
func ReadCommitted(ctx context.Context, brokers []string, topic string, partitions []int32, fn func(*kgo.Record)) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return fmt.Errorf("cannot create Kafka client: %w", err)
	}
	defer cl.Close()
	if partitions == nil {
		td, err := kadm.NewClient(cl).ListTopics(ctx, topic)
		if err != nil {
			return fmt.Errorf("cannot describe %s: %w", topic, err)
		}
		t, ok := td[topic]
		if !ok || t.Err != nil {
			return fmt.Errorf("cannot describe %s: %v", topic, t.Err)
		}
		for p := range t.Partitions {
			partitions = append(partitions, p)
		}
	}
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	value := []byte(hex.EncodeToString(nonce[:]))
	starts := map[int32]kgo.Offset{}
	sentinel := map[int32]int64{}
	for _, p := range partitions {
		r, err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Key: []byte(SentinelKey), Value: value}).First()
		if err != nil {
			return fmt.Errorf("cannot write a sentinel to %s[%d]: %w", topic, p, err)
		}
		starts[p] = kgo.NewOffset().AtStart()
		sentinel[p] = r.Offset
	}
	rd, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(100*time.Millisecond),
		kgo.FetchMaxPartitionBytes(MaxRecordBytes),
	)
	if err != nil {
		return fmt.Errorf("cannot create Kafka reader: %w", err)
	}
	defer rd.Close()
	for len(sentinel) > 0 {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("cannot read %s to its end: %w", topic, ctx.Err())
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return fmt.Errorf("cannot read %s: %w", topic, ferr)
		}
		fs.EachRecord(func(r *kgo.Record) {
			s, ok := sentinel[r.Partition]
			if !ok || r.Offset > s {
				return
			}
			if r.Offset == s {
				delete(sentinel, r.Partition)
				return
			}
			if !strings.HasPrefix(string(r.Key), SentinelKey) {
				fn(r)
			}
		})
	}
	return nil
}
