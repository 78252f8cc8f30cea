package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
	pqsink "github.com/marketintel/mi/sinks/parquet"
)

// NewsGroup is the consumer group of the news stage.
const NewsGroup = "mi-news"

// NewsConfig configures the news stage (RunNews).
type NewsConfig struct {
	Brokers []string
	// Dictionary is what the classifier reads symbols with (coins of the
	// registry, issuers of SEC's ticker file; newsfeed.Coins, Issuers).
	Dictionary *newsclass.Dictionary
	// DataDir, when set, receives the news day files
	// (<DataDir>/news/date=.../data.parquet).
	DataDir string
	// AlertMaxAge is the news detectors' age limit: items read longer than
	// this after publication raise no alert. 0 means the default
	// (operators.NewsAlertMaxAge); negative means no limit (the offline
	// demo, which replays old captures).
	AlertMaxAge time.Duration
	Logger      *slog.Logger
}

// RunNews is the news stage: it classifies the items of mi.news.v1
// (operators/newsclass), raises the news and sec_filing alert events
// (operators.NewsAlertDetector) on mi.events.v1, and writes the news day
// files. It first reads its own events back from mi.events.v1, so a
// restarted stage raises nothing twice, then consumes mi.news.v1 in
// consumer group NewsGroup, committing offsets after each poll's events and
// day files are written. Delivery is at least once: an event raised twice
// has the same id (the outbox keeps one), a row written twice is one row.
// Run one instance per cluster.
func RunNews(ctx context.Context, cfg NewsConfig) error {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Dictionary == nil {
		return errors.New("cannot run the news stage: no dictionary")
	}
	classifier := newsclass.New(cfg.Dictionary)
	det := operators.NewNewsAlertDetector()
	switch {
	case cfg.AlertMaxAge < 0:
		det.MaxAge = 0
	case cfg.AlertMaxAge > 0:
		det.MaxAge = cfg.AlertMaxAge
	}
	var w *pqsink.NewsWriter
	if cfg.DataDir != "" {
		var err error
		if w, err = pqsink.OpenNewsWriter(cfg.DataDir); err != nil {
			return err
		}
	}
	restored := 0
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	err := ReadCommitted(rctx, cfg.Brokers, schemas.TopicEvents, nil, func(r *kgo.Record) {
		var e operators.AlertEvent
		if string(r.Key) == SentinelKey || json.Unmarshal(r.Value, &e) != nil {
			return
		}
		if e.Event == operators.AlertNews || e.Event == operators.AlertSECFiling {
			det.Observe(e)
			restored++
		}
	})
	cancel()
	if err != nil {
		return fmt.Errorf("cannot restore the news detectors from %s: %w", schemas.TopicEvents, err)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(NewsGroup),
		kgo.ConsumeTopics(sidetopic.News.Name),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create the news stage consumer: %w", err)
	}
	defer cl.Close()
	log.Info("news stage running", "restoredEvents", restored, "dayFiles", w != nil)
	var out []operators.AlertEvent
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			log.Warn("news stage fetch failed", "topic", t, "partition", p, "err", err)
		})
		out = out[:0]
		var werr error
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == SentinelKey {
				return
			}
			n, err := sidetopic.News.Decode(r.Value)
			if err == nil {
				err = schemas.ValidateNewsItem(n)
			}
			if err != nil {
				log.Warn("news stage skips a record", "partition", r.Partition, "offset", r.Offset, "err", err)
				return
			}
			if n.Classification == nil || n.Classification.Version == "" {
				n.Classification = classifier.Classify(n)
			}
			out = det.Push(n, out)
			if w != nil && werr == nil {
				werr = w.Add(n, n.Classification)
			}
		})
		if werr != nil {
			return werr
		}
		for _, e := range out {
			v, err := json.Marshal(e)
			if err != nil {
				panic("BUG: cannot marshal alert event: " + err.Error())
			}
			cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(e.Symbol), Value: v}, nil)
		}
		if len(out) > 0 {
			if err := cl.Flush(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("cannot publish news events: %w", err)
			}
		}
		if w != nil {
			if err := w.Flush(48 * time.Hour); err != nil {
				return err
			}
		}
		if err := cl.CommitUncommittedOffsets(ctx); err != nil && ctx.Err() == nil {
			log.Warn("cannot commit news stage offsets", "err", err)
		}
	}
}
