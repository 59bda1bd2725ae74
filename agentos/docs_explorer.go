package agentos

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
)

// The Try it forms of /docs. Each is server-rendered from the route's
// documented parameters and hidden until docsScript runs, so without
// script the page is the plain reference. The script reads everything
// it needs from data- attributes: no data is spliced into script text.

// writeTryIt writes rt's Try it form.
func writeTryIt(b *htmlBuf, rt apiRoute) {
	if rt.Status == http.StatusSwitchingProtocols {
		b.raw(`<p class="muted">Try it: this is a WebSocket; connect with a WebSocket client.</p>` + "\n")
		return
	}
	b.raw(`<form class="tryit" hidden data-method="`)
	b.esc(rt.Method())
	b.raw(`" data-path="`)
	b.esc(openAPIPath(rt.Path()))
	b.raw("\">\n<fieldset><legend>Try it</legend>\n")
	for _, name := range pathParams(rt.Path()) {
		writeTryField(b, "path", apiParam{Name: name, Type: "string", Required: true})
	}
	for _, p := range rt.Query {
		writeTryField(b, "query", p)
	}
	for _, p := range rt.Form {
		writeTryField(b, "form", p)
	}
	for _, p := range rt.JSON {
		writeTryField(b, "json", p)
	}
	if len(rt.JSON) > 0 {
		// For bodies the fields cannot express (nested objects, mixed
		// types).
		b.raw(`<label class="wide"><span>raw JSON body <em>replaces the json fields when set</em></span><textarea data-raw rows="3" spellcheck="false"></textarea></label>` + "\n")
	}
	b.raw(`<div class="act"><button type="submit">Send</button> <button type="button" class="abort" hidden>Abort</button></div>
<div class="result" hidden><p class="status"></p><pre class="headers"></pre><pre class="body"></pre></div>
</fieldset>
</form>
`)
}

// writeTryField writes one input: in is where the value goes (path,
// query, form or json), data-type how the script types a JSON value.
func writeTryField(b *htmlBuf, in string, p apiParam) {
	b.raw("<label><span><code>")
	b.esc(p.Name)
	b.raw("</code> <em>")
	b.esc(in)
	if p.Required {
		b.raw(" *")
	}
	b.raw("</em></span>")
	attrs := func() {
		b.raw(` name="`)
		b.esc(p.Name)
		b.raw(`" data-in="`)
		b.esc(in)
		b.raw(`" data-type="`)
		b.esc(p.Type)
		b.raw(`"`)
		if in == "path" {
			b.raw(" required")
		}
	}
	placeholder := ""
	if p.Default != nil {
		placeholder = fmt.Sprintf("%v", p.Default)
	}
	switch {
	case in == "form" && p.Type == "array" && p.Name == pFiles.Name:
		b.raw(`<input type="file" multiple`)
		attrs()
		b.raw(">")
	case len(p.Enum) > 0 || p.Type == "boolean":
		options := p.Enum
		if len(options) == 0 {
			options = []string{"true", "false"}
		}
		b.raw("<select")
		attrs()
		b.raw(`><option value="">`)
		if placeholder != "" {
			b.esc("(default: " + placeholder + ")")
		} else {
			b.raw("(not set)")
		}
		b.raw("</option>")
		for _, e := range options {
			b.raw(`<option value="`)
			b.esc(e)
			b.raw(`">`)
			b.esc(e)
			b.raw("</option>")
		}
		b.raw("</select>")
	case in == "json" && (p.Type == "object" || p.Type == "array"):
		b.raw(`<textarea rows="2" spellcheck="false"`)
		attrs()
		if p.Type == "array" {
			b.raw(` placeholder="JSON array, or comma-separated"`)
		} else {
			b.raw(` placeholder="JSON object"`)
		}
		b.raw("></textarea>")
	default:
		b.raw(`<input type="text" spellcheck="false"`)
		attrs()
		if placeholder != "" {
			b.raw(` placeholder="`)
			b.esc(placeholder)
			b.raw(`"`)
		}
		b.raw(">")
	}
	b.raw("</label>\n")
}

// cspHash is the CSP source admitting exactly this inline script or
// style, so the pages need neither 'unsafe-inline' nor a nonce.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// docsCSP lets /docs run its own script and style and call this server
// (connect-src 'self', for Try it), nothing else. The browser's own
// favicon request stays on this origin (img-src 'self').
var docsCSP = "default-src 'none'; script-src " + cspHash(docsScript) + "; style-src " + cspHash(docsStyle) +
	"; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const docsStyle = `
[hidden]{display:none!important}
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1.5rem;color:#1c1c1c}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ddd;margin-top:2rem}
details{border:1px solid #e3e3e3;border-radius:6px;margin:.4rem 0;padding:.4rem .7rem}
summary{cursor:pointer}code{font:13px ui-monospace,monospace}
.m{display:inline-block;min-width:4.2rem;font:bold 12px ui-monospace,monospace;text-align:center;border-radius:4px;padding:.1rem .3rem;color:#fff;margin-right:.5rem}
.get{background:#2f7fd0}.post{background:#2c9a58}.patch{background:#c58a12}.delete{background:#c63f3f}.put{background:#7a55c7}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #e3e3e3;padding:.2rem .5rem;text-align:left;vertical-align:top}
.muted{color:#666}
.toc{margin:1rem 0}
.auth{position:sticky;top:0;z-index:1;background:#fff;border-bottom:1px solid #ddd;padding:.5rem 0}
.auth input{font:13px ui-monospace,monospace;width:20rem;max-width:100%}
.tryit fieldset{border:1px dashed #bbb;border-radius:6px;margin:.6rem 0;padding:.4rem .7rem}
.tryit legend{font-weight:bold}
.tryit label{display:block;margin:.25rem 0}
.tryit label>span{display:inline-block;min-width:14rem}
.tryit input,.tryit select,.tryit textarea{font:13px ui-monospace,monospace;width:22rem;max-width:100%;box-sizing:border-box}
.tryit label.wide textarea{width:100%}
.act{margin:.4rem 0}
.status{font-weight:bold;margin:.3rem 0}
.result pre{background:#f6f6f6;border:1px solid #e3e3e3;border-radius:4px;padding:.4rem;max-height:28rem;overflow:auto;white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,monospace}
.result pre:empty{display:none}
`

// docsScript wires the Try it forms: it builds the request from the
// form's fields, sends it with fetch() to this origin, and shows the
// status, headers and body, streaming text/event-stream as it arrives.
// Output is set as textContent only.
const docsScript = `
(function () {
  "use strict";
  var KEY = "agentos.docs.token";
  var token = document.getElementById("token");
  var store = null;
  try { store = window.sessionStorage; } catch (e) { store = null; }
  if (store) { token.value = store.getItem(KEY) || ""; }
  token.addEventListener("input", function () {
    if (!store) { return; }
    if (token.value) { store.setItem(KEY, token.value); } else { store.removeItem(KEY); }
  });
  var auth = document.getElementById("auth");
  auth.addEventListener("submit", function (ev) { ev.preventDefault(); });
  auth.hidden = false;
  Array.prototype.forEach.call(document.querySelectorAll("form.tryit"), function (f) {
    f.hidden = false;
    f.addEventListener("submit", function (ev) { ev.preventDefault(); send(f); });
  });

  function fields(f, where) {
    return Array.prototype.filter.call(f.querySelectorAll("[data-in]"), function (el) { return el.dataset.in === where; });
  }

  // typed is a JSON field's value as its documented type; undefined
  // when empty, so the server sees the field as absent.
  function typed(el) {
    var v = el.value.trim();
    if (v === "") { return undefined; }
    try {
      switch (el.dataset.type) {
      case "integer":
      case "number":
        if (isNaN(Number(v))) { throw new Error("not a number"); }
        return Number(v);
      case "boolean":
        return v === "true";
      case "object":
        return JSON.parse(v);
      case "array":
        if (v.charAt(0) === "[") { return JSON.parse(v); }
        return v.split(",").map(function (s) { return s.trim(); }).filter(Boolean);
      }
    } catch (e) {
      throw new Error(el.name + ": " + e.message);
    }
    return v;
  }

  function build(f) {
    var path = f.dataset.path;
    fields(f, "path").forEach(function (el) {
      if (el.value === "") { throw new Error(el.name + " is required"); }
      path = path.replace("{" + el.name + "}", encodeURIComponent(el.value));
    });
    var query = new URLSearchParams();
    fields(f, "query").forEach(function (el) { if (el.value !== "") { query.append(el.name, el.value); } });
    var init = { method: f.dataset.method, headers: {}, credentials: "same-origin" };
    var t = token.value.trim();
    if (t) { init.headers.Authorization = "Bearer " + t; }
    var form = fields(f, "form");
    if (form.length) {
      var files = form.some(function (el) { return el.files && el.files.length > 0; });
      var body = files ? new FormData() : new URLSearchParams();
      form.forEach(function (el) {
        if (el.files) {
          Array.prototype.forEach.call(el.files, function (file) { body.append(el.name, file); });
        } else if (el.value !== "") {
          body.append(el.name, el.value);
        }
      });
      init.body = body;
    }
    var raw = f.querySelector("[data-raw]");
    var json = fields(f, "json");
    if (json.length || raw) {
      var obj = {};
      if (raw && raw.value.trim() !== "") {
        try { obj = JSON.parse(raw.value); } catch (e) { throw new Error("raw JSON body: " + e.message); }
      } else {
        json.forEach(function (el) { var v = typed(el); if (v !== undefined) { obj[el.name] = v; } });
      }
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(obj);
    }
    var qs = query.toString();
    return { url: path + (qs ? "?" + qs : ""), init: init };
  }

  function send(f) {
    var out = f.querySelector(".result");
    var status = out.querySelector(".status");
    var head = out.querySelector(".headers");
    var body = out.querySelector(".body");
    var abort = f.querySelector(".abort");
    out.hidden = false;
    head.textContent = "";
    body.textContent = "";
    var req;
    try { req = build(f); } catch (e) { status.textContent = e.message; return; }
    var line = req.init.method + " " + req.url;
    status.textContent = line + " …";
    // A new Send supersedes the request still streaming into this form.
    if (f.pending) { f.pending.abort(); }
    var ctl = new AbortController();
    f.pending = ctl;
    var live = function () { return f.pending === ctl; };
    req.init.signal = ctl.signal;
    abort.hidden = false;
    abort.onclick = function () { ctl.abort(); };
    fetch(req.url, req.init).then(function (res) {
      if (!live()) { return undefined; }
      status.textContent = line + " → " + res.status + " " + res.statusText;
      var lines = [];
      res.headers.forEach(function (v, k) { lines.push(k + ": " + v); });
      head.textContent = lines.join("\n");
      var type = res.headers.get("Content-Type") || "";
      if (type.indexOf("text/event-stream") === 0 && res.body) {
        return stream(res.body.getReader(), body);
      }
      return res.text().then(function (text) {
        if (type.indexOf("json") >= 0) {
          try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* shown as sent */ }
        }
        body.textContent = text;
      });
    }).catch(function (e) {
      if (live()) { status.textContent += e.name === "AbortError" ? " (aborted)" : " (" + e.message + ")"; }
    }).then(function () {
      if (live()) { abort.hidden = true; f.pending = null; }
    });
  }

  // stream appends the events as they arrive, as text.
  function stream(reader, pre) {
    var dec = new TextDecoder();
    return reader.read().then(function step(r) {
      if (r.done) { pre.textContent += dec.decode(); return undefined; }
      pre.textContent += dec.decode(r.value, { stream: true });
      return reader.read().then(step);
    });
  }
})();
`
