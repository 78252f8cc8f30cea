package newsfeed

// DefaultFeeds are the publisher feeds a "news" source polls when its
// entry lists none (docs/news.md lists them with their terms). Headlines
// and teasers are shown with the attribution given here; the article text
// is never fetched. Operators check each publisher's terms for their use
// and may replace the list in the sources file.
func DefaultFeeds() []Feed {
	return []Feed{
		// Crypto.
		{Name: "rss:coindesk", URL: "https://www.coindesk.com/arc/outboundfeeds/rss/", Category: CategoryCrypto, Publisher: "CoinDesk",
			Attribution: "Headline © CoinDesk, coindesk.com", Terms: "https://www.coindesk.com/terms/"},
		{Name: "rss:cointelegraph", URL: "https://cointelegraph.com/rss", Category: CategoryCrypto, Publisher: "Cointelegraph",
			Attribution: "Headline © Cointelegraph, cointelegraph.com", Terms: "https://cointelegraph.com/terms-and-privacy"},
		{Name: "rss:decrypt", URL: "https://decrypt.co/feed", Category: CategoryCrypto, Publisher: "Decrypt",
			Attribution: "Headline © Decrypt Media, decrypt.co", Terms: "https://decrypt.co/terms-of-service"},
		{Name: "rss:theblock", URL: "https://www.theblock.co/rss.xml", Category: CategoryCrypto, Publisher: "The Block",
			Attribution: "Headline © The Block, theblock.co", Terms: "https://www.theblock.co/terms-of-service"},
		// Stocks: press-release wires, which distribute issuers' releases
		// for republication.
		{Name: "rss:globenewswire", URL: "https://www.globenewswire.com/RssFeed/orgclass/1/feedTitle/GlobeNewswire%20-%20News%20Releases",
			Category: CategoryStocks, Publisher: "GlobeNewswire", Attribution: "Press release via GlobeNewswire", Terms: "https://www.globenewswire.com/terms-of-service"},
		{Name: "rss:prnewswire", URL: "https://www.prnewswire.com/rss/news-releases-list.rss", Category: CategoryStocks, Publisher: "PR Newswire",
			Attribution: "Press release via PR Newswire", Terms: "https://www.prnewswire.com/terms-of-use/"},
		// Policy: US public-domain press releases.
		{Name: "rss:federalreserve", URL: "https://www.federalreserve.gov/feeds/press_all.xml", Category: CategoryPolicy, Publisher: "Federal Reserve Board",
			Terms: "https://www.federalreserve.gov/disclaimer.htm"},
		{Name: "rss:sec", URL: "https://www.sec.gov/news/pressreleases.rss", Category: CategoryPolicy, Publisher: "U.S. Securities and Exchange Commission",
			Terms: "https://www.sec.gov/privacy#dissemination"},
		{Name: "rss:treasury", URL: "https://home.treasury.gov/news/press-releases/feed", Category: CategoryPolicy, Publisher: "U.S. Department of the Treasury",
			Terms: "https://home.treasury.gov/subfooter/site-policies-and-notices"},
		// Europe.
		{Name: "rss:ecb", URL: "https://www.ecb.europa.eu/rss/press.html", Category: CategoryEurope, Publisher: "European Central Bank",
			Attribution: "Source: European Central Bank", Terms: "https://www.ecb.europa.eu/services/disclaimer/html/index.en.html"},
	}
}
