package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"mime"
	"path"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// The assets every page may load, embedded in the binary: the site's own
// stylesheet and script, and uPlot (npm uplot 1.6.32, MIT licence,
// vendored by scripts/vendor-uplot.sh; docs/pages.md).
//
//go:embed assets
var assetFS embed.FS

// assetFiles maps the public name of an asset (GET /assets/{name}) to its
// embedded file.
var assetFiles = map[string]string{
	"site.css":     "assets/site.css",
	"site.js":      "assets/site.js",
	"favicon.svg":  "assets/favicon.svg",
	"uplot.min.js": "assets/vendor/uplot/uPlot.iife.min.js",
	"uplot.css":    "assets/vendor/uplot/uPlot.min.css",
}

// asset is one embedded asset, ready to serve.
type asset struct {
	contentType string
	body, gz    []byte
	version     string // first 12 hex digits of the body's SHA-256
}

var assets = loadAssets()

func loadAssets() map[string]asset {
	out := make(map[string]asset, len(assetFiles))
	for name, file := range assetFiles {
		body, err := assetFS.ReadFile(file)
		if err != nil {
			panic("BUG: asset " + file + " is not embedded: " + err.Error())
		}
		sum := sha256.Sum256(body)
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		w.Write(body)
		w.Close()
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			panic("BUG: no content type for asset " + name)
		}
		out[name] = asset{contentType: ct, body: body, gz: gz.Bytes(), version: hex.EncodeToString(sum[:6])}
	}
	return out
}

// AssetURL is the URL of an asset with its content version, so a page
// always loads the asset of its own binary and browsers may keep it.
func AssetURL(name string) string {
	a, ok := assets[name]
	if !ok {
		panic("BUG: a page refers to the unknown asset " + name)
	}
	return "/assets/" + name + "?v=" + a.version
}

// AssetNames are the names GET /assets/{name} serves, sorted.
func AssetNames() []string {
	names := make([]string, 0, len(assets))
	for n := range assets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

var assetNameParam = api.Text{Name: "name", In: api.InPath, Desc: "Asset name: " + strings.Join(AssetNames(), ", ") + "."}

// AssetsOperation declares GET /assets/{name}: the stylesheets and scripts
// of the pages, gzip-compressed for clients that accept it. With the
// version the pages link (?v=), they are cached for a year.
func AssetsOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/assets/:name", ID: "getAsset", Free: true,
		Summary: "Stylesheets and scripts of the pages (the site's own and the vendored chart library).",
		Params:  []api.Param{assetNameParam},
		Responses: []api.Response{
			{Status: fiber.StatusOK, Desc: "The asset.", Content: []api.Content{
				{Type: "text/css", Schema: schema.String}, {Type: "text/javascript", Schema: schema.String}}},
			api.JSON(fiber.StatusNotFound, "No asset of that name.", api.ErrorSchema),
		},
		NoTool:  "the pages' stylesheets and scripts, for browsers",
		Handler: handleAsset,
	}
}

func handleAsset(c fiber.Ctx) error {
	a, ok := assets[assetNameParam.Get(c)]
	if !ok {
		return api.SendError(c, fiber.StatusNotFound, api.CodeNotFound, "no asset of that name; accepted: "+strings.Join(AssetNames(), ", "))
	}
	c.Set(fiber.HeaderContentType, a.contentType)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Vary(fiber.HeaderAcceptEncoding)
	if c.Query("v") == a.version {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	}
	c.Set(fiber.HeaderETag, `"`+a.version+`"`)
	if c.Get(fiber.HeaderIfNoneMatch) == `"`+a.version+`"` {
		return c.SendStatus(fiber.StatusNotModified)
	}
	if strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip") {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		c.Response().SetBodyRaw(a.gz)
	} else {
		c.Response().SetBodyRaw(a.body)
	}
	return c.SendStatus(fiber.StatusOK)
}
