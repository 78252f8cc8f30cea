// The pages' own script (docs/pages.md): draws the charts with uPlot from
// the figures the server put in the page, copies a key to the clipboard,
// and starts a card checkout with an optional API key to top up. Every
// page works without it: the figures are also in tables, and the checkout
// forms post without it.
"use strict";
(function () {
  // Charts: <figure class="chart"><div class="chart-box"></div>
  // <script type="application/json">{kind, labels|x, series, unit}</script>
  function drawCharts() {
    if (typeof uPlot === "undefined") return;
    document.querySelectorAll("figure.chart").forEach(function (fig) {
      var src = fig.querySelector('script[type="application/json"]');
      var box = fig.querySelector(".chart-box");
      if (!src || !box) return;
      var spec = JSON.parse(src.textContent);
      box.textContent = "";
      var width = Math.max(box.clientWidth || fig.clientWidth || 300, 200);
      var height = spec.height || 200;
      var colors = ["#0a58ca", "#b02a37", "#146c43", "#6f42c1"];
      var unit = spec.unit || "";
      var opts, data;
      if (spec.kind === "bars") {
        var xs = spec.labels.map(function (_, i) { return i; });
        data = [xs].concat(spec.series.map(function (s) { return s.values; }));
        opts = {
          width: width, height: height, legend: { show: false }, cursor: { show: false },
          scales: { x: { time: false, range: [-0.5, xs.length - 0.5] }, y: { range: spec.range || null } },
          axes: [
            { values: function (u, splits) { return splits.map(function (v) { return Number.isInteger(v) ? (spec.labels[v] || "") : ""; }); },
              splits: function () { return xs; } },
            { values: function (u, splits) { return splits.map(function (v) { return v + unit; }); }, size: 55 },
          ],
          series: [{}].concat(spec.series.map(function (s, i) {
            return { label: s.label, fill: colors[i % colors.length], stroke: colors[i % colors.length], width: 0,
              paths: uPlot.paths.bars({ size: [0.6, 80] }), points: { show: false } };
          })),
        };
      } else {
        data = [spec.x].concat(spec.series.map(function (s) { return s.values; }));
        opts = {
          width: width, height: height, legend: { show: false },
          scales: { x: { time: true }, y: {} },
          axes: [{}, { values: function (u, splits) { return splits.map(function (v) { return v + unit; }); }, size: 70 }],
          series: [{}].concat(spec.series.map(function (s, i) {
            return { label: s.label, stroke: colors[i % colors.length], width: 2, spanGaps: true };
          })),
        };
      }
      new uPlot(opts, data, box);
      box.setAttribute("data-drawn", "true");
    });
  }

  // Copy: <button data-copy="ID"> copies the text of #ID.
  function wireCopy() {
    document.querySelectorAll("button[data-copy]").forEach(function (btn) {
      btn.hidden = false;
      btn.addEventListener("click", function () {
        var el = document.getElementById(btn.getAttribute("data-copy"));
        var status = document.getElementById(btn.getAttribute("data-copy") + "-status");
        var text = el ? el.textContent.trim() : "";
        function done(msg) { if (status) status.textContent = msg; }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { done("Copied to the clipboard."); },
            function () { selectText(el); done("Select the key and copy it (Ctrl+C)."); });
        } else {
          selectText(el);
          done("Select the key and copy it (Ctrl+C).");
        }
      });
    });
  }
  function selectText(el) {
    if (!el) return;
    var r = document.createRange();
    r.selectNodeContents(el);
    var s = window.getSelection();
    s.removeAllRanges();
    s.addRange(r);
  }

  // Checkout: <form data-checkout> posts with fetch so that an API key to
  // top up travels in X-API-Key, then goes to the payment page.
  function wireCheckout() {
    document.querySelectorAll("form[data-checkout]").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        var keyInput = document.getElementById("topup-key");
        var status = document.getElementById("checkout-status");
        var headers = { "Accept": "application/json" };
        var key = keyInput ? keyInput.value.trim() : "";
        if (key) headers["X-API-Key"] = key;
        if (status) status.textContent = "Opening the payment page…";
        fetch(form.action, { method: "POST", headers: headers }).then(function (res) {
          return res.json().then(function (body) { return { ok: res.ok, body: body }; });
        }).then(function (r) {
          if (r.ok && r.body.url) {
            window.location.assign(r.body.url);
          } else if (status) {
            status.textContent = (r.body && r.body.message) || "The payment page could not be opened.";
          }
        }, function () {
          if (status) status.textContent = "The payment page could not be opened: the server did not answer.";
        });
      });
    });
  }

  function start() {
    drawCharts();
    wireCopy();
    wireCheckout();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
