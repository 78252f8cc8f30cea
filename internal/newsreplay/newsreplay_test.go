package newsreplay

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgarreplay"
	"github.com/marketintel/mi/pipeline/sources/newsfeed"
)

// TestReplayedSource polls every captured feed and the replayed EDGAR from
// one local server, as the offline demo does.
func TestReplayedSource(t *testing.T) {
	dir := fixtures.Dir(t)
	srv, err := pubreplay.New(append(Routes(dir), edgarreplay.Routes(dir)...))
	if err != nil {
		t.Fatal(err)
	}
	l, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	src, err := newsfeed.New(Config(l.URL), newsfeed.Options{HTTP: HTTP(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	per := map[string]int{}
	adbe := false
	// 3 + 30 + 58 + 19 + 3 feed items (SOURCES.md), filings, the seed.
	for per["rss:coindesk"] < 3 || per["rss:cointelegraph"] < 30 || per["rss:decrypt"] < 58 || per["rss:theblock"] < 19 ||
		per["rss:federalreserve"] < 3 || !adbe {
		r, err := src.Next(ctx)
		if err != nil {
			t.Fatalf("%v after %v", err, per)
		}
		if r.Side == nil {
			t.Fatalf("dead letter %q", r.Reason)
		}
		n, err := sidetopic.News.Decode(r.Side.Value)
		if err != nil {
			t.Fatal(err)
		}
		per[n.Provider]++
		adbe = adbe || n.Id == "sec:0000796343-23-000044"
	}
}
