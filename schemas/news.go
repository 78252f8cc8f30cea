package schemas

// Topics of the news domain (docs/news.md).
const (
	TopicNews    = "mi.news.v1"     // NewsItem (unclassified), key = NewsItem.Id
	TopicNewsDLQ = "mi.news.dlq.v1" // rejected feed or item, reason in header "reason"
)
