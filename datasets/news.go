package datasets

import "path/filepath"

// KindNews is the dataset of classified headlines and filings.
const KindNews = "news"

// NewsDir is <root>/news/date=<day>: the news items published (UTC) on day,
// one row per item id with its latest revision and classification.
func NewsDir(root, day string) string {
	return filepath.Join(root, KindNews, "date="+day)
}

// NewsGlob is the DuckDB glob over the news day files; read it with
// hive_partitioning so date becomes a column.
func NewsGlob(root string) string {
	return filepath.Join(root, KindNews, "date=*", DayFileName)
}

// NewsColumns are the columns of a news day file, in file order. The
// partition column date (the UTC day of published_at) comes from the path.
var NewsColumns = []Column{
	{"id", "VARCHAR", "stable item id: url:<24 hex> of the canonical URL, or sec:<accession number>"},
	{"published_at", "TIMESTAMP WITH TIME ZONE", "publisher time (EDGAR acceptance time for filings), UTC"},
	{"updated_at", "TIMESTAMP WITH TIME ZONE", "publisher's last update of the shown revision; 1970-01-01 when the feed gives none"},
	{"fetched_at", "TIMESTAMP WITH TIME ZONE", "when the service first read the item, UTC"},
	{"kind", "VARCHAR", "article or filing"},
	{"provider", "VARCHAR", "collection channel of the first copy, e.g. rss:coindesk, edgar:getcurrent"},
	{"source", "VARCHAR", "publisher hostname from the URL, without www."},
	{"category", "VARCHAR", "crypto, stocks or filings"},
	{"alert_category", "VARCHAR", "crypto, stocks, filings, policy or europe"},
	{"title", "VARCHAR", "publisher headline (plain text)"},
	{"summary", "VARCHAR", "teaser of at most 280 characters, or the reported items of a filing"},
	{"url", "VARCHAR", "canonical article URL"},
	{"attribution", "VARCHAR", "citation required by the provider, empty when none"},
	{"symbols", "VARCHAR[]", "normalized symbols: BTCUSD for coins, the ticker for US issuers"},
	{"keywords", "VARCHAR[]", "matched sentiment keywords ('not x' when negated)"},
	{"sentiment", "VARCHAR", "positive, negative or neutral (keyword measure, not investment advice)"},
	{"sentiment_score", "BIGINT", "signed sum of the matched keyword weights"},
	{"materiality", "BIGINT", "1 (routine) to 5 (market-moving), docs/news.md"},
	{"form", "VARCHAR", "filing form type as filed (8-K, 4, SC 13D/A, ...), empty for articles"},
	{"form_family", "VARCHAR", "form family the alert filters compare (8-K, 4, 13D, ...), empty for articles"},
	{"accession", "VARCHAR", "filing accession number, empty for articles"},
	{"cik", "VARCHAR", "filer CIK, empty for articles"},
	{"items", "VARCHAR[]", "8-K item numbers, e.g. [2.02, 9.01]"},
	{"earnings", "BOOLEAN", "a filing reporting results (8-K item 2.02)"},
	{"classifier_version", "VARCHAR", "classifier and lexicon version, e.g. mi-news/1.0.0"},
	{"revision", "VARCHAR", "hex SHA-256 of the shown revision's content (schemas.NewsContentHash)"},
}
