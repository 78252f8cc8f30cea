package history

import (
	"errors"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

const priceSmartMoney = 20_000 // 0.02 USD, spec §8

var (
	nullableNumber = schema.Nullable("number")

	smartWalletSchema = schema.Object("One ranked wallet (public address).", schema.Obj{
		{"rank", schema.Count}, {"wallet", schema.String}, {"chain", schema.String},
		{"realizedPnlUsd", schema.Number}, {"unrealizedPnlUsd", schema.Number}, {"totalPnlUsd", schema.Number},
		{"winRate", schema.Described(nullableNumber, "Percent of closing sells with a positive realized PnL; null without closing sells.")},
		{"avgHoldingSeconds", schema.Described(nullableNumber, "Mean time from the position's weighted acquisition to each closing sell; null without closing sells.")},
		{"trades", schema.Count}, {"buyVolumeUsd", schema.Number}, {"sellVolumeUsd", schema.Number}, {"unmatchedSellUsd", schema.Number},
		{"openPosition", schema.Object("The open position at average cost.", schema.Obj{{"size", schema.Number}, {"valueUsd", schema.Number}, {"avgCost", schema.Number}})},
		{"firstTrade", schema.DateTime}, {"lastTrade", schema.DateTime},
	})
	excludedSchema = schema.Object("Excluded trades and wallets of one rule.", schema.Obj{{"trades", schema.Count}, {"wallets", schema.Count}})

	smartMoneySchema = schema.Named{Name: "SmartMoney", Schema: schema.Object("Wallets ranked by realized plus unrealized PnL at average cost, and the top decile's net flow over the last two UTC days (docs/smart-money.md).", schema.Obj{
		{"symbol", schema.String}, {"asOf", schema.DateTime}, {"from", schema.DateTime},
		{"markPrice", schema.Number}, {"markTime", schema.DateTime}, {"costBasis", schema.String},
		{"walletsRanked", schema.Count}, {"tradesUsed", schema.Count},
		{"wallets", schema.Array(smartWalletSchema)},
		{"netFlow", schema.Object("Net flow (buy - sell USD) since midnight UTC of yesterday.", schema.Obj{
			{"from", schema.DateTime}, {"to", schema.DateTime}, {"topDecileWallets", schema.Count},
			{"topDecileBuyUsd", schema.Number}, {"topDecileSellUsd", schema.Number}, {"topDecileNetFlowUsd", schema.Number},
			{"allWalletsNetFlowUsd", schema.Number}, {"allWalletsBuyUsd", schema.Number}, {"allWalletsSellUsd", schema.Number},
			{"topDecileDirection", schema.Enum("BUYING", "SELLING", "FLAT")},
		})},
		{"excluded", schema.Object("What the ranking excluded, counted.", schema.Obj{
			{"arbitrage", excludedSchema}, {"mevSandwich", excludedSchema}, {"twoSidedBots", excludedSchema}, {"routerBound", excludedSchema},
			{"underMinimum", schema.Object("Trades under the minimum notional, ignored.", schema.Obj{{"trades", schema.Count}, {"minUsd", schema.Number}})},
		})},
		{"note", schema.String},
	})}
)

func (rt *Routes) smartMoneyOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/smart-money/:symbol", ID: "getSmartMoney", Price: priceSmartMoney,
		Summary: "Wallets (public addresses) ranked by realized plus unrealized PnL over the stored DEX trades, with win rate, holding time, open position, and the top decile's net flow versus all wallets over the last two UTC days; arbitrage, MEV, two-sided bots and router-bound swaps excluded; trades under $50 ignored.",
		Params:  []api.Param{api.SymbolPath},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The ranking.", smartMoneySchema),
			historyNoData("No on-chain wallet trade of the symbol is stored; not charged."),
		},
		Tool: &api.Tool{Name: "get_smart_money",
			Description: "The most profitable on-chain wallets trading a symbol and whether they are net buying or selling over the last two days (PnL at average cost; bots, arbitrage and MEV excluded)."},
		Handler: rt.handleSmartMoney,
	}
}

// handleSmartMoney serves GET /api/v1/intelligence/smart-money/:symbol.
func (rt *Routes) handleSmartMoney(c fiber.Ctx) error {
	sym := api.SymbolPath.Get(c)
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	a, err := rt.store.SmartMoney(c.Context(), sym, nil)
	if errors.Is(err, ErrNoWalletTrades) {
		return sendHistoryNoData(c, "no on-chain wallet trade of "+sym+" is stored in the last 30 days")
	}
	if err != nil {
		return historyErr(c, err, "")
	}
	return api.SendValue(c, fiber.StatusOK, a)
}
