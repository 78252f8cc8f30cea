package pipeline

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources/replay"
	"github.com/marketintel/mi/schemas"
)

// lockedBuffer is a log sink safe for the concurrent writes of a run.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSourceResumesAfterProducerFenced: a replay whose transactional
// producer is fenced mid-run (what a coordinator's timeout abort during a
// broker failover looks like to it: PRODUCER_FENCED on the next commit)
// resumes from its last checkpoint in the same process and finishes, every
// record of the source committed under its seq, none missing.
func TestSourceResumesAfterProducerFenced(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	emb, err := StartEmbedded("127.0.0.1:0", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	path := fixtures.Path(t, "trades/tardis_binance-futures_BTCUSDT_trades_2020-02-22.csv") // 9,999 trades over 2 h 6 min
	src, err := replay.OpenAll([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	name, total := src.Name(), 0
	for {
		if _, err := src.Next(ctx); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		total++
	}
	src.Close()

	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	const suffix = "-t"
	done := make(chan error, 1)
	go func() {
		done <- retryKafka(ctx, log, "source", func() error {
			return runSource(ctx, RunConfig{ReplaySpeed: 1500}, brokers, "replay:"+path, suffix, log) // about 5 s
		})
	}()
	for {
		cp, _, err := ReadCheckpoint(ctx, brokers, name)
		if err != nil {
			t.Fatal(err)
		}
		if cp.Records > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the source ended before it could be fenced: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	// A producer with the source's transactional id bumps the epoch: the
	// running one is fenced at its next commit.
	fencer, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID(transactionalID("mi-ingest-", name)+suffix), transactionProtocol)
	if err != nil {
		t.Fatal(err)
	}
	if err := fencer.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := fencer.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicTradesDLQ, Key: []byte("fence"), Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	_ = fencer.EndTransaction(ctx, kgo.TryAbort)
	fencer.Close()

	if err := <-done; err != nil {
		t.Fatalf("source failed after the fence: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "resuming from its last checkpoint") {
		t.Fatalf("the source was never fenced:\n%s", logs.String())
	}
	cp, _, err := ReadCheckpoint(ctx, brokers, name)
	if err != nil {
		t.Fatal(err)
	}
	if !cp.Finished || cp.Records != int64(total) {
		t.Fatalf("final checkpoint %+v, want %d records, finished", cp, total)
	}
	seqs := map[string]bool{}
	for _, topic := range []string{schemas.TopicTrades, schemas.TopicTradesDLQ} {
		if err := ReadCommitted(ctx, brokers, topic, nil, func(r *kgo.Record) {
			for _, h := range r.Headers {
				if h.Key == HeaderSeq {
					seqs[string(h.Value)] = true
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(seqs) != total {
		t.Fatalf("%d distinct seqs committed, want %d", len(seqs), total)
	}
}
